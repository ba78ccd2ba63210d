import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Catches termination signals (`SIGINT`, `SIGTERM`, …) to write every persisted value's
/// pending change before the process ends, then ends it as the signal would have (so the
/// parent sees "killed by SIGINT"). Installed once per signal, for the whole process.
enum TerminationFlusher {
    private static let lock = NSLock()
    private static let queue = DispatchQueue(label: "FluxCapacitor.termination")
    // `lock` guards `sources`.
    nonisolated(unsafe) private static var sources: [Int32: any DispatchSourceSignal] = [:]

    static func install(_ signals: [Int32]) {
        lock.withLock {
            for number in signals where sources[number] == nil {
                // A signal the process was started ignoring (a background job) stays ignored.
                let previous = signal(number, SIG_IGN)
                guard unsafeBitCast(previous, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) else {
                    continue
                }
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    SlotRegistry.flushAll()
                    end(by: number)
                }
                // The source is registered asynchronously; until it is, the signal is
                // ignored. Return only once it is caught (or after a second, should
                // dispatch never say so).
                let registered = DispatchSemaphore(value: 0)
                source.setRegistrationHandler { registered.signal() }
                source.resume()
                _ = registered.wait(timeout: .now() + .seconds(1))
                sources[number] = source
            }
        }
    }

    /// Ends the process by `number`, with its default action.
    private static func end(by number: Int32) -> Never {
        signal(number, SIG_DFL)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, number)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        // To this thread, which does not block it: sent to the process, it could be taken
        // by the dispatch source's reader (a `signalfd` on Linux) instead of ending it.
        raise(number)
        // Not reached, normally; if it is, exit as a shell reports a process killed by it.
        usleep(200_000)
        _exit(128 + number)
    }
}
