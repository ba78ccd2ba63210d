import FluxCapacitor
import FluxTestFixtures
import Foundation
import Testing

@testable import FluxCapacitorTesting

/// Holds a tester so that a test can let go of it on another task.
private final class TesterHolder: @unchecked Sendable {
    // Sendable: one task at a time uses it, each handing it over by awaiting the next.
    var tester: DispatchTester<Dispatcher.Counter>?
}

/// The current test as a tester records it, to pass to an exit test's child, where no test
/// is current.
private struct MakingTest: Codable, Sendable {
    let id: String
    let name: String

    static var current: MakingTest? {
        guard case .swiftTesting(let id, let name)? = TestIdentity.current else {
            return nil
        }
        return MakingTest(id: id, name: name)
    }

    var identity: TestIdentity {
        .swiftTesting(id: id, name: name)
    }
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

    @Test func aTesterKnowsTheTestThatMadeItBySuiteAndName() throws {
        let test = try #require(MakingTest.current)
        #expect(test.name == "DispatchTesterEscapeTests/aTesterKnowsTheTestThatMadeItBySuiteAndName()")
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func aTesterLetGoOfOutsideItsTestFailsTheRunNamingTheTest() async throws {
        let maker = try #require(MakingTest.current)
        var standardError = ""
        // Where the child's tester is said to be made: a line of this file, this one, as a
        // failure's location must be.
        let line = UInt(#line)
        // The child records the failure for its run, which Swift Testing forwards to this
        // test: expected here. What must hold is the child's exit and what it says.
        await withKnownIssue {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [maker = maker as MakingTest, line = line as UInt] in
                // No test is current in the child: made as in this test.
                let holder = TesterHolder()
                holder.tester = DispatchTester(madeIn: maker.identity, at: CallLocation(line: line))
                CounterAction().invoke(.increment)
                // A detached task has no test: the tester finishes outside the one that made it.
                await Task.detached { holder.tester = nil }.value
                // The end of a run: the test runner calls `exit` (an exit test's child would
                // leave with `_Exit`, skipping what `exit` runs).
                exit(EXIT_SUCCESS)
            }
            standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("“\(maker.name)” at")
                && issue.sourceLocation?.line == Int(line)
        }
        #expect(
            standardError.contains(
                "A DispatchTester<Dispatcher.Counter> made in the test “\(maker.name)” at "
                    + "\(#fileID):\(line) finished outside it"))
        #expect(standardError.contains("1 dispatch was not asserted"))
        #expect(
            standardError.contains(
                "error: 1 failure was reported outside the test that made the DispatchTester or DispatchReplay"))
    }

    @Test func aTesterKeptPastTheEndOfTheRunFailsTheRunNamingItsTest() async throws {
        let maker = try #require(MakingTest.current)
        let line = UInt(#line)
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [maker = maker as MakingTest, line = line as UInt] in
            let holder = TesterHolder()
            holder.tester = DispatchTester(madeIn: maker.identity, at: CallLocation(line: line))
            CounterAction().invoke(.increment)
            // A detached task keeps the tester past the end of the run, unasserted.
            Task.detached {
                try? await Task.sleep(for: .seconds(3600))
                holder.tester = nil
            }
            exit(EXIT_SUCCESS)  // the end of the run, as the test runner ends it
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            standardError.contains(
                "error: A DispatchTester<Dispatcher.Counter> made in the test “\(maker.name)” at "
                    + "\(#fileID):\(line) was still alive when the test run ended, so what it recorded was never checked"
            ))
        #expect(
            standardError.contains(
                "error: 1 failure was reported outside the test that made the DispatchTester or DispatchReplay"))
    }

    @Test func testersFinishedBeforeTheEndOfTheRunAddNoExitFailure() async throws {
        let maker = try #require(MakingTest.current)
        await #expect(processExitsWith: .success) { [maker = maker as MakingTest] in
            // One let go of after its dispatch was asserted, one finished and still held.
            do {
                let tester = DispatchTester<Dispatcher.Counter>(madeIn: maker.identity, at: CallLocation(line: 1))
                CounterAction().invoke(.increment)
                await tester.receive(.increment)
            }
            let kept = DispatchTester<Dispatcher.Counter>(madeIn: maker.identity, at: CallLocation(line: 2))
            kept.assertAllReceived()
            withExtendedLifetime(kept) { exit(EXIT_SUCCESS) }
        }
    }

    @Test func theExitHookFailsTheRunRatherThanWaitForALockHeldForever() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // A tester installs the exit hook; a thread then holds the registry's lock forever.
            DispatchTester<Dispatcher.Counter>(madeIn: nil, at: CallLocation(line: 1)).assertAllReceived()
            let held = DispatchSemaphore(value: 0)
            Thread.detachNewThread { LiveTesters.holdLockForTesting(until: DispatchSemaphore(value: 0)) }
            Thread.detachNewThread {
                // Signalled once the holder has the lock: then the registry cannot be read.
                while LiveTesters.unfinished(before: Date()) != nil {
                    usleep(1000)
                }
                held.signal()
            }
            held.wait()
            exit(EXIT_SUCCESS)
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("error: DispatchTester could not read the testers not finished at the end"))
    }
    #endif
}

/// Where an automatic reporter sends a failure, by the test that made the tester and the
/// test running.
@Suite struct FailureRouteTests {
    private let origin = { (test: TestIdentity?) in
        TesterOrigin(test: test, location: CallLocation(line: 7), testerName: "DispatchTester<Dispatcher.Counter>")
    }
    private let a = TestIdentity.swiftTesting(id: "M.S/a()", name: "S/a()")
    private let b = TestIdentity.swiftTesting(id: "M.S/b()", name: "S/b()")
    private let place = "\(#fileID):7"

    @Test func aFailureInTheTestThatMadeTheTesterIsThatTestsInItsOwnWords() {
        #expect(FailureRoute("m", origin: origin(a), now: a, timeline: XCTestTimeline()) == .swiftTesting("m"))
    }

    @Test func aFailureWhileAnotherSwiftTestingTestRunsNamesTheTestThatMadeTheTester() {
        #expect(
            FailureRoute("m", origin: origin(a), now: b, timeline: XCTestTimeline())
                == .swiftTesting(
                    "A DispatchTester<Dispatcher.Counter> made in the test “S/a()” at \(place) finished during the "
                        + "test “S/b()”, which did not make it (a task or a global kept it past its own test); the "
                        + "failure is reported in “S/b()”, the test running: m"))
    }

    @Test func aFailureWhileNoTestRunsEscapesNamingTheTestThatMadeTheTester() {
        #expect(
            FailureRoute("m", origin: origin(a), now: nil, timeline: XCTestTimeline())
                == .escaped(
                    "A DispatchTester<Dispatcher.Counter> made in the test “S/a()” at \(place) finished outside it "
                        + "(let go of in a detached task, or after the test ended): m",
                    alsoInSwiftTestingRun: true))
    }

    @Test func anXCTestFailureWhileAnotherXCTestRunsNamesBothTests() {
        var timeline = XCTestTimeline()
        _ = timeline.testWillStart(named: "T.testA")
        let testA = TestIdentity.xcTest(timeline.current!)
        timeline.testDidFinish(named: "T.testA")
        _ = timeline.testWillStart(named: "T.testB")
        let testB = TestIdentity.xcTest(timeline.current!)

        #expect(FailureRoute("m", origin: origin(testB), now: testB, timeline: timeline) == .xcTest("m"))
        #expect(
            FailureRoute("m", origin: origin(testA), now: testB, timeline: timeline)
                == .xcTest(
                    "A DispatchTester<Dispatcher.Counter> made in the test “T.testA” at \(place) finished during the "
                        + "test “T.testB”, which did not make it (a task or a global kept it past its own test); the "
                        + "failure is reported in “T.testB”, the test running: m"))
        timeline.testDidFinish(named: "T.testB")
        #expect(
            FailureRoute("m", origin: origin(testA), now: nil, timeline: timeline)
                == .escaped(
                    "A DispatchTester<Dispatcher.Counter> made in the test “T.testA” at \(place) finished outside it "
                        + "(let go of in a detached task, or after the test ended): m",
                    alsoInSwiftTestingRun: false))
    }

    @Test func beforeXCTestSaysWhetherATestRunsAFailureGoesToXCTestAndIsKeptInCaseNoneDid() {
        var timeline = XCTestTimeline()
        let beginning = TestIdentity.xcTest(timeline.current!)
        let route = FailureRoute("m", origin: origin(beginning), now: beginning, timeline: timeline)
        let ifNoTest =
            "A DispatchTester<Dispatcher.Counter> made outside any test at \(place) failed outside any test: m"
        #expect(route == .xcTestUnconfirmed("m", ifNoTest: ifNoTest))

        // A test finishing first ran since the beginning: it took the failure, and is named.
        var tookIt = timeline
        tookIt.keepUnconfirmed(ifNoTest)
        tookIt.testDidFinish(named: "T.testFirst")
        #expect(tookIt.takeUnconfirmed().isEmpty)
        #expect(beginning.name(in: tookIt) == "T.testFirst")

        // A test starting first means none ran: XCTest dropped the failure, said instead.
        var noneRan = timeline
        noneRan.keepUnconfirmed(ifNoTest)
        #expect(noneRan.testWillStart(named: "T.testFirst") == [ifNoTest])
        #expect(beginning.name(in: noneRan) == nil)

        // No event at all (no XCTest test in the process): said at the end of the run.
        timeline.keepUnconfirmed(ifNoTest)
        #expect(timeline.takeUnconfirmed() == [ifNoTest])
    }

    @Test func aTesterMadeOutsideAnyTestSaysSo() {
        #expect(
            FailureRoute("m", origin: origin(nil), now: b, timeline: XCTestTimeline())
                == .swiftTesting(
                    "A DispatchTester<Dispatcher.Counter> made outside any test at \(place) finished during the "
                        + "test “S/b()”, which did not make it (a task or a global kept it past its own test); the "
                        + "failure is reported in “S/b()”, the test running: m"))
        #expect(
            FailureRoute("m", origin: origin(nil), now: nil, timeline: XCTestTimeline())
                == .escaped(
                    "A DispatchTester<Dispatcher.Counter> made outside any test at \(place) failed outside any test: m",
                    alsoInSwiftTestingRun: false))
    }
}

extension CallLocation {
    /// A line of this file.
    init(line: UInt, fileID: StaticString = #fileID, filePath: StaticString = #filePath) {
        self.init(fileID: fileID, filePath: filePath, line: line, column: 1)
    }
}
