import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Two assertions of a `DispatchTester` that expect two dispatches the other way round from
/// how they came fail once, saying "out of order" and naming both (issue 42); a forgotten
/// `receive` fails at the last one the test made.
@Suite("DispatchTester: the order of dispatches", .isolatedDispatcher)
struct DispatchTesterOrderTests {
    static let outOfOrder = """
        Received dispatches out of order: the one expected here came second.
        Expected here:
          Dispatcher.Counter.add(2)
        Came first:
          Dispatcher.Counter.increment
        Assert them in the order they came, or change the order they come in.
        """

    @Test func twoSwappedReceivesFailOnceSayingOutOfOrder() async {
        let reports = Reports()
        let line: Int
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            CounterAction().invoke(.set(7))
            await tester.receive(.add(2)); line = #line
            await tester.receive(.increment)
            await tester.receive(.set(7))
        }
        #expect(reports.failures == [Self.outOfOrder])
        #expect(reports.lines == [line], "at the first of the two")
    }

    /// The dispatch the first `receive` expects has not come when it looks, only the one
    /// before it: the next `receive` sees that they were swapped.
    @Test func twoSwappedReceivesOfAnActionStillRunningFailOnceSayingOutOfOrder() async {
        let reports = Reports()
        let line: Int
        let secondMayCome = DispatchSemaphore(value: 0)
        let dispatcher = Dispatcher.current
        let action = Thread {
            Dispatcher.withCurrent(dispatcher) {
                CounterAction().invoke(.increment)
                secondMayCome.wait()
                CounterAction().invoke(.add(2))
            }
        }
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            action.start()
            await tester.receive(.add(2)); line = #line
            #expect(reports.failures.isEmpty, "undecided: the one expected may come next")
            secondMayCome.signal()
            await tester.receive(.increment)
        }
        #expect(reports.failures == [Self.outOfOrder])
        #expect(reports.lines == [line])
    }

    /// What the issue saw: an action's dispatches and a tracked value, two receives swapped.
    @Test func swappedReceivesBesideATrackedValueFailOnce() async {
        let reports = Reports()
        let store = ShelfStore.instantiate()
        do {
            let tester = DispatchTester(of: Dispatcher.Shelf.self, reportingTo: reports.reporter)
            let books = tester.track(store.books, named: "books")
            ShelfAction().invoke(.add(Books.dune))
            ShelfAction().invoke(.move(Books.dune, toShelf: 2))
            ShelfAction().invoke(.add(Books.emma))
            await tester.receive(.move(Books.dune, toShelf: 2))
            await tester.receive(.add(Books.dune))
            await tester.receive(.add(Books.emma))
            await books.receive([Books.dune])
            await books.receive([])
            await books.receive([Books.emma])
        }
        #expect(reports.failures.count == 1)
        #expect(reports.failures.first?.hasPrefix("Received dispatches out of order") == true)
        #expect(reports.failures.first?.contains("Dispatcher.Shelf.move(") == true)
        #expect(reports.failures.first?.contains("Dispatcher.Shelf.add(") == true)
    }

    @Test func swappedChangesOfATrackedValueFailOnceSayingOutOfOrder() async {
        let reports = Reports()
        let count = Variable(0)
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            let tracked = tester.track(count, named: "count")
            count.value = 1
            count.value = 2
            await tracked.receive(2)
            await tracked.receive(1)
        }
        #expect(
            reports.failures == [
                """
                Received changes of count out of order: the one expected here came second.
                Expected here:
                  2
                Came first:
                  1
                Assert them in the order they came, or change the order they come in.
                """
            ])
    }

    /// A dispatch other than the one expected, with none after it, is a mismatch: reported
    /// once, at the `receive` that found it, when the tester finishes.
    @Test func aWrongLastDispatchIsAMismatchReportedAtItsReceive() async {
        let reports = Reports()
        let line: Int
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            await tester.receive(.add(2)); line = #line
        }
        #expect(
            reports.failures == [
                """
                Received a dispatch other than the one expected (− expected, + actual):
                − Dispatcher.Counter.add(2)
                + Dispatcher.Counter.increment
                """
            ])
        #expect(reports.lines == [line])
    }

    /// Not swapped: the one expected did not come next, another did. Both mismatches, each
    /// at its `receive`.
    @Test func twoWrongDispatchesAreTwoMismatches() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.set(7))
            await tester.receive(.add(2))
            await tester.receive(.add(3))
        }
        #expect(reports.failures.count == 2)
        #expect(reports.failures.allSatisfy { $0.hasPrefix("Received a dispatch other than the one expected") })
    }

    /// The dispatch that came first is what the next `receive` must name: another one is a
    /// mismatch with it.
    @Test func afterASwapTheDispatchThatCameFirstIsAssertedNext() async {
        let reports = Reports()
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            await tester.receive(.add(2))
            await tester.receive(.set(7))
        }
        #expect(reports.failures.count == 2)
        #expect(reports.failures.first == Self.outOfOrder)
        #expect(reports.failures.last?.contains("− Dispatcher.Counter.set(7)\n+ Dispatcher.Counter.increment") == true)
    }

    /// A forgotten `receive` fails at the last `receive` the test made, naming what was left.
    @Test func aForgottenReceiveFailsAtTheLastReceive() async {
        let reports = Reports()
        let line: Int
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.add(2))
            await tester.receive(.increment); line = #line
        }
        #expect(reports.failures.first?.hasPrefix("1 dispatch was not asserted:\n  Dispatcher.Counter.add(2)") == true)
        #expect(reports.lines == [line])
    }

    /// With no `receive` at all, at the line that made the tester.
    @Test func aTesterThatAssertedNothingFailsWhereItWasMade() async {
        let reports = Reports()
        let line: Int
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self, reportingTo: reports.reporter); line = #line
            CounterAction().invoke(.increment)
            _ = tester
        }
        #expect(reports.lines == [line])
    }

    /// Not exhaustive, a `receive` skips what came before the one it names: one that names a
    /// skipped dispatch times out, and says it came earlier.
    @Test func aNonExhaustiveReceiveOfASkippedDispatchSaysItCameEarlier() async {
        let reports = Reports()
        let tester = DispatchTester(
            of: Dispatcher.Counter.self, exhaustivity: .off, timeout: .milliseconds(20), reportingTo: reports.reporter)
        CounterAction().invoke(.increment)
        CounterAction().invoke(.add(2))
        await tester.receive(.add(2))
        await tester.receive(.increment)
        #expect(
            reports.failures == [
                """
                Timed out after 0.02 seconds waiting for the dispatch:
                  Dispatcher.Counter.increment
                Nothing was dispatched after the last one asserted.
                It came earlier, out of order, and was skipped by a receive(_:) that expected one recorded after it.
                """
            ])
    }
}
