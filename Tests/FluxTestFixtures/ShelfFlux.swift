package import FluxCapacitor

/// A book, with a nested struct and a list, to show diffs of nested values.
package struct Book: Equatable, Sendable {
    package struct Author: Equatable, Sendable {
        package var name: String
        package var born: Int
    }

    package var title: String
    package var author: Author
    package var tags: [String]
}

extension Dispatcher {
    /// States with associated values: one unlabeled, several labeled, none.
    package enum Shelf: DispatchState, Equatable {
        package typealias RelatedStoreType = ShelfStore
        package typealias RelatedActionType = ShelfAction

        case add(Book)
        case move(Book, toShelf: Int)
        case clear
    }
}

/// The books on the shelf.
package final class ShelfStore: Storable {
    package typealias DispatchStateType = Dispatcher.Shelf

    package let books: Constant<[Book]>
    private let _books = Variable<[Book]>([])

    package required init() {
        books = Constant(_books)
    }

    package func reduce(with state: Dispatcher.Shelf) {
        switch state {
        case .add(let book): _books.value.append(book)
        case .move(let book, _): _books.value.removeAll { $0 == book }
        case .clear: _books.value.removeAll()
        }
    }
}

package struct ShelfAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Shelf
}

package enum Books {
    package static let dune = Book(
        title: "Dune", author: Book.Author(name: "Frank Herbert", born: 1920), tags: ["desert", "spice"])
    package static let emma = Book(
        title: "Emma", author: Book.Author(name: "Jane Austen", born: 1775), tags: ["matchmaking"])
}
