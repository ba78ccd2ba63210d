import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C: the program stops what runs, finishes the recording and the saved favorites,
/// and says so, instead of ending at once with a recording that stops mid-request.
final class Interruption: @unchecked Sendable {
    // Sendable: `lock` guards `interrupted` and `listeners`.
    private let lock = NSLock()
    private var interrupted = false
    private var listeners: [@Sendable () -> Void] = []
    private var source: (any DispatchSourceSignal)?

    /// An interruption nothing triggers but `interrupt()` (a test's Ctrl-C).
    init() {}

    /// Ctrl-C, caught: the first `SIGINT` interrupts the program; a second one ends it at
    /// once, as the signal does by default.
    static func onSIGINT() -> Interruption {
        let interruption = Interruption()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if interruption.isInterrupted {
                interruption.endAsTheSignalWould()
            }
            interruption.interrupt()
        }
        source.resume()
        interruption.source = source
        return interruption
    }

    var isInterrupted: Bool {
        lock.withLock { interrupted }
    }

    /// Interrupts: tells each listener, once.
    func interrupt() {
        let listeners: [@Sendable () -> Void] = lock.withLock {
            guard !interrupted else { return [] }
            interrupted = true
            return self.listeners
        }
        listeners.forEach { $0() }
    }

    /// Calls `listener` when interrupted (at once, if it is already).
    func onInterrupt(_ listener: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            if !interrupted { listeners.append(listener) }
            return interrupted
        }
        if now { listener() }
    }

    /// Ends the process by `SIGINT`, with its default action, so that the shell sees the
    /// program stopped by Ctrl-C.
    func endAsTheSignalWould() -> Never {
        signal(SIGINT, SIG_DFL)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        // To this thread, which does not block it: sent to the process, the dispatch
        // source's reader could take it instead of the default action.
        raise(SIGINT)
        // Not reached, normally; if it is, exit as a shell reports a process stopped by it.
        _exit(128 + SIGINT)
    }
}
