/// The observers of one value, in registration order, in a contiguous buffer that a
/// notification round walks without locking, retaining or allocating.
///
/// Removal leaves a hole (O(1)); holes are squeezed out when they outnumber the live
/// observers and no round is running, so observe and clean stay amortized O(1) and the
/// walk never visits more than twice as many slots as there are observers.
///
/// Slots hold +1 references (`Unmanaged.passRetained`). The owner guards the slab with
/// its lock, except during a round, when only the delivering thread touches it.
struct ObserverSlab<Record: AnyObject> {
    private(set) var base: UnsafeMutablePointer<Unmanaged<Record>?>?
    /// Slots in use, holes included.
    private(set) var count = 0
    /// Live observers.
    private(set) var live = 0
    private var capacity = 0

    /// Appends `record` (retaining it) and returns its slot.
    mutating func append(_ record: Record) -> Int {
        if count == capacity {
            grow()
        }
        base.unsafelyUnwrapped[count] = .passRetained(record)
        count += 1
        live += 1
        return count - 1
    }

    /// Empties `slot` and returns its reference, for the caller to release.
    mutating func remove(at slot: Int) -> Unmanaged<Record> {
        let pointer = base.unsafelyUnwrapped
        guard let reference = pointer[slot] else {
            preconditionFailure("ObserverSlab: slot \(slot) is already empty")
        }
        pointer[slot] = nil
        live -= 1
        if live == 0 {
            count = 0
        }
        return reference
    }

    /// Squeezes out holes when they outnumber live observers, keeping order, and calls
    /// `moved` with each record whose slot changed.
    mutating func compactIfSparse(_ moved: (Record, Int) -> Void) {
        guard count >= 16, live * 2 < count, let pointer = base else {
            return
        }
        var target = 0
        for source in 0..<count {
            guard let reference = pointer[source] else { continue }
            if source != target {
                pointer[target] = reference
                moved(reference.takeUnretainedValue(), target)
            }
            target += 1
        }
        (pointer + target).update(repeating: nil, count: count - target)
        count = target
    }

    /// Takes every reference out, for the caller to release, and frees the buffer.
    mutating func removeAll() -> [Unmanaged<Record>] {
        guard let pointer = base else { return [] }
        var references: [Unmanaged<Record>] = []
        references.reserveCapacity(live)
        for slot in 0..<count {
            if let reference = pointer[slot] {
                references.append(reference)
            }
        }
        pointer.deinitialize(count: capacity)
        pointer.deallocate()
        base = nil
        count = 0
        live = 0
        capacity = 0
        return references
    }

    private mutating func grow() {
        let newCapacity = Swift.max(4, capacity * 2)
        let newBase = UnsafeMutablePointer<Unmanaged<Record>?>.allocate(capacity: newCapacity)
        if let old = base {
            newBase.moveInitialize(from: old, count: capacity)
            old.deallocate()
        }
        (newBase + capacity).initialize(repeating: nil, count: newCapacity - capacity)
        base = newBase
        capacity = newCapacity
    }
}
