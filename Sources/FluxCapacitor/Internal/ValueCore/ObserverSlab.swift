/// The observers of a value core in the order they joined: a buffer of slots, each a +1
/// reference to an observer or empty (`nil`) once it left, walked by rounds without the
/// lock (`ValueCoreStateMachine.Delivery`). Removing empties the slot, so the observers after
/// it keep their places; the machine squeezes the holes out (`compact`) when at least half
/// the slots are empty and no round runs.
///
/// The slots and their counts are one `ManagedBuffer` (the counts in its header): a value
/// with no observer holds no buffer, only `nil`, and the buffer is freed by Swift.
@usableFromInline
struct ObserverSlab {
    /// A +1 reference to an observer, or `nil` for a slot left empty. (`Unmanaged`, so that a
    /// round reads each slot without retaining the observer: a retain and release per
    /// observer would make the row `notify3000` of `Benchmarks/instructions` a tenth
    /// dearer.)
    @usableFromInline
    typealias Slot = Unmanaged<ObserverDust>?
    /// A slot's number. 32 bits, so that an observer's place fits in its record (see
    /// `ObserverPlace`).
    @usableFromInline
    typealias Index = UInt32

    /// The slots, and their counts in the header. Both are reached through their pointers,
    /// which stay put while the buffer lives: a round walks the slots without the lock, and
    /// `header` (a class's stored property) would be checked for exclusivity at run time,
    /// which cost a set a third more (the value core's lock serializes them already).
    @usableFromInline
    final class Buffer: ManagedBuffer<Counts, Slot> {
        @inlinable
        var counts: UnsafeMutablePointer<Counts> { withUnsafeMutablePointerToHeader { $0 } }
        @inlinable
        var slots: UnsafeMutablePointer<Slot> { withUnsafeMutablePointerToElements { $0 } }
    }

    /// How many slots are used (filled or emptied since the last compaction), how many of
    /// those hold an observer, and how many there are.
    @usableFromInline
    struct Counts {
        @usableFromInline
        var count: Int
        @usableFromInline
        var live: Int
        @usableFromInline
        var capacity: Int
    }

    @usableFromInline
    private(set) var buffer: Buffer?

    @usableFromInline
    init() {}

    @inlinable
    var count: Int {
        buffer?.counts.pointee.count ?? 0
    }

    @inlinable
    var live: Int {
        buffer?.counts.pointee.live ?? 0
    }

    /// Whether at least half the slots in use are empty (and there are enough of them for
    /// compacting to be worth it).
    @inlinable
    var isSparse: Bool {
        guard let counts = buffer?.counts.pointee else { return false }
        return counts.count >= 16 && counts.live * 2 < counts.count
    }

    /// Puts `observer` in the next slot, holding a +1 reference to it; returns the slot.
    @inlinable
    mutating func append(_ observer: ObserverDust) -> Index {
        if buffer == nil || buffer!.counts.pointee.count == buffer!.counts.pointee.capacity {
            grow()
        }
        // `grow()` made room.
        let buffer = self.buffer!
        let counts = buffer.counts
        let slot = counts.pointee.count
        // The slot holds a +1 reference (given back by `remove(at:)`).
        buffer.slots[slot] = .passRetained(observer)
        counts.pointee.count += 1
        counts.pointee.live += 1
        // Fits: `grow()` keeps the capacity within `Index`.
        return Index(truncatingIfNeeded: slot)
    }

    /// Empties `slot` and returns its +1 reference, which the caller now owns.
    @inlinable
    mutating func remove(at slot: Index) -> Unmanaged<ObserverDust> {
        // The caller (the machine) knows `slot` holds an observer (its place says so), so
        // the buffer exists and the slot is filled.
        let buffer = self.buffer!
        let reference = buffer.slots[Int(slot)]!
        buffer.slots[Int(slot)] = nil
        let counts = buffer.counts
        counts.pointee.live -= 1
        if counts.pointee.live == 0 {
            counts.pointee.count = 0
        }
        return reference
    }

    /// Moves the observers to the front, in order, telling `moved` each one's new slot.
    mutating func compact(_ moved: (ObserverDust, Index) -> Void) {
        guard let buffer else { return }
        let count = buffer.counts.pointee.count
        let slots = buffer.slots
        var kept = 0
        for source in 0..<count {
            guard let reference = slots[source] else { continue }
            if source != kept {
                slots[kept] = reference
                // Unretained: the slab holds a +1 reference to each observer in it. Retained,
                // the row `observeClean30000` of `Benchmarks/instructions` costs a little more,
                // enough to go over its budget of 1.5× the baseline.
                reference._withUnsafeGuaranteedRef { moved($0, Index(truncatingIfNeeded: kept)) }
            }
            kept += 1
        }
        (slots + kept).update(repeating: nil, count: count - kept)
        buffer.counts.pointee.count = kept
    }

    /// Takes every observer out (the caller now owns the slots' references) and lets go of
    /// the buffer.
    mutating func removeAll() -> [ObserverDust] {
        guard let buffer else { return [] }
        self.buffer = nil
        return (0..<buffer.counts.pointee.count).compactMap { buffer.slots[$0]?.takeRetainedValue() }
    }

    /// The slots `_checkInvariants()` looks at when the slab is checked at every event: all
    /// of them up to `wholeCheckLimit`, else the first and last 16 and a window of 32 that
    /// moves with the live count, so that n events cost O(n) checks.
    static let wholeCheckLimit = 64

    static func slotsToCheck(count: Int, live: Int) -> [Range<Int>] {
        guard count > wholeCheckLimit else {
            return [0..<count]
        }
        let window = wholeCheckLimit / 4
        let head = 0..<window
        let tail = (count - window)..<count
        // Between the two ends: a start in window ..< count - 2 * window.
        let start = window + (live &* 7_919) % (count - 3 * window + 1)
        return [head, start..<(start + 2 * window), tail]
    }

    /// A buffer twice as large (4 slots at first), the slots moved over.
    @usableFromInline
    mutating func grow() {
        let old = buffer
        let oldCapacity = old?.counts.pointee.capacity ?? 0
        let capacity = Swift.max(4, oldCapacity * 2)
        // (As `UInt`: on 32-bit platforms, watchOS's arm64_32, `Int` cannot hold `Index.max`.)
        guard UInt(bitPattern: capacity) <= UInt(Index.max) else {
            fatalError(
                "A value has more than \(UInt(Index.max) / 2 + 1) observers; "
                    + "FluxCapacitor counts observers in 32 bits.")
        }
        let grown = unsafeDowncast(
            Buffer.create(minimumCapacity: capacity) { _ in
                Counts(count: old?.counts.pointee.count ?? 0, live: old?.counts.pointee.live ?? 0, capacity: capacity)
            }, to: Buffer.self)
        if let old {
            grown.slots.moveInitialize(from: old.slots, count: oldCapacity)
        }
        (grown.slots + oldCapacity).initialize(repeating: nil, count: capacity - oldCapacity)
        // The old buffer's slots were moved out; it holds no references (`Slot` is trivial).
        buffer = grown
    }
}

extension ObserverSlab {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Checks the counts and, in the slots `slotsToCheck` names, that each observer knows
    /// its slot: compiled in only with `FLUXCAPACITOR_INTERNAL_CHECKS`.
    func _checkInvariants() {
        guard let buffer else { return }
        let counts = buffer.counts.pointee
        guard 0 <= counts.live && counts.live <= counts.count && counts.count <= counts.capacity else {
            fatalError(
                "ObserverSlab: internal inconsistency: counts (live \(counts.live), count \(counts.count), "
                    + "capacity \(counts.capacity))")
        }
        var found = 0
        for range in Self.slotsToCheck(count: counts.count, live: counts.live) {
            for slot in range {
                guard let reference = buffer.slots[slot] else { continue }
                found += 1
                // The slab holds a +1 reference to each observer in it.
                let place = reference.takeUnretainedValue().place
                guard place == .inSlab(Index(slot)) || place == .leaving(Index(slot)) else {
                    fatalError(
                        "ObserverSlab: internal inconsistency: an observer in slot \(slot) thinks it is \(place)")
                }
            }
        }
        guard counts.count > Self.wholeCheckLimit || found == counts.live else {
            fatalError("ObserverSlab: internal inconsistency: \(found) observers, \(counts.live) counted")
        }
    }
    #else
    func _checkInvariants() {}
    #endif
}

// The slab is owned and guarded by its value core; it is never sent anywhere on its own.
@available(*, unavailable)
extension ObserverSlab: Sendable {}

/// Three integers: a plain value.
extension ObserverSlab.Counts: Sendable {}
