/// The FIFO of dispatches queued by reentrant `invoke` calls, drained by the thread that
/// is dispatching. Popping is O(1); the storage is reused, so a dispatcher that queues
/// allocates only when the queue grows past its largest size so far.
struct DispatchQueueBuffer {
    typealias Work = (Dispatcher) -> Void

    private var items: [Work?] = []
    private var head = 0

    mutating func append(_ work: @escaping Work) {
        items.append(work)
    }

    mutating func popFirst() -> Work? {
        guard head < items.count else {
            if head > 0 {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return nil
        }
        let work = items[head]
        items[head] = nil
        head += 1
        return work
    }
}
