/// The observers of one value, in registration order, in a contiguous buffer that a
/// notification round walks without locking, retaining or allocating.
///
/// Removal leaves a hole (O(1)); holes are squeezed out when they outnumber the live
/// observers and no round is running, so observe and clean stay amortized O(1) and the
/// walk never visits more than twice as many slots as there are observers.
///
/// Slots hold +1 references (`Unmanaged.passRetained`). The owner guards the slab with
/// its lock, except during a round, when only the delivering thread touches it.
@usableFromInline
struct ObserverSlab {
    @usableFromInline
    typealias Slot = Unmanaged<ObserverDust>?
    /// A slot's index as an observer's place keeps it: 4 bytes, so that the place is small
    /// (`ObserverPlace`). A slab never holds more slots than that counts (`grow()` stops).
    @usableFromInline
    typealias Index = UInt32

    /// The slots, or `nil` before the first observer. The buffer keeps the slab's counts in
    /// its first 16 bytes, before the slots (`header(of:)`): so that the slab is one word in
    /// the value core, which keeps the core within glibc's 112-byte size class (issue 23's
    /// budget of bytes per live store; three `Int` counts took 24 bytes more).
    @usableFromInline
    private(set) var base: UnsafeMutablePointer<Slot>?

    /// Bytes before the slots: the three counts, as `UInt32`s (`grow()` keeps the
    /// capacity within `Index`), 12 bytes padded to 16, so that the slots that follow are
    /// aligned on every platform.
    @usableFromInline
    static let headerSize = 16

    /// The counts of a buffer (`count`, `live`, `capacity`), before its slots.
    @inlinable
    static func header(of base: UnsafeMutablePointer<Slot>) -> UnsafeMutablePointer<Index> {
        (UnsafeMutableRawPointer(base) - headerSize).assumingMemoryBound(to: Index.self)
    }

    /// Slots in use, holes included.
    @inlinable
    var count: Int {
        get { base.map { Int(Self.header(of: $0)[0]) } ?? 0 }
        // Set only while there is a buffer.
        set { Self.header(of: base.unsafelyUnwrapped)[0] = Index(truncatingIfNeeded: newValue) }
    }
    /// Live observers.
    @inlinable
    var live: Int {
        get { base.map { Int(Self.header(of: $0)[1]) } ?? 0 }
        set { Self.header(of: base.unsafelyUnwrapped)[1] = Index(truncatingIfNeeded: newValue) }
    }
    @inlinable
    var capacity: Int {
        get { base.map { Int(Self.header(of: $0)[2]) } ?? 0 }
        set { Self.header(of: base.unsafelyUnwrapped)[2] = Index(truncatingIfNeeded: newValue) }
    }

    @usableFromInline
    init() {}

    /// Whether `compact` would squeeze out holes worth squeezing.
    @inlinable
    var isSparse: Bool {
        count >= 16 && live * 2 < count
    }

    /// Appends `observer` (retaining it) and returns its slot.
    @inlinable
    mutating func append(_ observer: ObserverDust) -> Index {
        if count == capacity {
            grow()
        }
        // `base` is not nil: `grow()` made room. The slot holds a +1 reference (`Unmanaged`,
        // so that a round reads slots without retaining), given back by `remove(at:)`.
        base.unsafelyUnwrapped[count] = .passRetained(observer)
        count += 1
        live += 1
        // Fits: `grow()` keeps the capacity within `Index`.
        return Index(truncatingIfNeeded: count - 1)
    }

    /// Empties `slot` and returns its reference, for the caller to release.
    @inlinable
    mutating func remove(at slot: Index) -> Unmanaged<ObserverDust> {
        // The caller (the machine) knows `slot` holds an observer (its place says so), so
        // the buffer exists and the slot is filled.
        let pointer = base.unsafelyUnwrapped
        let reference = pointer[Int(slot)].unsafelyUnwrapped
        pointer[Int(slot)] = nil
        live -= 1
        if live == 0 {
            count = 0
        }
        return reference
    }

    /// Squeezes out holes, keeping order, and calls `moved` with each observer that moved
    /// and its new slot (the machine, which alone writes an observer's place, tells it).
    mutating func compact(_ moved: (ObserverDust, Index) -> Void) {
        guard let pointer = base else {
            return
        }
        var target = 0
        for source in 0..<count {
            guard let reference = pointer[source] else { continue }
            if source != target {
                pointer[target] = reference
                // The slab holds a +1 reference to each observer in it.
                reference._withUnsafeGuaranteedRef { moved($0, Index(truncatingIfNeeded: target)) }
            }
            target += 1
        }
        (pointer + target).update(repeating: nil, count: count - target)
        count = target
    }

    /// Takes every reference out, for the caller to release, and frees the buffer. (Each
    /// is one of the slab's +1 references, hence `Unmanaged`.)
    mutating func removeAll() -> [Unmanaged<ObserverDust>] {
        guard let pointer = base else { return [] }
        var references: [Unmanaged<ObserverDust>] = []
        references.reserveCapacity(live)
        for slot in 0..<count {
            if let reference = pointer[slot] {
                references.append(reference)
            }
        }
        pointer.deinitialize(count: capacity)
        (UnsafeMutableRawPointer(pointer) - Self.headerSize).deallocate()
        base = nil
        return references
    }

    /// The most slots `_checkInvariants()` looks at.
    static let wholeCheckLimit = 64

    /// The slots `_checkInvariants()` looks at, at most ``wholeCheckLimit`` of them: all of
    /// a slab of up to that many; else its first and last slots (where appends, removals
    /// and compaction work) and a window placed by the live count, which moves as
    /// observers come and go, so that a long run looks at every part of the slab.
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

    @usableFromInline
    mutating func grow() {
        let newCapacity = Swift.max(4, capacity * 2)
        // (As `UInt`: on 32-bit platforms, watchOS's arm64_32, `Int` cannot hold `Index.max`.)
        precondition(
            UInt(bitPattern: newCapacity) <= UInt(Index.max),
            "A value has more than \(UInt(Index.max) / 2 + 1) observers; FluxCapacitor counts observers in 32 bits.")
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: Self.headerSize + newCapacity * MemoryLayout<Slot>.stride,
            alignment: Swift.max(MemoryLayout<Index>.alignment, MemoryLayout<Slot>.alignment))
        let header = buffer.bindMemory(to: Index.self, capacity: 3)
        let newBase = (buffer + Self.headerSize).bindMemory(to: Slot.self, capacity: newCapacity)
        let (oldCount, oldLive, oldCapacity) = (count, live, capacity)
        if let old = base {
            newBase.moveInitialize(from: old, count: oldCapacity)
            (UnsafeMutableRawPointer(old) - Self.headerSize).deallocate()
        }
        (newBase + oldCapacity).initialize(repeating: nil, count: newCapacity - oldCapacity)
        header.initialize(to: Index(truncatingIfNeeded: oldCount))
        (header + 1).initialize(to: Index(truncatingIfNeeded: oldLive))
        (header + 2).initialize(to: Index(truncatingIfNeeded: newCapacity))
        base = newBase
    }
}

extension ObserverSlab {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Checks the slab's bookkeeping and that each observer knows its slot: compiled in
    /// only with `FLUXCAPACITOR_INTERNAL_CHECKS` (see `ValueCoreStateMachine`). It runs at
    /// every event of the value core, so it looks at a bounded number of slots
    /// (``slotsToCheck(count:live:)``): a slab of up to 64 whole, with its live count; a
    /// larger one at its two ends and one window that moves as observers come and go.
    func _checkInvariants() {
        precondition(
            0 <= live && live <= count && count <= capacity && (base == nil) == (capacity == 0),
            "ObserverSlab: internal inconsistency: counts (live \(live), count \(count), capacity \(capacity))")
        var found = 0
        for range in Self.slotsToCheck(count: count, live: live) {
            for slot in range {
                // `base` is not nil: `count` is at most `capacity`, which is 0 without a buffer.
                guard let reference = base.unsafelyUnwrapped[slot] else { continue }
                found += 1
                // The slab holds a +1 reference to each observer in it.
                let place = reference._withUnsafeGuaranteedRef { $0.place }
                precondition(
                    place == .inSlab(Index(slot)) || place == .leaving(Index(slot)),
                    "ObserverSlab: internal inconsistency: an observer in slot \(slot) thinks it is \(place)")
            }
        }
        precondition(
            count > Self.wholeCheckLimit || found == live,
            "ObserverSlab: internal inconsistency: \(found) observers, \(live) counted")
    }
    #else
    @inline(__always)
    func _checkInvariants() {}
    #endif
}

// The slab is owned and guarded by its value core; it is never sent anywhere on its own.
@available(*, unavailable)
extension ObserverSlab: Sendable {}
