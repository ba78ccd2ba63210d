// The code samples of the DocC articles (Sources/FluxCapacitor/FluxCapacitor.docc) that
// the README does not already compile, verbatim (indentation aside): the documentation
// sample check finds each here. Edit the article first, then copy the sample here.

import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing
import XCTest

// FluxCapacitor.md

extension Dispatcher {
    enum Counter: DispatchState {
        typealias RelatedStoreType = CounterStore
        typealias RelatedActionType = CounterAction

        case increment
    }
}

final class CounterStore: Storable {
    typealias DispatchStateType = Dispatcher.Counter

    let count: Constant<Int>
    private let _count = Variable(0)

    required init() { count = Constant(_count) }

    func reduce(with state: Dispatcher.Counter) {
        switch state {
        case .increment: _count.value += 1
        }
    }
}

struct CounterAction: Actionable {
    typealias DispatchStateType = Dispatcher.Counter
}

func countOnce() {
    let store = CounterStore.instantiate()
    let dust = store.count.observe { count in print(count) }  // 0, then 1
    CounterAction().invoke(.increment)
    dust.clean()
}

// ObservingValues.md

func observeAndClean(store: RepositoryStore, dustBuster: DustBuster) {
    store.repositories
        .observe(on: .main) { repositories in
            render(repositories)
        }
        .cleaned(by: dustBuster)
}

func derive(from store: RepositoryStore) -> (Constant<String>, Constant<Bool>) {
    let counter: Constant<String> = store.repositories.map {
        "\($0.count) repositories"
    }
    let isFetching: Constant<Bool> = store.isRepositoryFetching.removeDuplicates()
    return (counter, isFetching)
}

func combine(from store: RepositoryStore) -> Constant<String> {
    let status = Constant(
        combining: store.repositories, store.isRepositoryFetching
    ) { repositories, isFetching in
        isFetching ? "loading…" : "\(repositories.count) repositories"
    }
    return status
}

func renderEach(of store: RepositoryStore) async {
    for await repositories in store.repositories.values {
        render(repositories)
    }
}

@MainActor
final class RepositoryListViewModel {
    private(set) var titles: [String] = []
    private(set) var counter = ""

    init(store: RepositoryStore = .instantiate()) {
        store.repositories.observe(duringScopeOf: self) {
            viewModel, repositories in
            viewModel.titles = repositories.map(\.name)
        }
        store.repositories.map { "\($0.count) repositories" }
            .bind(to: self, \.counter)
    }
}

// SendingEvents.md

func toastWhenSaved(in store: FavoriteStore, dustBuster: DustBuster) {
    store.saved
        .observe(on: .main) { repository in
            showToast("\(repository.name) saved to favorites")
        }
        .cleaned(by: dustBuster)
}

// Testing.md

nonisolated final class RepositoryXCTests: XCTestCase {
    override func invokeTest() {
        Dispatcher.withCurrent(Dispatcher()) { super.invokeTest() }
    }
}

// PersistingValues.md

extension Dispatcher {
    enum Bookmark: DispatchState {
        typealias RelatedStoreType = BookmarkStore
        typealias RelatedActionType = BookmarkAction

        case add(GitHub.Repository)
    }

    enum History: DispatchState {
        typealias RelatedStoreType = HistoryStore
        typealias RelatedActionType = HistoryAction

        case searched(String)
    }
}

struct BookmarkAction: Actionable {
    typealias DispatchStateType = Dispatcher.Bookmark
}

struct HistoryAction: Actionable {
    typealias DispatchStateType = Dispatcher.History
}

/// Compiled, never run: it sets the process's default storage to the user's real folder.
func setTheAppsStorage() {
    Persistence.setDefaultStorage(FileStorage.applicationSupport(named: "MyApp"))
}

/// Compiled, never run: it sets the process's default storage.
func setAStorageInAFolder() {
    let storage = FileStorage(directory: URL(fileURLWithPath: "/var/lib/my-tool"))
    Persistence.setDefaultStorage(storage)
    let settings = Variable(
        [String: String](), persistedAs: "settings", in: storage)
    _ = settings
}

final class BookmarkStore: Storable {
    typealias DispatchStateType = Dispatcher.Bookmark

    let bookmarks: Constant<[GitHub.Repository]>
    private let _bookmarks = Variable<[GitHub.Repository]>(
        [], persistedAs: "bookmarks")

    required init() {
        bookmarks = Constant(_bookmarks)
    }

    func reduce(with state: Dispatcher.Bookmark) {
        switch state {
        case .add(let repository): _bookmarks.value.append(repository)
        }
    }
}

func installTerminationFlush() {
    let storage = FileStorage.applicationSupport(named: "my-tool")
    storage.flushOnTermination()
}

final class HistoryStore: Storable {
    typealias DispatchStateType = Dispatcher.History

    let queries: Constant<[String]>
    private let _queries = Variable<[String]>([], persistedAs: "history")

    required init() {
        queries = Constant(_queries)
    }

    func reduce(with state: Dispatcher.History) {
        switch state {
        case .searched(let query): _queries.value.append(query)
        }
    }
}

@Test(.isolatedDispatcher) func aSearchIsKeptInTheHistory() {
    let storage = InMemoryStorage()
    Persistence.withDefaultStorage(storage) {
        let store = HistoryStore.instantiate()
        HistoryAction().invoke(.searched("flux"))
        storage.flush()
        #expect(store.queries.value == ["flux"])
        #expect(storage.writeCount(of: "history") == 1)
    }
}

// What the samples call, from observers on any thread: `nonisolated`, also where code is
// on the main actor by default (an Xcode 26 app target).

/// What a screen draws: here, a line.
nonisolated func render(_ repositories: [GitHub.Repository]) {
    print("\(repositories.count) repositories")
}

/// What a screen shows for a moment: here, a line.
nonisolated func showToast(_ message: String) {
    print(message)
}
