/// A first-in, first-out queue: appending and taking the first element are O(1), and the
/// storage is kept for reuse, so a queue that is drained and filled again allocates only
/// when it grows past its largest size so far.
///
/// Taken elements leave the storage at once (their slots are emptied), so whoever takes an
/// element decides where its last release happens: outside a lock, when its `deinit` may
/// run user code.
@usableFromInline
struct FIFO<Element> {
    @usableFromInline
    var slots: [Element?] = []
    @usableFromInline
    var head = 0

    @inlinable
    init() {}

    /// Whether the queue holds nothing.
    @inlinable
    var isEmpty: Bool {
        head == slots.count
    }

    /// How many elements the queue holds.
    @inlinable
    var count: Int {
        slots.count - head
    }

    /// The element `popFirst()` would take, if any.
    @inlinable
    var first: Element? {
        head < slots.count ? slots[head] : nil
    }

    /// Adds `element` at the end.
    @inlinable
    mutating func append(_ element: Element) {
        slots.append(element)
    }

    /// Takes the first element out, if any. When that empties the queue, its storage is
    /// reset for reuse.
    @inlinable
    mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head].take()
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: slots.count <= 64)
            head = 0
        }
        return element
    }

    /// Takes every element out, in order (for the caller to let go of outside its lock).
    mutating func removeAll() -> [Element] {
        defer {
            slots = []
            head = 0
        }
        return slots[head...].map { $0.unsafelyUnwrapped }
    }
}

// A queue is owned and guarded by whoever holds it; it is never sent anywhere on its own.
@available(*, unavailable)
extension FIFO: Sendable {}
