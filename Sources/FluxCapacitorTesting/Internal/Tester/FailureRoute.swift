/// Where ``IssueReporter/automatic`` sends a tester's failure, from the test that made the
/// tester and the test running where it fails, and in what words.
///
/// In the test that made it, a failure is that test's, in the words of the tester. A tester
/// kept past its test (by a task, a global) fails where no test runs, or while another
/// test runs: then the message names the test that made it, so that it does not silently
/// blame the test running (neither framework can record in a test that ended).
enum FailureRoute: Equatable {
    /// An issue of the Swift Testing test running (or, with none, of the run).
    case swiftTesting(String)
    /// `XCTFail`, in the XCTest test running.
    case xcTest(String)
    /// `XCTFail`, before XCTest said whether a test runs: if none did, XCTest drops it, and
    /// `ifNoTest` is said on standard error instead (see ``XCTestTimeline``).
    case xcTestUnconfirmed(String, ifNoTest: String)
    /// No test runs: said on standard error, failing the exit (``EscapedFailures``); also an
    /// issue of the Swift Testing run if the tester was made in a Swift Testing test, since
    /// its run may still last.
    case escaped(String, alsoInSwiftTestingRun: Bool)

    init(_ message: String, origin: TesterOrigin, now: TestIdentity?, timeline: XCTestTimeline) {
        switch now {
        case .swiftTesting(_, let name)?:
            self = .swiftTesting(
                origin.test == now ? message : Self.elsewhere(message, origin: origin, running: name, timeline))
        case .xcTest(let slot)? where timeline.isUnsettled(slot):
            if origin.test == now {
                // Made and failing in what ran when the tracking began, a test or none.
                self = .xcTestUnconfirmed(
                    message,
                    ifNoTest: "A \(origin.testerName) made outside any test at \(origin.place) failed "
                        + "outside any test: \(message)")
            } else {
                self = Self.outside(message, origin: origin, timeline)
            }
        case .xcTest(let slot)?:
            self = .xcTest(
                origin.test == now
                    ? message
                    : Self.elsewhere(message, origin: origin, running: timeline.name(of: slot) ?? "?", timeline))
        case nil:
            self = Self.outside(message, origin: origin, timeline)
        }
    }

    /// A failure while no test runs.
    private static func outside(_ message: String, origin: TesterOrigin, _ timeline: XCTestTimeline) -> Self {
        let text =
            if let maker = origin.test?.name(in: timeline) {
                "A \(origin.testerName) made in the test “\(maker)” at \(origin.place) finished outside it (let go "
                    + "of in a detached task, or after the test ended): \(message)"
            } else {
                "A \(origin.testerName) made outside any test at \(origin.place) failed outside any test: \(message)"
            }
        return .escaped(text, alsoInSwiftTestingRun: origin.test?.isSwiftTesting ?? false)
    }

    /// A failure while a test runs that did not make the tester.
    private static func elsewhere(
        _ message: String, origin: TesterOrigin, running: String, _ timeline: XCTestTimeline
    ) -> String {
        "A \(origin.testerName) made \(origin.madeIn(timeline)) at \(origin.place) finished during the test "
            + "“\(running)”, which did not make it (a task or a global kept it past its own test); the failure is "
            + "reported in “\(running)”, the test running: \(message)"
    }
}
