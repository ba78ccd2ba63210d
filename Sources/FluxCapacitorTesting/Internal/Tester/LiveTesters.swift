import Foundation

/// The testers made and not finished yet, by where they were made: what the exit hook of
/// ``EscapedFailures`` reports as still alive when the run ends (kept by a task, a global or
/// an `XCTestCase`'s property past its test, never checked).
///
/// It holds no tester, only its origin: a tester registers when it is made and unregisters
/// when it finishes (at ``DispatchTester/assertAllReceived(fileID:filePath:line:column:)`` or when it
/// goes away), so the exit hook reads nothing that another thread may be using.
enum LiveTesters {
    private static let lock = NSLock()
    // `lock` guards `live` and `nextKey`.
    nonisolated(unsafe) private static var live: [Int: TesterOrigin] = [:]
    nonisolated(unsafe) private static var nextKey = 0

    /// Registers a tester made at `origin`; returns its key, to unregister it with. Installs
    /// the exit hook.
    static func register(_ origin: TesterOrigin) -> Int {
        EscapedFailures.installExitHook()
        return lock.withLock {
            nextKey += 1
            live[nextKey] = origin
            return nextKey
        }
    }

    /// The tester of `key` finished.
    static func unregister(_ key: Int) {
        lock.withLock {
            _ = live.removeValue(forKey: key)
        }
    }

    /// The origins of the testers not finished, oldest first; `nil` if the lock is not free
    /// by `deadline` (for the exit hook: a thread that still runs holds it).
    static func unfinished(before deadline: Date) -> [TesterOrigin]? {
        guard lock.lock(before: deadline) else {
            return nil
        }
        defer { lock.unlock() }
        return live.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Takes the lock and holds it until `release` is signalled: for the test that the exit
    /// hook does not wait forever for a lock that another thread holds.
    static func holdLockForTesting(until release: DispatchSemaphore) {
        lock.lock()
        release.wait()
        lock.unlock()
    }
}
