import FluxCapacitor
import FluxTestFixtures
import XCTest

@testable import FluxCapacitorTesting

/// A DispatchTester in XCTest: outside a Swift Testing test its failures go through
/// `XCTFail`, at the line of the failing call. (Swift Testing's `Issue.record` would not
/// reach XCTest at all.) The failures are caught here instead of failing the test, to
/// check them.
final class DispatchTesterXCTests: XCTestCase {
    private var failures: [(description: String, line: Int)] = []

    override class func setUp() {
        super.setUp()
        // Follow XCTest's tests from before the first of these starts (the first tester
        // would start it, inside its test; see XCTestTimeline).
        _ = XCTestTracking.current
    }

    override func invokeTest() {
        Dispatcher.withCurrent(Dispatcher()) { super.invokeTest() }
    }

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        failures.append((issue.compactDescription, issue.sourceCodeContext.location?.lineNumber ?? 0))
    }
    #else
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        failures.append((description, lineNumber))
    }
    #endif

    func testATestThatAssertsEveryDispatchPasses() async {
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self)
            CounterAction().invoke(.increment)
            await tester.receive(.increment)
        }
        XCTAssertTrue(failures.isEmpty)
    }

    func testAWrongStateFailsThroughXCTFailAtTheLineOfReceive() async {
        let tester = DispatchTester(of: Dispatcher.Counter.self)
        CounterAction().invoke(.add(2))
        await tester.receive(.add(3)); let line = #line

        let caught = failures
        failures = []
        XCTAssertEqual(caught.map(\.line), [line])
        XCTAssertEqual(
            caught.first?.description,
            """
            failed - Received a dispatch other than the one expected (− expected, + actual):
            − Dispatcher.Counter.add(3)
            + Dispatcher.Counter.add(2)
            """)
    }

    func testAnUnassertedDispatchFailsThroughXCTFailWhenTheTesterGoesAway() async {
        let line = #line + 2
        do {
            let tester = DispatchTester(of: Dispatcher.Counter.self)
            CounterAction().invoke(.increment)
            CounterAction().invoke(.set(4))
            await tester.receive(.increment)
        }

        let caught = failures
        failures = []
        XCTAssertEqual(caught.map(\.line), [line], "reported where the tester was made")
        XCTAssertEqual(caught.first?.description.contains("Dispatcher.Counter.set(4)"), true)
    }

    func testATesterKnowsTheXCTestThatMadeIt() {
        guard case .xcTest(let slot)? = TestIdentity.current else {
            return XCTFail("no XCTest test is known to run")
        }
        XCTAssertEqual(XCTestTracking.withTimeline { $0.name(of: slot) }, name)
    }

    func testAFailureOfATesterMadeInAnotherTestNamesBothTests() async {
        // As if an earlier test had made it and a global had kept it: its slot is not current.
        let earlier = TestIdentity.xcTest(XCTestSlot(name: "OtherTests.testThatMadeIt"))
        let line = #line + 2
        do {
            let tester = DispatchTester<Dispatcher.Counter>(
                madeIn: earlier, at: CallLocation(fileID: #fileID, filePath: #filePath, line: #line, column: 1))
            CounterAction().invoke(.increment)
            _ = tester
        }

        let caught = failures
        failures = []
        XCTAssertEqual(caught.map(\.line), [line], "reported where the tester was made")
        let description = caught.first?.description ?? ""
        XCTAssertTrue(
            description.contains(
                "A DispatchTester<Dispatcher.Counter> made in the test “OtherTests.testThatMadeIt” at "
                    + "\(#fileID):\(line) finished during the test “\(name)”, which did not make it"),
            description)
        XCTAssertTrue(description.contains("1 dispatch was not asserted"), description)
    }
}
