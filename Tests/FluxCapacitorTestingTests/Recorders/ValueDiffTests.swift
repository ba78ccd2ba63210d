import FluxCapacitor
import FluxTestFixtures
import Foundation
import Testing

@testable import FluxCapacitorTesting

@Suite("Dumps and diffs of values, for the messages of DispatchTester")
struct ValueDiffTests {
    @Test func aNestedStructDumpsOneFieldPerLineWithIndicesForElements() {
        #expect(
            ValueDump(of: Books.dune).text == """
                Book(
                  title: "Dune",
                  author: Book.Author(
                    name: "Frank Herbert",
                    born: 1920
                  ),
                  tags: [
                    [0]: "desert",
                    [1]: "spice"
                  ]
                )
                """)
    }

    @Test func enumCasesDumpWithTheirTypeAndLabels() {
        #expect(ValueDump(of: Dispatcher.Counter.add(2)).text == "Dispatcher.Counter.add(2)")
        #expect(ValueDump(of: Dispatcher.Shelf.clear).text == "Dispatcher.Shelf.clear")
        #expect(
            ValueDump(of: Dispatcher.Shelf.move(Books.emma, toShelf: 2)).lines.suffix(2) == [
                "  toShelf: 2",
                ")",
            ])
    }

    @Test func aCaseWithNoPayloadDumpsItsNameNotItsDescription() {
        #expect(ValueDump(of: Failure.cancelled).text == "Failure.cancelled")
        #expect(ValueDump(of: Failure.http(status: 500)).text == "Failure.http(\n  status: 500\n)")
    }

    @Test func optionalsDumpTheirValueOrNil() {
        #expect(ValueDump(of: Int?.none as Any).text == "nil")
        #expect(ValueDump(of: Int?.some(3) as Any).text == "3")
    }

    @Test func dictionariesDumpSortedByKey() {
        #expect(ValueDump(of: ["b": 2, "a": 1]).text == "[\n  \"a\": 1,\n  \"b\": 2\n]")
    }

    @Test func foundationValuesDumpWhatTheyMean() {
        #expect(ValueDump(of: URL(string: "https://github.com/marty")!).text == "URL(https://github.com/marty)")
        #expect(ValueDump(of: Date(timeIntervalSince1970: 0)).text == "Date(1970-01-01T00:00:00Z)")
    }

    @Test func valuesWithOnlyPrivateStorageDumpWhatTheySayOfThemselves() {
        #expect(ValueDump(of: Duration.seconds(2)).text == "2.0 seconds")
        #expect(ValueDump(of: Task<Void, Never> {}).text == "Task(…)")
    }

    @Test func aPropertyWrappersStorageStillDumpsAsFields() {
        #expect(ValueDump(of: Wrapped()).text == "Wrapped(\n  _count: Clamped(\n    value: 3\n  )\n)")
    }

    @Test func setsDumpSortedAndTuplesUnlabeled() {
        #expect(ValueDump(of: Set([3, 1])).text == "Set([\n  1,\n  3\n])")
        #expect(ValueDump(of: (1, label: "a")).text == "(\n  1,\n  label: \"a\"\n)")
    }

    @Test func aCycleOfObjectsDumpsOnce() {
        let node = Node()
        node.next = node
        #expect(ValueDump(of: node).text == "Node(\n  next: Node(↩︎)\n)")
    }

    @Test func typeNamesLoseTheirModulesAndGenericArguments() {
        struct Local {}
        #expect(typeName(Dispatcher.Counter.self) == "Dispatcher.Counter")
        #expect(typeName(Local.self) == "ValueDiffTests.Local")
        #expect(typeName(Result<Int, Failure>.self) == "Result")
        #expect(typeName([Book].self, keepingGenerics: true) == "Array<Book>")
    }

    @Test func equalValuesHaveNoDiff() {
        #expect(ValueDiff(expected: Books.dune, actual: Books.dune) == nil)
    }

    @Test func anAddedElementShowsAfterTheUnchangedOnesFolded() {
        let diff = ValueDiff(expected: [Books.dune, Books.dune], actual: [Books.dune, Books.dune, Books.emma])
        #expect(
            diff?.text == """
                  [
                    … (2 unchanged),
                +   [2]: Book(
                +     title: "Emma",
                +     author: Book.Author(
                +       name: "Jane Austen",
                +       born: 1775
                +     ),
                +     tags: [
                +       [0]: "matchmaking"
                +     ]
                +   )
                  ]
                """)
    }

    @Test func aRemovedElementInTheMiddleShowsAloneBetweenTheUnchangedOnes() {
        let diff = ValueDiff(expected: [1, 2, 3, 4], actual: [1, 2, 4])
        #expect(
            diff?.text == """
                  [
                    … (2 unchanged),
                −   [2]: 3,
                    … (1 unchanged)
                  ]
                """)
    }

    @Test func aChangedFieldShowsBetweenTheUnchangedOnes() {
        var renamed = Books.dune
        renamed.title = "Dune Messiah"
        #expect(
            ValueDiff(expected: Books.dune, actual: renamed)?.text == """
                  Book(
                −   title: "Dune",
                +   title: "Dune Messiah",
                    author: Book.Author(…),
                    tags: […]
                  )
                """)
    }
}

/// An error with a description that is not its case name.
private enum Failure: Error, CustomStringConvertible {
    case cancelled
    case http(status: Int)

    var description: String { "the request failed" }
}

private final class Node {
    var next: Node?
}

@propertyWrapper
private struct Clamped {
    var value: Int
    var wrappedValue: Int {
        get { value }
        set { value = min(newValue, 10) }
    }
    init(wrappedValue: Int) { value = min(wrappedValue, 10) }
}

private struct Wrapped {
    @Clamped var count = 3
}
