import FluxCapacitor

/// A book, with a nested struct and a list, to show diffs of nested values.
struct Book: Equatable, Sendable {
    struct Author: Equatable, Sendable {
        var name: String
        var born: Int
    }

    var title: String
    var author: Author
    var tags: [String]
}

extension Dispatcher {
    /// States with associated values: one unlabeled, several labeled, none.
    enum Shelf: DispatchState, Equatable {
        typealias RelatedStoreType = ShelfStore
        typealias RelatedActionType = ShelfAction

        case add(Book)
        case move(Book, toShelf: Int)
        case clear
    }
}

/// The books on the shelf.
final class ShelfStore: Storable {
    typealias DispatchStateType = Dispatcher.Shelf

    let books: Constant<[Book]>
    private let _books = Variable<[Book]>([])

    required init() {
        books = Constant(_books)
    }

    func reduce(with state: Dispatcher.Shelf) {
        switch state {
        case .add(let book): _books.value.append(book)
        case .move(let book, _): _books.value.removeAll { $0 == book }
        case .clear: _books.value.removeAll()
        }
    }
}

struct ShelfAction: Actionable {
    typealias DispatchStateType = Dispatcher.Shelf
}

enum Books {
    static let dune = Book(
        title: "Dune", author: Book.Author(name: "Frank Herbert", born: 1920), tags: ["desert", "spice"])
    static let emma = Book(
        title: "Emma", author: Book.Author(name: "Jane Austen", born: 1775), tags: ["matchmaking"])
}
