public import FluxCapacitor

/// A book, with a nested struct and a list, to show diffs of nested values.
public struct Book: Equatable, Sendable {
    public struct Author: Equatable, Sendable {
        public var name: String
        public var born: Int
    }

    public var title: String
    public var author: Author
    public var tags: [String]
}

extension Dispatcher {
    /// States with associated values: one unlabeled, several labeled, none.
    public enum Shelf: DispatchState, Equatable {
        public typealias RelatedStoreType = ShelfStore
        public typealias RelatedActionType = ShelfAction

        case add(Book)
        case move(Book, toShelf: Int)
        case clear
    }
}

/// The books on the shelf.
public final class ShelfStore: Storable {
    public typealias DispatchStateType = Dispatcher.Shelf

    public let books: Constant<[Book]>
    private let _books = Variable<[Book]>([])

    public required init() {
        books = Constant(_books)
    }

    public func reduce(with state: Dispatcher.Shelf) {
        switch state {
        case .add(let book): _books.value.append(book)
        case .move(let book, _): _books.value.removeAll { $0 == book }
        case .clear: _books.value.removeAll()
        }
    }
}

public struct ShelfAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Shelf
}

public enum Books {
    public static let dune = Book(
        title: "Dune", author: Book.Author(name: "Frank Herbert", born: 1920), tags: ["desert", "spice"])
    public static let emma = Book(
        title: "Emma", author: Book.Author(name: "Jane Austen", born: 1775), tags: ["matchmaking"])
}
