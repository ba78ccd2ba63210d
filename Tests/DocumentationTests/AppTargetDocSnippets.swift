// The samples of the article "Xcode 26 App Targets" (FluxCapacitorPersistence.docc), verbatim. They
// compile here, in a module whose code is nonisolated by default, and, copied by
// Scripts/check-consumer, in a package set up as a new Xcode 26 app target (code on the
// main actor by default), in the Swift 5 and 6 language modes.

import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Testing

enum SearchID: Hashable {
    case search
    case page(Int)
}

struct LibraryAction: Actionable {
    typealias DispatchStateType = Dispatcher.Library

    let searches = InFlightTasks<SearchID>(policy: .cancelRunning)

    func search(_ query: String, in catalog: [Book]) {
        searches.start(.search) { task in
            let found = catalog.filter { $0.title.contains(query) }
            invoke(.found(found), unlessCancelled: task)
        }
    }
}

nonisolated struct Book: Codable, Equatable {
    var id: Int
    var title: String
}

extension Dispatcher {
    enum Library: DispatchState, Equatable, nonisolated Codable {
        typealias RelatedStoreType = LibraryStore
        typealias RelatedActionType = LibraryAction

        case add(Book)
        case found([Book])
    }
}

final class LibraryStore: Storable {
    typealias DispatchStateType = Dispatcher.Library

    let books: Constant<[Book]>
    private let _books = Variable<[Book]>([], persistedAs: "books")

    required init() {
        books = Constant(_books)
    }

    func reduce(with state: Dispatcher.Library) {
        switch state {
        case .add(let book): _books.value.append(book)
        case .found: break
        }
    }
}

nonisolated let libraryStorage = FileStorage.applicationSupport(
    named: "Library")

/// The article's inline example: a store's value persisted in the `nonisolated` storage.
final class NamedStorageLibraryStore: Storable {
    typealias DispatchStateType = Dispatcher.NamedStorageLibrary

    private let _books = Variable<[Book]>([], persistedAs: "books", in: libraryStorage)

    required init() {}

    func reduce(with state: Dispatcher.NamedStorageLibrary) {}
}

extension Dispatcher {
    /// What `NamedStorageLibraryStore` reduces (nothing: it is never made).
    enum NamedStorageLibrary: DispatchState {
        typealias RelatedStoreType = NamedStorageLibraryStore
        typealias RelatedActionType = NamedStorageLibraryAction
    }
}

struct NamedStorageLibraryAction: Actionable {
    typealias DispatchStateType = Dispatcher.NamedStorageLibrary
}

@MainActor
final class LibraryViewModel {
    private(set) var titles: [String] = []

    init(store: LibraryStore = .instantiate()) {
        store.books.observe(duringScopeOf: self) { model, books in
            model.titles = books.map(\.title)
        }
    }
}

@Suite(.isolatedDispatcher)
@MainActor
struct LibraryTests {
    @Test func anAddedBookIsKept() async {
        await Persistence.withDefaultStorage(InMemoryStorage()) {
            let store = LibraryStore.instantiate()
            let tester = DispatchTester(of: Dispatcher.Library.self)
            let book = Book(id: 1, title: "Dune")
            LibraryAction().invoke(.add(book))
            await tester.receive(.add(book))
            #expect(store.books.value == [book])
        }
    }
}
