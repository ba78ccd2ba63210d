// What the doc comments' samples assume the app has, beyond what the samples declare
// themselves (`Dispatcher.Repository`, `RepositoryStore`, `RepositoryAction` and
// `FavoriteStore` are declared by the samples, in CoreDocSnippets.swift).

import FluxCapacitor
import Foundation

/// The namespace of the samples' GitHub models.
enum GitHub {
    /// A repository, as the samples show it; `Codable`, so that it can be persisted
    /// (`nonisolated`, as README's model: see "Xcode 26 app targets").
    nonisolated struct Repository: Sendable, Hashable, Codable {
        let name: String
    }
}

/// What `RepositoryAction` asks for repositories.
protocol GitHubSession: Sendable {
    func repositories(ofUser login: String) async throws -> [GitHub.Repository]
}

/// A session that finds the same repositories for every user.
struct StubSession: GitHubSession {
    let found: [GitHub.Repository]

    func repositories(ofUser login: String) async throws -> [GitHub.Repository] {
        found
    }
}

/// The repository the samples fetch, add and save.
let fluxCapacitor = GitHub.Repository(name: "FluxCapacitor")

extension Dispatcher {
    /// What `FavoriteStore` reduces; recorded and replayed by the samples, so
    /// `nonisolated` (see "Xcode 26 app targets").
    nonisolated enum Favorite: DispatchState, Equatable, Codable, Sendable {
        typealias RelatedStoreType = FavoriteStore
        typealias RelatedActionType = FavoriteAction

        case add(GitHub.Repository)
    }
}

/// Invokes `Dispatcher.Favorite` states.
struct FavoriteAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Favorite
}

// The stand-ins below are called from observers, which run on any thread: `nonisolated`,
// also where code is on the main actor by default (an Xcode 26 app target).

/// Draws repositories, in the samples.
nonisolated func render(_ repositories: [GitHub.Repository]) {
    print(repositories.map(\.name))
}

/// Shows a short message, in the samples.
nonisolated func showToast(_ message: String) {
    print(message)
}

/// Does some work with a value, in the samples.
nonisolated func process<Value>(_ value: Value) {
    print(value)
}

/// A view that shows one message, in the samples.
nonisolated final class Banner: @unchecked Sendable {
    // Sendable: `lock` guards `storedMessage`.
    private let lock = NSLock()
    private var storedMessage: String?

    var message: String? {
        get { lock.withLock { storedMessage } }
        set { lock.withLock { storedMessage = newValue } }
    }
}
