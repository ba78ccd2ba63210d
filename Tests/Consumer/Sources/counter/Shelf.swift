import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

// The app's own types, as a new user writes them in an Xcode 26 app target (whose code is
// on the main actor unless it says otherwise; Scripts/check-consumer builds this package so
// too): a Codable model kept in a persisted array, a state that is recorded and replayed,
// an enum of task ids, and a combined value. The article "Xcode 26 App Targets" says which
// of them need `nonisolated`, and why.

/// A book on the shelf: persisted, and compared by the tests, so its conformances work on
/// any thread (`nonisolated`).
nonisolated struct Book: Codable, Equatable {
    var id: Int
    var title: String
}

extension Dispatcher {
    /// What happens to the shelf. Recorded and replayed: a `nonisolated` `Codable`
    /// conformance; its `Equatable` stays the main actor's in an app target.
    enum Shelf: DispatchState, Equatable, nonisolated Codable {
        typealias RelatedStoreType = ShelfStore
        typealias RelatedActionType = ShelfAction

        case add(Book)
        case found([Book])
        case clear
    }
}

/// The shelf, saved in the default storage, and a line about it.
final class ShelfStore: Storable {
    typealias DispatchStateType = Dispatcher.Shelf

    let books: Constant<[Book]>
    let found: Constant<[Book]>
    let summary: Constant<String>
    private let _books = Variable<[Book]>([], persistedAs: "books")
    private let _found = Variable<[Book]>([])

    required init() {
        books = Constant(_books)
        found = Constant(_found)
        summary = Constant(combining: _books, _found) { books, found in
            "\(books.count) books, \(found.count) found"
        }
    }

    func reduce(with state: Dispatcher.Shelf) {
        switch state {
        case .add(let book): _books.value.append(book)
        case .found(let books): _found.value = books
        case .clear: _books.value.removeAll()
        }
    }
}

/// What a task of the shelf is for: an enum of the app's, not `Sendable` on purpose.
enum SearchID: Hashable {
    case search
    case page(Int)
}

/// Adds books and searches them, one search at a time.
struct ShelfAction: Actionable {
    typealias DispatchStateType = Dispatcher.Shelf

    let searches = InFlightTasks<SearchID>(policy: .cancelRunning)

    func add(_ book: Book) {
        invoke(.add(book))
    }

    /// Searches `catalog` for `query` after `delay`, replacing the search running.
    @discardableResult
    func search(_ query: String, in catalog: [Book], after delay: Duration = .zero) -> InFlightTask? {
        searches.start(.search) { task in
            try? await Task.sleep(for: delay)
            let found = catalog.filter { $0.title.contains(query) }
            invoke(.found(found), unlessCancelled: task)
        }
    }
}

/// Records the shelf's dispatches to `file`, as an app's "report a problem" switch does
/// (it throws when another recorder records to that file).
func recordShelf(to file: URL) throws -> DispatchFileRecorder {
    try DispatchFileRecorder(
        writingTo: file, recording: [.state(Dispatcher.Shelf.self, named: "Shelf")], keepingAtMost: 100)
}
