/// A first-in, first-out queue: the one type for queued work in FluxCapacitor (the
/// dispatcher's reentrant dispatches, a mailbox's values, what is handed over to a value
/// core's round and what waits behind a first value).
///
/// A ring buffer: `append` and `popFirst` are O(1), and the storage is reused, so a queue
/// allocates only when it grows past its largest size so far (an empty one has allocated
/// nothing). A popped slot is emptied at once, so an element is let go of when it is
/// taken, not when its slot is reused. `removeAll()` hands every element still waiting to
/// the caller, which can then release them after unlocking (their deinit may run user
/// code).
@usableFromInline
struct FIFO<Element> {
    /// The ring: `count` elements from `head` on, wrapping around; every other slot is
    /// `nil`. Its count is 0 or a power of two.
    private var slots: ContiguousArray<Element?> = []
    private var head = 0
    /// How many elements wait.
    @usableFromInline
    private(set) var count = 0

    /// Makes an empty queue. It allocates nothing until the first `append`.
    init() {}

    /// How many elements fit before the storage grows.
    var capacity: Int {
        slots.count
    }

    /// Whether no element waits.
    @inlinable
    var isEmpty: Bool {
        count == 0
    }

    /// The element `popFirst()` would take, if any.
    var first: Element? {
        count > 0 ? slots[head] : nil
    }

    /// Calls `body` with each waiting element, first first, leaving them in the queue.
    func forEach(_ body: (Element) throws -> Void) rethrows {
        for offset in 0..<count {
            // The `count` slots from `head` on are filled (`_checkInvariants()` checks the
            // first and last).
            try body(slots[(head &+ offset) & (slots.count &- 1)].unsafelyUnwrapped)
        }
    }

    /// Puts `element` last.
    mutating func append(_ element: Element) {
        if count == slots.count {
            grow()
        }
        slots[(head &+ count) & (slots.count &- 1)] = element
        count &+= 1
        _checkInvariants()
    }

    /// Takes the first element out, or returns `nil` when the queue is empty.
    mutating func popFirst() -> Element? {
        guard count > 0 else {
            return nil
        }
        let element = slots[head]
        slots[head] = nil
        head = (head &+ 1) & (slots.count &- 1)
        count &-= 1
        _checkInvariants()
        return element
    }

    /// Takes every waiting element out, first first, keeping the storage for reuse.
    ///
    /// - Returns: The elements that were waiting, for the caller to release where it is
    ///   safe to run their deinit.
    mutating func removeAll() -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        while let element = popFirst() {
            elements.append(element)
        }
        head = 0
        return elements
    }

    /// Doubles the ring (to 4 slots when empty), moving the waiting elements to its start.
    private mutating func grow() {
        let capacity = Swift.max(slots.count * 2, 4)
        var grown = ContiguousArray<Element?>()
        grown.reserveCapacity(capacity)
        for offset in 0..<count {
            grown.append(slots[(head + offset) & (slots.count - 1)])
        }
        grown.append(contentsOf: repeatElement(nil, count: capacity - count))
        slots = grown
        head = 0
        _checkInvariants()
    }
}

extension FIFO {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Stops with "internal inconsistency" unless the ring is well formed: its size is 0
    /// or a power of two, `head` and `count` fit in it, the first and last waiting slots
    /// are filled and the slots just outside them are empty. O(1), like swift-collections'
    /// `Deque` check, because it runs after every append and pop. Compiled in only with
    /// `FLUXCAPACITOR_INTERNAL_CHECKS` (see Internal/README.md).
    func _checkInvariants() {
        let capacity = slots.count
        guard capacity & (capacity &- 1) == 0 else {
            fatalError("FIFO: internal inconsistency: \(capacity) slots is not a power of two")
        }
        guard count >= 0 && count <= capacity && (capacity == 0 ? head == 0 : head < capacity) else {
            fatalError("FIFO: internal inconsistency: head \(head), count \(count), \(capacity) slots")
        }
        guard capacity > 0 else {
            return
        }
        let mask = capacity &- 1
        if count > 0 {
            guard slots[head] != nil && slots[(head &+ count &- 1) & mask] != nil else {
                fatalError("FIFO: internal inconsistency: a waiting slot is empty (head \(head), count \(count))")
            }
        }
        if count < capacity {
            guard slots[(head &+ count) & mask] == nil && slots[(head &+ capacity &- 1) & mask] == nil else {
                fatalError("FIFO: internal inconsistency: a free slot is filled (head \(head), count \(count))")
            }
        }
    }
    #else
    func _checkInvariants() {}
    #endif
}

// A queue is owned and guarded by whoever holds it; it is never sent anywhere on its own.
@available(*, unavailable)
extension FIFO: Sendable {}
