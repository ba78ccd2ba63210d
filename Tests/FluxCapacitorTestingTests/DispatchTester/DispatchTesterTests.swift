import Dispatch
import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
import Testing

@Suite("DispatchTester: exhaustive tests of actions", .isolatedDispatcher)
struct DispatchTesterTests {
    @Test func aTestThatAssertsEveryDispatchInOrderPasses() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            await tester.receive(.increment)
            await tester.receive(.add(2))
        }
        #expect(reports.failures.isEmpty)
    }

    @Test func anUnassertedDispatchFailsTheTestNamingIt() async {
        await withKnownIssue {
            let tester = DispatchTester(of: Dispatcher.Counter.self)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            CounterAction().invoke(.set(7))
            await tester.receive(.increment)
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                """
                2 dispatches were not asserted:
                  Dispatcher.Counter.add(2)
                  Dispatcher.Counter.set(7)
                Assert each one with receive(_:), or skip them with exhaustivity: .off.
                """
            ]
        }
    }

    @Test func forgettingTheLastDispatchOfAnAsyncActionFailsNamingIt() async {
        let reports = Reports()
        let line = #line + 1
        let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
        await countToTwoLater()
        await tester.receive(.increment)
        tester.assertAllReceived()

        #expect(
            reports.failures == [
                """
                1 dispatch was not asserted:
                  Dispatcher.Counter.add(1)
                Assert it with receive(_:), or skip it with exhaustivity: .off.
                """
            ])
        #expect(reports.lines == [line + 3], "reported where assertAllReceived() was called")
    }

    @Test func aWrongAssociatedValueFailsWithADiffPointingAtTheField() async {
        let reports = Reports()
        let tester = DispatchTester(of: Dispatcher.Shelf.self, reportingTo: reports.reporter)
        var older = Books.dune
        older.author.born = 1919
        ShelfAction().invoke(.add(older))

        await tester.receive(.add(Books.dune))
        // The last dispatch so far: decided (a mismatch, not a swap) once nothing can follow it.
        tester.assertAllReceived()

        #expect(
            reports.failures == [
                """
                Received a dispatch other than the one expected (− expected, + actual):
                  Dispatcher.Shelf.add(
                    Book(
                      title: "Dune",
                      author: Book.Author(
                        name: "Frank Herbert",
                −       born: 1920
                +       born: 1919
                      ),
                      tags: […]
                    )
                  )
                """
            ])
    }

    @Test func aWrongStateIsRecordedAsAnIssueAtTheLineOfReceive() async {
        await withKnownIssue {
            let tester = DispatchTester(of: Dispatcher.Shelf.self)
            ShelfAction().invoke(.move(Books.emma, toShelf: 3))
            await tester.receive(.move(Books.emma, toShelf: 2))
        } matching: { issue in
            issue.sourceLocation?.fileID == #fileID
                && issue.comments.map(\.rawValue) == [
                    """
                    Received a dispatch other than the one expected (− expected, + actual):
                      Dispatcher.Shelf.move(
                        Book(…),
                    −   toShelf: 2
                    +   toShelf: 3
                      )
                    """
                ]
        }
    }

    @Test func aDispatchOfAnotherCaseShowsBothWhole() async {
        let reports = Reports()
        let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
        CounterAction().invoke(.set(3))
        await tester.receive(.add(3))
        tester.assertAllReceived()
        #expect(
            reports.failures == [
                """
                Received a dispatch other than the one expected (− expected, + actual):
                − Dispatcher.Counter.add(3)
                + Dispatcher.Counter.set(3)
                """
            ])
    }

    @Test func dispatchesOfOtherStateTypesCountAndAreAssertedByFullName() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            ShelfAction().invoke(.clear)
            await tester.receive(.increment)
            await tester.receive(Dispatcher.Shelf.clear)
        }
        #expect(reports.failures.isEmpty)

        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            ShelfAction().invoke(.clear)
            _ = tester
        }
        #expect(reports.failures.last?.contains("Dispatcher.Shelf.clear") == true)
    }

    @Test func dispatchesFromAnotherThreadAreAwaited() async {
        let reports = Reports()
        // A timeout that only bounds a failing run: a loaded machine must not fail it.
        let tester = DispatchTester(of: Dispatcher.Counter.self, timeout: .seconds(600), reportingTo: reports.reporter)
        let dispatcher = Dispatcher.current
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) {
            Dispatcher.withCurrent(dispatcher) {
                CounterAction().invoke(.add(1))
                CounterAction().invoke(.add(2))
            }
        }
        await tester.receive(.add(1))
        await tester.receive(.add(2))
        tester.assertAllReceived()
        #expect(reports.failures.isEmpty)
    }

    @Test func waitingForADispatchThatNeverComesTimesOutNamingIt() async {
        let reports = Reports()
        let tester = DispatchTester(
            of: Dispatcher.Counter.self, timeout: .milliseconds(20), reportingTo: reports.reporter)
        CounterAction().invoke(.increment)
        await tester.receive(.increment)
        await tester.receive(.add(3))
        #expect(
            reports.failures == [
                """
                Timed out after 0.02 seconds waiting for the dispatch:
                  Dispatcher.Counter.add(3)
                Nothing was dispatched after the last one asserted.
                """
            ])
    }

    @Test func aNonExhaustiveTestPassesAndReportsWhatItSkipped() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(
                of: Dispatcher.Counter.self, exhaustivity: .off(showSkipped: true), reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            CounterAction().invoke(.set(7))
            CounterAction().invoke(.add(1))
            await tester.receive(.set(7))
            #expect(tester.skippedDispatches.map { "\($0)" } == ["increment", "add(2)"])
        }
        #expect(reports.failures.isEmpty)
        #expect(
            reports.notes == [
                """
                Skipped 2 dispatches:
                  Dispatcher.Counter.increment
                  Dispatcher.Counter.add(2)
                """,
                """
                Skipped 1 dispatch:
                  Dispatcher.Counter.add(1)
                """,
            ])
    }

    @Test func whatANonExhaustiveTestSkippedIsAWarningInSwiftTestingNotAFailure() async {
        // The skipped dispatches show in the test's output as a warning; the test passes.
        let tester = DispatchTester(of: Dispatcher.Counter.self, exhaustivity: .off(showSkipped: true))
        CounterAction().invoke(.increment)
        CounterAction().invoke(.add(2))
        await tester.receive(.add(2))
        #expect(tester.skippedDispatches.map { "\($0)" } == ["increment"])
    }

    @Test func aNonExhaustiveTestListsNothingWhenAskedNotTo() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, exhaustivity: .off, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            await tester.receive(.add(2))
            #expect(tester.skippedDispatches.count == 1)
        }
        #expect(reports.failures.isEmpty)
        #expect(reports.notes.isEmpty)
    }

    @Test func aNonExhaustiveTestSkipsTrackedChangesToo() async {
        let reports = Reports()
        let store = ShelfStore.instantiate()
        do {
            let tester = DispatchTester(of: Dispatcher.Shelf.self, exhaustivity: .off, reportingTo: reports.reporter)
            let books = tester.track(store.books, named: "books")
            ShelfAction().invoke(.add(Books.dune))
            ShelfAction().invoke(.add(Books.emma))
            ShelfAction().invoke(.clear)
            await books.receive([Books.dune, Books.emma])
            #expect(books.skippedValues == [[Books.dune]])
        }
        #expect(reports.failures.isEmpty)
    }

    @Test func aTesterHearsItsOwnDispatcherOnly() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            Dispatcher.withCurrent(Dispatcher()) {
                CounterAction().invoke(.increment)
            }
            CounterAction().invoke(.add(1))
            await tester.receive(.add(1))
        }
        #expect(reports.failures.isEmpty)
    }

    @Test func aNonExhaustiveTimeoutListsWhatCameInstead() async {
        let reports = Reports()
        let tester = DispatchTester(
            of: Dispatcher.Counter.self, exhaustivity: .off, timeout: .milliseconds(20), reportingTo: reports.reporter)
        CounterAction().invoke(.add(1))
        await tester.receive(.add(2))
        #expect(
            reports.failures == [
                """
                Timed out after 0.02 seconds waiting for the dispatch:
                  Dispatcher.Counter.add(2)
                Recorded meanwhile, none of them the one awaited:
                  Dispatcher.Counter.add(1)
                """
            ])
    }

    @Test func skippingReceivedDispatchesLetsATestAssertWhatComesAfter() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.set(5))
            tester.skipReceivedDispatches()
            CounterAction().invoke(.increment)
            await tester.receive(.increment)
        }
        #expect(reports.failures.isEmpty)
    }

    @Test func trackedValueChangesMustBeAssertedInOrderToo() async {
        let reports = Reports()
        let store = ShelfStore.instantiate()
        do {
            let tester = DispatchTester(of: Dispatcher.Shelf.self, reportingTo: reports.reporter)
            let books = tester.track(store.books, named: "books")
            ShelfAction().invoke(.add(Books.dune))
            ShelfAction().invoke(.add(Books.emma))
            await tester.receive(.add(Books.dune))
            await tester.receive(.add(Books.emma))
            await books.receive([Books.dune])
        }
        #expect(reports.failures.count == 1)
        #expect(reports.failures.first?.hasPrefix("1 change of books was not asserted:\n  [\n    [0]: Book(") == true)
    }

    @Test func aTrackedValueThatChangedOtherwiseFailsWithADiff() async {
        let reports = Reports()
        let store = ShelfStore.instantiate()
        let tester = DispatchTester(of: Dispatcher.Shelf.self, reportingTo: reports.reporter)
        let books = tester.track(store.books, named: "books")
        ShelfAction().invoke(.add(Books.dune))
        ShelfAction().invoke(.add(Books.emma))
        await tester.receive(.add(Books.dune))
        await tester.receive(.add(Books.emma))
        await books.receive([Books.dune])
        await books.receive([Books.dune, Books.dune])
        tester.assertAllReceived()
        #expect(
            reports.failures == [
                """
                books changed to a value other than the one expected (− expected, + actual):
                  [
                    … (1 unchanged),
                    [1]: Book(
                −     title: "Dune",
                +     title: "Emma",
                      author: Book.Author(
                −       name: "Frank Herbert",
                +       name: "Jane Austen",
                −       born: 1920
                +       born: 1775
                      ),
                      tags: [
                −       [0]: "desert",
                +       [0]: "matchmaking"
                −       [1]: "spice"
                      ]
                    )
                  ]
                """
            ])
    }

    @Test func anOptionalValueIsTrackedThroughNilAndBack() async {
        let reports = Reports()
        let selected = Variable<Int?>(1)
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            let selection = tester.track(selected, named: "selection")
            selected.value = nil
            selected.value = 2
            await selection.receive(nil)
            await selection.receive(2)
        }
        #expect(reports.failures.isEmpty)
    }

    @Test func aTrackedValueTimeoutNamesTheValue() async {
        let reports = Reports()
        let store = ShelfStore.instantiate()
        let tester = DispatchTester(
            of: Dispatcher.Shelf.self, timeout: .milliseconds(20), reportingTo: reports.reporter)
        let books = tester.track(store.books, named: "books")
        await books.receive([])
        #expect(
            reports.failures == [
                """
                Timed out after 0.02 seconds waiting for books to change to:
                  []
                books did not change after the last change asserted.
                """
            ])
    }

    @Test func failuresAreReportedAtTheLineOfTheCall() async {
        let reports = Reports()
        let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
        CounterAction().invoke(.increment)
        await tester.receive(.add(1)); let line = #line
        tester.assertAllReceived()
        #expect(reports.lines == [line])
        #expect(reports.fileIDs == [#fileID])
    }

    /// Counts to two from another task: `increment`, then `add(1)`.
    private func countToTwoLater() async {
        await Task {
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(1))
        }.value
    }
}

/// A reporter that keeps what it is told, for tests that check the words of a failure.
final class Reports: Sendable {
    private let failed = Locked<[(message: String, location: SourceLocation)]>([])
    private let noted = Locked<[String]>([])

    var reporter: IssueReporter {
        IssueReporter(
            failure: { [failed] message, location in failed.withLock { $0.append((message, location)) } },
            note: { [noted] message, _ in noted.withLock { $0.append(message) } })
    }

    var failures: [String] { failed.value.map(\.message) }
    var lines: [Int] { failed.value.map(\.location.line) }
    var fileIDs: [String] { failed.value.map(\.location.fileID) }
    var notes: [String] { noted.value }
}
