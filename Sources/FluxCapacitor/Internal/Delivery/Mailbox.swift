import Dispatch

/// The in-order, one-at-a-time delivery of values to one observer on a dispatch queue
/// (``ExecuteQueue/main`` or ``ExecuteQueue/queue(_:)``).
///
/// Values are put in by the thread delivering a round of the observed value (rounds never
/// overlap, so there is one producer at a time) and taken out by one drain job on the
/// queue, which is scheduled when the first value arrives and runs until the box is empty.
/// A concurrent queue therefore still sees one call at a time, in order.
@usableFromInline
final class Mailbox<Element: Sendable>: @unchecked Sendable {
    // Sendable: `values`, `isScheduled` and `isDropped` are guarded by the striped mutex
    // for this object.
    private let target: DispatchQueue?
    /// Each value with the dispatcher scope it was set in, to bind around the call. A value
    /// is taken out before the call, so that its last release happens outside the mutex
    /// (its deinit may run user code).
    private var values = FIFO<(value: Element, scope: Dispatcher?)>()
    private var isScheduled = false
    private var isDropped = false

    /// A mailbox for `.queue(target)`, or for `.main` when `target` is nil.
    init(target: DispatchQueue?) {
        self.target = target
    }

    /// Delivers `value` to `handler` in order: at once when the box is for the main queue,
    /// the caller is on the main thread and nothing is waiting; else on the queue, in the
    /// caller's dispatcher scope (the value core runs each round in the scope its value was
    /// set in).
    @usableFromInline
    func deliver(_ value: Element, to handler: @escaping @Sendable (Element) -> Void) {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        if isDropped {
            mutex.unlock()
            return
        }
        if target == nil, !isScheduled, MainQueue.isCurrent {
            mutex.unlock()
            handler(value)
            return
        }
        values.append((value, Dispatcher.scopeToCarry))
        let mustSchedule = !isScheduled
        isScheduled = true
        mutex.unlock()
        if mustSchedule {
            (target ?? DispatchQueue.main).async { self.drain(handler) }
        }
    }

    private func drain(_ handler: @Sendable (Element) -> Void) {
        let mutex = StripedLocks.mutex(for: self)
        while true {
            mutex.lock()
            guard !isDropped, let (value, scope) = values.popFirst() else {
                if values.capacity > 64 {
                    // Let go of the room a burst needed.
                    values = FIFO()
                }
                isScheduled = false
                mutex.unlock()
                return
            }
            mutex.unlock()
            Dispatcher.withScope(scope) { handler(value) }
        }
    }

    /// Drops what is waiting; nothing more is delivered.
    func dropQueued() {
        let dropped = StripedLocks.mutex(for: self).withLock {
            isDropped = true
            let dropped = values.removeAll()
            values = FIFO()
            return dropped
        }
        // Released here, outside the lock: an element's deinit may run user code.
        _ = dropped
    }
}
