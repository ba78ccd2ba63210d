import FluxCapacitor
import Foundation
package import TestSupport

/// Runs `body(index)` on `count` new threads that start together, and waits for all of
/// them. Each thread runs in the caller's dispatcher scope.
package func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let dispatcher = Dispatcher.current
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        ready.enter()
        done.enter()
        let thread = Thread {
            ready.leave()
            start.wait()
            Dispatcher.withCurrent(dispatcher) { body(index) }
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    ready.wait()
    for _ in 0..<count {
        start.signal()
    }
    done.wait()
}

/// An object whose deinit is counted, to see what is released.
package final class Tracked: Sendable {
    package let deinits: Locked<Int>

    package init(_ deinits: Locked<Int>) {
        self.deinits = deinits
    }

    deinit {
        deinits.withLock { $0 += 1 }
    }
}

/// A count kept apart for each dispatcher, so that a store type's `init` can count what it
/// made in the test that made it, while other tests, running in parallel under their own
/// `.isolatedDispatcher`, make instances of the same type. Each test reads only the count
/// of its own `Dispatcher.current`.
package final class CountPerDispatcher: Sendable {
    package init() {}

    // The dispatchers are kept, so that a freed one's address is never another's key.
    private let counts = Locked<[ObjectIdentifier: (dispatcher: Dispatcher, count: Int)]>([:])

    /// Adds one to the count of `Dispatcher.current`, and returns the new count.
    @discardableResult
    package func increment() -> Int {
        let dispatcher = Dispatcher.current
        return counts.withLock {
            let count = ($0[ObjectIdentifier(dispatcher)]?.count ?? 0) + 1
            $0[ObjectIdentifier(dispatcher)] = (dispatcher, count)
            return count
        }
    }

    /// The count of `Dispatcher.current`.
    package var inCurrentDispatcher: Int {
        counts.value[ObjectIdentifier(Dispatcher.current)]?.count ?? 0
    }
}
