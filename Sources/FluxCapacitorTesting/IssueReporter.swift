import Foundation
public import Testing

#if canImport(XCTest)
import XCTest
#endif

/// Where a ``DispatchTester`` reports what it finds: failures (an unexpected dispatch, a
/// dispatch left unasserted, a timeout) and notes (what a non-exhaustive test skipped).
///
/// The default, ``automatic``, fits both test frameworks:
///
/// ```swift
/// // Swift Testing: issues recorded at the line of the failing call.
/// @Test(.isolatedDispatcher) func addingAFavoriteAddsIt() async {
///     let tester = DispatchTester(of: Dispatcher.Favorite.self)
///     FavoriteAction().invoke(.add(fluxCapacitor))
///     await tester.receive(.add(fluxCapacitor))
/// }
///
/// // XCTest: failures through XCTFail, at the same line.
/// func testAddingAFavoriteAddsIt() async {
///     let tester = DispatchTester(of: Dispatcher.Favorite.self)
///     FavoriteAction().invoke(.add(fluxCapacitor))
///     await tester.receive(.add(fluxCapacitor))
/// }
/// ```
///
/// Pass your own to send them elsewhere (another framework, a log):
///
/// ```swift
/// let tester = DispatchTester(
///     of: Dispatcher.Repository.self,
///     reportingTo: IssueReporter { message, location in
///         print("\(location): \(message)")
///     })
/// ```
public struct IssueReporter: Sendable {
    private let reportFailure: @Sendable (String, CallLocation, TesterOrigin) -> Void
    private let reportNote: @Sendable (String, CallLocation) -> Void

    /// Reports failures with `failure` and notes with `note` (by default, nowhere).
    ///
    /// They are called wherever the tester fails, in its test or after it; a tester still
    /// alive when the test run ends is reported by the test process itself, on standard
    /// error, whatever its reporter (see ``DispatchTester``).
    ///
    /// - Parameters:
    ///   - failure: Called with the message of each failure and the line it belongs to.
    ///   - note: Called with each note (what a non-exhaustive test skipped, when it lists
    ///     them) and its line.
    @preconcurrency
    public init(
        failure: @escaping @Sendable (_ message: String, _ location: SourceLocation) -> Void,
        note: @escaping @Sendable (_ message: String, _ location: SourceLocation) -> Void = { _, _ in }
    ) {
        reportFailure = { message, location, _ in failure(message, location.sourceLocation) }
        reportNote = { note($0, $1.sourceLocation) }
    }

    private init(
        failure: @escaping @Sendable (String, CallLocation, TesterOrigin) -> Void,
        note: @escaping @Sendable (String, CallLocation) -> Void
    ) {
        reportFailure = failure
        reportNote = note
    }

    /// Inside a Swift Testing test, ``swiftTesting``; in an XCTest test, XCTest's `XCTFail`
    /// (Swift Testing's `Issue.record` does not reach XCTest).
    ///
    /// A failure is never lost, nor charged silently to a test that did not make the tester.
    /// A tester kept past the test that made it (by a detached task, a global, an
    /// `XCTestCase`'s property) fails
    ///
    /// - while another test runs: in that test (neither framework records in a test that
    ///   ended), with a message that names the test that made the tester and where;
    /// - while no test runs: on standard error, naming that test, and the test process exits
    ///   with a failure (a Swift Testing run also records it while the run lasts);
    /// - never, because it is still alive when the test run ends: the test process says so
    ///   on standard error, naming that test, and exits with a failure.
    public static var automatic: IssueReporter {
        IssueReporter(
            failure: { message, location, origin in
                let now = TestIdentity.current
                let route = XCTestTracking.withTimeline { timeline in
                    let route = FailureRoute(message, origin: origin, now: now, timeline: timeline)
                    if case .xcTestUnconfirmed(_, let ifNoTest) = route {
                        timeline.keepUnconfirmed(ifNoTest)
                    }
                    return route
                }
                switch route {
                case .swiftTesting(let text):
                    recordInSwiftTesting(text, at: location, isFailure: true)
                case .xcTest(let text), .xcTestUnconfirmed(let text, _):
                    failInXCTest(text, at: location)
                case .escaped(let text, let alsoInSwiftTestingRun):
                    if alsoInSwiftTestingRun {
                        // With no current test, Swift Testing records it for the run, while the run lasts.
                        recordInSwiftTesting(text, at: location, isFailure: true)
                    }
                    EscapedFailures.report(text)
                }
            },
            note: { message, location in
                if Test.current != nil {
                    recordInSwiftTesting(message, at: location, isFailure: false)
                } else {
                    print("\(location.fileID):\(location.line): note: \(message)")
                }
            })
    }

    /// Records failures as Swift Testing issues, and notes as warnings, at the line of
    /// the call they belong to.
    public static var swiftTesting: IssueReporter {
        IssueReporter(
            failure: { message, location, _ in recordInSwiftTesting(message, at: location, isFailure: true) },
            note: { recordInSwiftTesting($0, at: $1, isFailure: false) })
    }

    func fail(_ message: String, at location: CallLocation, origin: TesterOrigin) {
        reportFailure(message, location, origin)
    }

    func note(_ message: String, at location: CallLocation) {
        reportNote(message, location)
    }

    private static func recordInSwiftTesting(_ message: String, at location: CallLocation, isFailure: Bool) {
        #if compiler(>=6.3)
        Issue.record(
            Comment(rawValue: message), severity: isFailure ? .error : .warning,
            sourceLocation: location.sourceLocation)
        #else
        if isFailure {
            Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
        } else {
            print("\(location.fileID):\(location.line): note: \(message)")
        }
        #endif
    }

    /// `XCTFail` where XCTest can be imported; else (where the timeline never knows of a
    /// test, so no failure comes here) standard error.
    private static func failInXCTest(_ message: String, at location: CallLocation) {
        #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
        #else
        FileHandle.standardError.write(Data("\(location.filePath):\(location.line): error: \(message)\n".utf8))
        #endif
    }
}

/// The line of a test a report belongs to, in the forms both frameworks take (XCTest
/// wants the path as a `StaticString`).
struct CallLocation: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt

    var sourceLocation: SourceLocation {
        SourceLocation(
            fileID: "\(fileID)", filePath: "\(filePath)", line: Int(max(line, 1)), column: Int(max(column, 1)))
    }
}
