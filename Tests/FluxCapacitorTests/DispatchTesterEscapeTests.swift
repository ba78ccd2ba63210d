import FluxCapacitor
import Foundation
import Testing

@testable import FluxCapacitorTesting

/// Holds a tester so that a test can let go of it on another task.
private final class TesterHolder: @unchecked Sendable {
    // Sendable: one task at a time uses it, each handing it over by awaiting the next.
    var tester: DispatchTester<Dispatcher.Counter>?
}

@Suite("DispatchTester: a failure is never lost", .isolatedDispatcher)
struct DispatchTesterEscapeTests {
    @Test func aTesterLetGoOfInAnUnstructuredTaskOfItsTestFailsThatTest() async {
        await withKnownIssue {
            let holder = TesterHolder()
            holder.tester = DispatchTester(of: Dispatcher.Counter.self)
            CounterAction().invoke(.increment)
            // `Task {}` inherits the test: the failure is the test's own.
            await Task { holder.tester = nil }.value
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix("1 dispatch was not asserted")
        }
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func aTesterLetGoOfOutsideItsTestFailsTheRunNamingTheTest() async {
        var standardError = ""
        // The child records the failure for its run, which Swift Testing forwards to this
        // test: expected here. What must hold is the child's exit and what it says.
        await withKnownIssue {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                // No test is current in the child: made as in the test `theTestThatMadeIt()`.
                let holder = TesterHolder()
                holder.tester = DispatchTester(
                    of: Dispatcher.Counter.self, reportingTo: .automatic(madeIn: "theTestThatMadeIt()"))
                CounterAction().invoke(.increment)
                // A detached task has no test: the tester finishes outside the one that made it.
                await Task.detached { holder.tester = nil }.value
                // The end of a run: the test runner calls `exit` (an exit test's child would
                // leave with `_Exit`, skipping what `exit` runs).
                exit(EXIT_SUCCESS)
            }
            standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("“theTestThatMadeIt()” finished outside it")
        }
        #expect(standardError.contains("A DispatchTester made in the test “theTestThatMadeIt()” finished outside it"))
        #expect(standardError.contains("1 dispatch was not asserted"))
        #expect(standardError.contains("error: 1 DispatchTester failure was reported outside the test"))
    }
    #endif
}
