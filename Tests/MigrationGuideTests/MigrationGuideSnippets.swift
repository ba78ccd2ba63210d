// The **After** snippets of MIGRATION.md, verbatim: this file compiling is what
// "every After snippet compiles" means. `MigrationGuideTests` checks that each one is here.

import FluxCapacitor
import Observation

extension Dispatcher {
    enum Repository: DispatchState {
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

final class RepositoryObserver {
    let store = RepositoryStore.instantiate()
    let dustBuster = DustBuster()

    func observeStore() {
        store.repositories
            .observe(on: .main) { repositories in
                print(repositories.count)
            }
            .cleaned(by: dustBuster)
    }
}

final class FavoritesScreen {
    let repositoryStore = RepositoryStore.instantiate()

    deinit {
        repositoryStore.clear()
    }
}

final class RepositoryCounter {
    private let store: RepositoryStore
    private let dustBuster = DustBuster()

    init(store: RepositoryStore = .instantiate()) {
        self.store = store
        store.repositories
            .observe { print($0.count) }
            .cleaned(by: dustBuster)
    }
}

func reportDroppedDispatches(until dustBuster: DustBuster) {
    Dispatcher.shared
        .observeDispatches { event in
            if event.phase == .droppedWithoutStore {
                print("no live \(event.storeType) for \(event.state)")
            }
        }
        .cleaned(by: dustBuster)
}

func fetchWhenEmpty(
    store: RepositoryStore, action: RepositoryAction, dustBuster: DustBuster
) {
    store.repositories
        .observe { repositories in
            if repositories.isEmpty {
                action.invoke(.isRepositoryFetching(true))
                // Runs after this observer returns, before the outer
                // invoke returns.
            }
        }
        .cleaned(by: dustBuster)
}

func printsTheCurrentValueFirst() {
    let variable = Variable<Int>(0)
    // 0 -> 10 (0.10.0 printed 10 only)
    _ = variable.observe { value in print(value) }
    variable.value = 10
}

func renderFromNowOn(store: RepositoryStore, dustBuster: DustBuster) {
    // The current repositories, then each change:
    store.repositories
        .observe { repositories in render(repositories) }
        .cleaned(by: dustBuster)
    // Changes only:
    store.isRepositoryFetching
        .observe(ignoreFirst: true) { isFetching in
            print("fetching: \(isFetching)")
        }
        .cleaned(by: dustBuster)
}

func render(from store: RepositoryStore, dustBuster: DustBuster) {
    store.repositories
        .observe(on: .main) { repositories in
            // Now, then on each change:
            print("showing \(repositories.count) repositories")
        }
        .cleaned(by: dustBuster)
}

@MainActor
final class RepositoryListModel {
    private(set) var titles: [String] = []
    private let store = RepositoryStore.instantiate()
    private let dustBuster = DustBuster()

    func observeStore() {
        store.repositories
            .observe(on: .main) { [weak self] repositories in
                MainActor.assumeIsolated {
                    self?.titles = repositories.map(\.name)
                }
            }
            .cleaned(by: dustBuster)
    }
}

func printRepositoryCounts(of store: RepositoryStore) async {
    for await repositories in store.repositories.values {
        print(repositories.count)
    }
}

func fetchingInIsolation() {
    Dispatcher.withCurrent(Dispatcher()) {
        let store = RepositoryStore.instantiate()
        RepositoryAction().invoke(.isRepositoryFetching(true))
        assert(store.isRepositoryFetching.value)
    }
}

func showSpinner(
    whileFetchingIn store: RepositoryStore, dustBuster: DustBuster
) {
    store.isRepositoryFetching
        .removeDuplicates()
        .observe(on: .main) { isFetching in
            print(isFetching ? "loading…" : "done")
        }
        .cleaned(by: dustBuster)
}

func printSavedMessage() {
    let sink = Sink<String>()
    let signal = sink.signal

    let dust = signal.observe { message in
        print(message)
    }
    sink.send("saved")
    dust.clean()
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

func sayWhenSaved(in store: FavoriteStore, dustBuster: DustBuster) {
    store.saved
        .observe(on: .main) { repository in
            print("\(repository.name) saved to favorites")
        }
        .cleaned(by: dustBuster)
}

@Observable
final class RepositoryListViewModel {
    private let store: RepositoryStore

    init(store: RepositoryStore = .instantiate()) {
        self.store = store
    }

    var names: [String] { store.repositories.value.map(\.name) }
}

func countVisit(in visits: Variable<Int>) {
    visits.update { $0 += 1 }
}

// MARK: - Stores that are not `final`

extension Dispatcher {
    enum Test: DispatchState {
        typealias RelatedStoreType = TestStore
        typealias RelatedActionType = TestAction

        case increment
    }
}

struct TestAction: Actionable {
    typealias DispatchStateType = Dispatcher.Test
}

final class TestStore: Storable {
    typealias DispatchStateType = Dispatcher.Test

    let count: Constant<Int>
    private let _count = Variable(0)

    required init() {
        count = Constant(_count)
    }

    func reduce(with state: Dispatcher.Test) {
        switch state {
        case .increment: _count.value += 1
        }
    }
}

protocol CountingStore: Storable {
    var count: Constant<Int> { get }
}

extension CountingStore {
    var isEmpty: Bool { count.value == 0 }
}

extension TestStore: CountingStore {}
