import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing

@testable import repository_search

/// What the two stores hold: every value a screen reads. A request in flight is a side
/// effect, not state: only whether there is one is compared.
private struct StoreValues: Equatable {
    var isUserFetching: Bool
    var users: [GitHub.User]
    var userTotalCount: Int
    var selectedUser: GitHub.User?
    var userPageInfo: GitHub.PageInfo?
    var lastSearchQuery: String
    var userError: GitHubError?
    var isRepositoryFetching: Bool
    var repositories: [GitHub.Repository]
    var selectedRepository: GitHub.Repository?
    var repositoryPageInfo: GitHub.PageInfo?
    var hasLastTask: Bool
    var repositoryTotalCount: Int
    var favorites: [GitHub.Repository]
    var repositoryError: GitHubError?

    init(_ users: UserStore, _ repositories: RepositoryStore) {
        isUserFetching = users.isUserFetching.value
        self.users = users.users.value
        userTotalCount = users.totalCount.value
        selectedUser = users.selectedUser.value
        userPageInfo = users.lastPageInfo.value
        lastSearchQuery = users.lastSearchQuery.value
        userError = users.lastError.value
        isRepositoryFetching = repositories.isRepositoryFetching.value
        self.repositories = repositories.repositories.elements.map(\.value)
        selectedRepository = repositories.selectedRepository.value
        repositoryPageInfo = repositories.lastPageInfo.value
        hasLastTask = repositories.lastTask.value != nil
        repositoryTotalCount = repositories.totalCount.value
        favorites = repositories.favorites.value
        repositoryError = repositories.lastError.value
    }
}

@Suite("Replaying a recorded session", .isolatedDispatcher, .inMemoryStorage)
final class ReplayTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The session `repository-search --record` wrote (see the README), committed.
    static var fixture: URL? {
        Bundle.module.url(forResource: "walkthrough-session", withExtension: "jsonl", subdirectory: "Fixtures")
    }

    /// The state types of `SessionRecording`, by the names it records them with.
    static let types: [DispatchReplay.ReplayedType] = [
        .state(Dispatcher.User.self, named: "User"),
        .state(Dispatcher.Repository.self, named: "Repository"),
    ]

    /// Replays `file` into stores of a new dispatcher of their own (favorites in memory);
    /// returns what they hold at the end, and how many states were replayed.
    private func replayed(_ file: URL) -> (values: StoreValues, count: Int) {
        let dispatcher = Dispatcher()
        let storage = InMemoryStorage(coalescingInterval: .zero)
        let replay: () -> (values: StoreValues, count: Int) = {
            let users: UserStore = Dispatcher.withCurrent(dispatcher) { UserStore.instantiate() }
            let repositories: RepositoryStore = Dispatcher.withCurrent(dispatcher) { RepositoryStore.instantiate() }
            let replay = DispatchReplay(contentsOf: file, decoding: Self.types, into: dispatcher)
            let count: Int = replay.replayAll()
            return (StoreValues(users, repositories), count)
        }
        return Persistence.withDefaultStorage(storage, operation: replay)
    }

    /// Runs the walk-through as `repository-search --record FILE` does; returns what its
    /// stores hold at the end.
    private func recordWalkThrough(to file: URL) async -> StoreValues {
        // Held, so that the run's stores are still there to read when it ends.
        let users = UserStore.instantiate()
        let repositories = RepositoryStore.instantiate()
        let console = BufferConsole()
        let arguments = ["--record", file.path, "--storage", folder.appendingPathComponent("favorites").path]
        let status: Int32 = await RepositorySearch.run(
            arguments: arguments, environment: [:], input: { nil }, console: console)
        #expect(status == 0)
        #expect(console.text.contains("Recorded "))
        return StoreValues(users, repositories)
    }

    @Test func aRecordedWalkThroughReplayedIntoFreshStoresEndsWithTheSameValues() async throws {
        let file = folder.appendingPathComponent("session.jsonl")
        let recorded = await recordWalkThrough(to: file)
        #expect(recorded.favorites.count == 1)
        #expect(recorded.lastSearchQuery == "doc")

        let replay = replayed(file)
        #expect(replay.count > 80)
        #expect(replay.values == recorded)
    }

    /// The session in Fixtures/ was recorded by `repository-search --record`: searching,
    /// paging users and repositories, a search cancelled by the next one, a favorite, an
    /// error. It replays, today, into the stores a walk-through ends with.
    @Test func theCommittedRecordingReplaysIntoTheStoresAWalkThroughEndsWith() async throws {
        let fixture = try #require(Self.fixture)
        let replay = replayed(fixture)
        #expect(replay.count > 80)
        // Its timeline, attached (`Scripts/check-timeline` opens it in a browser).
        let page = try #require(
            DispatchReplay(contentsOf: fixture, decoding: Self.types, into: Dispatcher())
                .attachTimeline(named: "walkthrough-session.html"))
        #expect(try String(contentsOf: page, encoding: .utf8).contains(#""types":["User","Repository"]"#))
        try? FileManager.default.removeItem(at: page.deletingLastPathComponent())

        var expected = await recordWalkThrough(to: folder.appendingPathComponent("fresh.jsonl"))
        var actual = replay.values
        // The rate limit's reset is a time of the day it was recorded.
        guard case .rateLimited? = actual.userError else {
            Issue.record("the last search's error: \(String(describing: actual.userError))")
            return
        }
        actual.userError = nil
        expected.userError = nil
        #expect(actual == expected)
    }

    @Test func theCommittedRecordingHasACancelledSearchWhoseAnswerReachedNoStore() throws {
        let fixture = try #require(Self.fixture)
        let dispatcher = Dispatcher()
        var queries: [String] = []
        var usersAdded: [String: Int] = [:]
        let replay = DispatchReplay(contentsOf: fixture, decoding: Self.types, into: dispatcher)
        var query = ""
        while let step = replay.next() {
            switch step.state as? Dispatcher.User {
            case .lastSearchQuery(let text)? where !text.isEmpty:
                query = text
                queries.append(text)
            case .addUsers(let users)?:
                usersAdded[query, default: 0] += users.count
            default:
                break
            }
        }
        // "marg" was searched, and "marge" replaced it before it answered: nothing it
        // found reached the store.
        #expect(queries.contains("marg"))
        #expect(usersAdded["marg"] == nil)
        #expect(usersAdded["marge"] == 1)
    }
}
