import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Failures of testers that finished outside the Swift Testing test that made them (their
/// last reference let go of in a detached task, or after the test ended), which no test can
/// take any more: each is said on standard error at once, and the process, when it exits,
/// exits with a failure, so that the run fails although every test passed.
enum EscapedFailures {
    private static let lock = NSLock()
    // `lock` guards `count`.
    nonisolated(unsafe) private static var count = 0

    /// Says `message` on standard error and makes the process's exit a failure.
    static func report(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        let isFirst = lock.withLock {
            count += 1
            return count == 1
        }
        if isFirst {
            atexit { EscapedFailures.failTheExit() }
        }
    }

    /// Run by `exit`: says how many failures escaped, and exits with a failure instead.
    private static func failTheExit() {
        let total = lock.withLock { count }
        // What the process printed is flushed before leaving without the rest of `exit`;
        // the summary goes straight to the descriptor, which works while `exit` runs.
        fflush(nil)
        let summary = """
            error: \(total) DispatchTester failure\(total == 1 ? " was" : "s were") reported outside \
            the test that made the tester (see above): the run fails.\n
            """
        summary.utf8.withContiguousStorageIfAvailable { bytes in
            _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
        _exit(1)  // EXIT_FAILURE
    }
}
