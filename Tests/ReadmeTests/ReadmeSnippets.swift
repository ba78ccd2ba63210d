// The `<!-- compiled -->` code blocks of README.md, verbatim: ReadmeTests checks that each
// block appears here, so the README cannot drift from code that builds and passes.
// Edit README.md first, then copy the block here.

import FluxCapacitor
import FluxCapacitorTesting
import Observation
import Testing

enum GitHub {
    nonisolated struct Repository: Sendable, Hashable, Codable {
        let name: String
    }
}

protocol GitHubSession: Sendable {
    func repositories(ofUser login: String) async throws -> [GitHub.Repository]
}

extension Dispatcher {
    enum Repository: DispatchState, Equatable {
        typealias RelatedStoreType = RepositoryStore
        typealias RelatedActionType = RepositoryAction

        case isRepositoryFetching(Bool)
        case addRepositories([GitHub.Repository])
        case removeAllRepositories
    }
}

final class RepositoryStore: Storable {
    typealias DispatchStateType = Dispatcher.Repository

    let isRepositoryFetching: Constant<Bool>
    private let _isRepositoryFetching = Variable<Bool>(false)

    let repositories: Constant<[GitHub.Repository]>
    private let _repositories = Variable<[GitHub.Repository]>([])

    required init() {
        self.isRepositoryFetching = Constant(_isRepositoryFetching)
        self.repositories = Constant(_repositories)
    }

    func reduce(with state: Dispatcher.Repository) {
        switch state {
        case .isRepositoryFetching(let value):
            _isRepositoryFetching.value = value
        case .addRepositories(let value):
            _repositories.value.append(contentsOf: value)
        case .removeAllRepositories:
            _repositories.value.removeAll()
        }
    }
}

struct RepositoryAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository

    let session: any GitHubSession

    func fetchRepositories(ofUser login: String) async {
        invoke(.isRepositoryFetching(true))
        defer { invoke(.isRepositoryFetching(false)) }
        if let repositories = try? await session.repositories(ofUser: login) {
            invoke(.addRepositories(repositories))
        }
    }
}

final class UserRepositoriesViewModel: Sendable {
    private let action: RepositoryAction
    private let store: RepositoryStore
    private let dustBuster = DustBuster()

    init(action: RepositoryAction, store: RepositoryStore = .instantiate()) {
        self.action = action
        self.store = store

        store.repositories
            .observe(on: .main) { repositories in
                print("\(repositories.count) repositories")
            }
            .cleaned(by: dustBuster)
    }

    func load(user login: String) async {
        await action.fetchRepositories(ofUser: login)
    }
}

extension Dispatcher {
    enum Favorite: DispatchState {
        typealias RelatedStoreType = FavoriteStore
        typealias RelatedActionType = FavoriteAction

        case add(GitHub.Repository)
    }
}

final class FavoriteStore: Storable {
    typealias DispatchStateType = Dispatcher.Favorite

    let favorites: Constant<[GitHub.Repository]>
    private let _favorites = Variable<[GitHub.Repository]>([])

    let saved: Signal<GitHub.Repository>
    private let _saved = Sink<GitHub.Repository>()

    required init() {
        favorites = Constant(_favorites)
        saved = _saved.signal
    }

    func reduce(with state: Dispatcher.Favorite) {
        switch state {
        case .add(let repository):
            _favorites.value.append(repository)
            _saved.send(repository)
        }
    }
}

struct FavoriteAction: Actionable {
    typealias DispatchStateType = Dispatcher.Favorite
}

@MainActor
@Observable
final class RepositoryListModel {
    var filter = ""
    private let action: RepositoryAction
    private let store: RepositoryStore

    init(action: RepositoryAction, store: RepositoryStore = .instantiate()) {
        self.action = action
        self.store = store
    }

    var isLoading: Bool { store.isRepositoryFetching.value }

    var names: [String] {
        store.repositories.value.map(\.name)
            .filter { filter.isEmpty || $0.contains(filter) }
    }

    func load(user login: String) async {
        await action.fetchRepositories(ofUser: login)
    }
}

struct StubSession: GitHubSession {
    let found: [GitHub.Repository]

    func repositories(ofUser _: String) async throws -> [GitHub.Repository] {
        found
    }
}

@Suite(.isolatedDispatcher)
struct RepositoryTests {
    let fluxCapacitor = GitHub.Repository(name: "FluxCapacitor")
    let swiftLog = GitHub.Repository(name: "swift-log")

    @Test func addingRepositoriesAppendsThem() {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(found: []))

        action.invoke(.addRepositories([fluxCapacitor]))
        action.invoke(.addRepositories([swiftLog]))

        #expect(store.repositories.value == [fluxCapacitor, swiftLog])
    }

    @Test func fetchingInvokesTheFlagAroundTheRepositories() async {
        let recorder = DispatchRecorder()

        await RepositoryAction(session: StubSession(found: [fluxCapacitor]))
            .fetchRepositories(ofUser: "marty")

        let expected: [Dispatcher.Repository] = [
            .isRepositoryFetching(true),
            .addRepositories([fluxCapacitor]),
            .isRepositoryFetching(false),
        ]
        #expect(recorder.states(of: Dispatcher.Repository.self) == expected)
    }
}

@Suite(.isolatedDispatcher)
struct RepositoryActionTests {
    let fluxCapacitor = GitHub.Repository(name: "FluxCapacitor")

    @Test func fetchingTurnsTheFlagOnAroundTheRepositories() async {
        let store = RepositoryStore.instantiate()
        let tester = DispatchTester(of: Dispatcher.Repository.self)
        let repositories = tester.track(
            store.repositories, named: "repositories")

        await RepositoryAction(session: StubSession(found: [fluxCapacitor]))
            .fetchRepositories(ofUser: "marty")

        await tester.receive(.isRepositoryFetching(true))
        await tester.receive(.addRepositories([fluxCapacitor]))
        await repositories.receive([fluxCapacitor])
        await tester.receive(.isRepositoryFetching(false))
    }
}

func printsZeroThenTen() {
    let variable = Variable<Int>(0)
    let constant = Constant(variable)

    _ = variable.observe { value in print(value) }  // 0 -> 10
    _ = constant.observe { value in print(value) }  // 0 -> 10
    variable.value = 10
    print(constant.value)  // 10
}
