import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Failures that no test can take any more, and testers still alive when the run ends.
///
/// A failure of a tester that finished outside any test (its last reference let go of in a
/// detached task, or after its test ended, with no other test running) is said on standard
/// error at once, and counted. When the process exits (the test runner calls `exit` at the
/// end of the run), the exit hook also says each tester made and never finished
/// (``LiveTesters``) and each failure that XCTest dropped (``XCTestTimeline``), and if there
/// was any of these, it makes the exit a failure: the run fails although every test passed.
enum EscapedFailures {
    private static let lock = NSLock()
    // `lock` guards `count` and `isHookInstalled`.
    nonisolated(unsafe) private static var count = 0
    nonisolated(unsafe) private static var isHookInstalled = false

    /// How long the exit hook waits for a lock that another thread holds. Such a thread
    /// still runs (`exit` does not stop the other threads before the hooks run), and each
    /// lock here is held for a few instructions, so only a thread stopped with it held
    /// makes the hook wait this long; it then fails the run rather than hang.
    static let exitHookPatience: TimeInterval = 2

    /// Says `message` on standard error and makes the process's exit a failure.
    static func report(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        lock.withLock { count += 1 }
        installExitHook()
    }

    /// Installs the exit hook, once.
    static func installExitHook() {
        let isFirst = lock.withLock {
            defer { isHookInstalled = true }
            return !isHookInstalled
        }
        if isFirst {
            atexit { EscapedFailures.checkTheEndOfTheRun() }
        }
    }

    /// The exit hook. It runs on the thread that called `exit`, while other threads may still
    /// run: it takes no lock without a deadline, calls no test framework (their runs are
    /// over), and leaves with `_exit` when the run must fail.
    private static func checkTheEndOfTheRun() {
        let deadline = Date(timeIntervalSinceNow: exitHookPatience)
        var messages: [String] = []
        var failures = 0
        var unreadable: [String] = []

        if lock.lock(before: deadline) {
            failures += count
            lock.unlock()
        } else {
            unreadable.append("the count of failures already reported")
        }
        let timeline = XCTestTracking.withTimeline(before: deadline) { timeline in
            (timeline, timeline.takeUnconfirmed())
        }
        if let (_, dropped) = timeline {
            messages += dropped
        } else {
            unreadable.append("the XCTest tests that ran")
        }
        if let origins = LiveTesters.unfinished(before: deadline) {
            messages += origins.map { stillAlive($0, timeline: timeline?.0 ?? XCTestTimeline()) }
        } else {
            unreadable.append("the testers not finished")
        }
        if !unreadable.isEmpty {
            messages.append(
                "DispatchTester could not read \(unreadable.joined(separator: ", ")) at the end of the run: "
                    + "a thread held a lock for \(Int(exitHookPatience)) s. The run fails, since it cannot "
                    + "show that nothing was left unchecked.")
        }
        failures += messages.count
        guard failures > 0 else {
            return
        }
        // What the process printed is flushed before leaving without the rest of `exit`;
        // the messages go straight to the descriptor, which works while `exit` runs.
        fflush(nil)
        var text = messages.map { "error: \($0)\n" }.joined()
        text += """
            error: \(failures) failure\(failures == 1 ? " was" : "s were") reported outside the test that \
            made the DispatchTester or DispatchReplay (see above): the run fails.\n
            """
        text.utf8.withContiguousStorageIfAvailable { bytes in
            _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
        _exit(1)  // EXIT_FAILURE
    }

    /// What the exit hook says of a tester not finished when the run ends.
    static func stillAlive(_ origin: TesterOrigin, timeline: XCTestTimeline) -> String {
        """
        A \(origin.testerName) made \(origin.madeIn(timeline)) at \(origin.place) was still alive when the \
        test run ended, so what it recorded was never checked. Let go of it by the end of \
        its test (a task, a global or an XCTestCase's property kept it), or call assertAllReceived().
        """
    }
}
