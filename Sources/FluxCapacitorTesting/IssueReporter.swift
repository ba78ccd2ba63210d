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
    private let reportFailure: @Sendable (String, CallLocation) -> Void
    private let reportNote: @Sendable (String, CallLocation) -> Void

    /// Reports failures with `failure` and notes with `note` (by default, nowhere).
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
        reportFailure = { failure($0, $1.sourceLocation) }
        reportNote = { note($0, $1.sourceLocation) }
    }

    private init(
        failure: @escaping @Sendable (String, CallLocation) -> Void,
        note: @escaping @Sendable (String, CallLocation) -> Void
    ) {
        reportFailure = failure
        reportNote = note
    }

    /// Inside a Swift Testing test, ``swiftTesting``; elsewhere, XCTest's `XCTFail` where
    /// XCTest can be imported (Swift Testing's `Issue.record` does not reach XCTest); else
    /// standard error.
    ///
    /// A failure is never lost. A tester made in a Swift Testing test that finishes outside
    /// it (its last reference let go of in a detached task, or after the test ended)
    /// records its failure as an issue of the run, which fails the run while it lasts,
    /// writes it to standard error naming the test that made the tester, and makes the
    /// test process exit with a failure.
    public static var automatic: IssueReporter {
        // Evaluated where the tester is made (its `init`'s default argument): the test
        // that made it, to name if the tester outlives it.
        automatic(madeIn: Test.current.map { $0.displayName ?? $0.name })
    }

    /// ``automatic``, for a tester made in the test named `maker` (`nil`: outside Swift Testing).
    static func automatic(madeIn maker: String?) -> IssueReporter {
        IssueReporter(
            failure: { message, location in
                if Test.current != nil {
                    recordInSwiftTesting(message, at: location, isFailure: true)
                } else if let maker {
                    let escaped = """
                        A DispatchTester made in the test “\(maker)” finished outside it (let go of in a \
                        detached task, or after the test ended), at \(location.fileID):\(location.line): \(message)
                        """
                    // With no current test, Swift Testing records it for the run, while the run lasts.
                    recordInSwiftTesting(escaped, at: location, isFailure: true)
                    EscapedFailures.report(escaped)
                } else {
                    failOutsideSwiftTesting(message, at: location)
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
            failure: { recordInSwiftTesting($0, at: $1, isFailure: true) },
            note: { recordInSwiftTesting($0, at: $1, isFailure: false) })
    }

    func fail(_ message: String, at location: CallLocation) {
        reportFailure(message, location)
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

    private static func failOutsideSwiftTesting(_ message: String, at location: CallLocation) {
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
