#if os(Linux)  // exit tests that run XCTest in the child with XCTMain, which only swift-corelibs-xctest has
import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Testing
import XCTest

/// XCTest tests that keep a tester past their end, run by `XCTMain` in an exit test's child:
/// their methods are not named `test…`, so that the test run of this package does not run them.
private final class KeepsATester: XCTestCase {
    nonisolated(unsafe) static var kept: DispatchTester<Dispatcher.Counter>?
    /// The line where the tester is made, two lines below.
    static let madeAt = #line + 2
    func makesAndKeepsATester() {
        Self.kept = DispatchTester(of: Dispatcher.Counter.self)
        CounterAction().invoke(.increment)
    }

    func letsGoOfTheKeptTester() {
        Self.kept = nil
    }

    func passes() {}
}

/// Runs the tests of `KeepsATester` named `names` with XCTest, on the main thread as XCTest's own runner
/// does, then ends the process with `exit` as it does (so that exit hooks run).
private func runInXCTest(_ names: [String]) -> Never {
    DispatchQueue.main.async {
        let methods: [String: (KeepsATester) -> () -> Void] = [
            "makesAndKeepsATester": KeepsATester.makesAndKeepsATester,
            "letsGoOfTheKeptTester": KeepsATester.letsGoOfTheKeptTester,
            "passes": KeepsATester.passes,
        ]
        let tests = names.map { ($0, methods[$0]!) }
        exit(XCTMain([testCase(tests)], arguments: [CommandLine.arguments[0]], observers: nil))
    }
    while true {
        sleep(1)
    }
}

/// A DispatchTester kept past its XCTest test: the failure names that test, whether another
/// test lets go of the tester or the run ends with it alive.
@Suite struct DispatchTesterXCTestRunTests {
    @Test func anXCTestTesterAliveWhenTheRunEndsFailsTheRunNamingItsTest() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            runInXCTest(["makesAndKeepsATester", "passes"])
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            standardError.contains(
                "error: A DispatchTester<Dispatcher.Counter> made in the test “KeepsATester.makesAndKeepsATester” at "
                    + "\(#fileID):\(KeepsATester.madeAt) was still alive when the test run ended, so what it recorded was never checked"
            ),
            "\(standardError)")
        #expect(
            standardError.contains(
                "error: 1 failure was reported outside the test that made the DispatchTester or DispatchReplay"))
    }

    @Test func anXCTestTesterLetGoOfInAnotherTestFailsThatTestNamingBoth() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent]) {
            runInXCTest(["makesAndKeepsATester", "letsGoOfTheKeptTester"])
        }
        let standardOutput = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        // XCTest's line for the failure: `FILE:LINE: error: TEST : failed - MESSAGE`.
        #expect(
            standardOutput.contains(
                "error: KeepsATester.letsGoOfTheKeptTester : failed - A DispatchTester<Dispatcher.Counter> made in "
                    + "the test “KeepsATester.makesAndKeepsATester” at \(#fileID):\(KeepsATester.madeAt) finished during "
                    + "the test “KeepsATester.letsGoOfTheKeptTester”, which did not make it"),
            "\(standardOutput)")
        #expect(standardOutput.contains("Executed 2 tests, with 1 failure"))
    }
}
#endif
