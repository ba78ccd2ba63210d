public import CFluxCapacitorShims  // `now()` is inlinable (the module is public in Dispatcher+Current.swift too).

/// What a `DispatchFileRecorder` (FluxCapacitorPersistence) hears of a dispatcher: a
/// narrower hook than the dispatch log (``Dispatcher/observeDispatches(_:)``), and the
/// recorder's buffer with it. A log subscriber gets two ``DispatchEvent``s per dispatch,
/// each boxing the state in an existential (an allocation for a state bigger than three
/// words) and each a call of a closure; a dispatch appends the state to a tape as its own
/// type, in code specialized for it (`record(_:reachesStore:)` is inlinable, and so is
/// the dispatcher's logged path that calls it), under the tape's lock: a recorded dispatch
/// costs less than twice a plain one and allocates nothing
/// (`Benchmarks/instructions --filter dispatchRecorder`).
///
/// The tape keeps, in sequence order, an entry per recorded state (its sequence number,
/// time, type and whether a store reduced it) and, per recorded type, the states
/// themselves, in a buffer of their own type (made by the recorder, which knows the
/// types); and the entries of the values its listener (the recorder) writes down before a
/// step: every `checkpointInterval` steps, when asked (`wantsCheckpoint`), and when a store
/// is made. The recorder's writer takes what waits with `take(into:)`.
///
/// **Threads and locks.** `record` and `didMake` run on the dispatching thread, holding
/// the dispatcher's mutex, which serializes them and guards `sequence` and
/// `stepsSinceCheckpoint`; `lock` (rank `.tape`, a leaf) guards the rest, and is held for a
/// few loads and stores. The listener's methods run holding the dispatcher's mutex and not
/// the tape's lock: they may read values (ranks 5–6) and take the lock to append.
@usableFromInline
package final class DispatchTape: @unchecked Sendable {
    // Sendable: see "Threads and locks" above. The states are of recorded types, which
    // are Sendable (`DispatchFileRecorder.RecordedType.state` requires it).

    /// A step or a store's values, waiting for the writer.
    @usableFromInline
    package struct Entry: Sendable {
        @usableFromInline
        package enum Kind: UInt8, Sendable {
            case step, droppedStep
            /// A store made while recording: its values (kept by the listener).
            case madeStoreValues
            /// The values of a checkpoint, one per recorded type: the first, and the others.
            case checkpointStart, checkpointValues
        }

        package var sequence: UInt64
        /// Seconds since 1970, UTC.
        package var time: Double
        package var type: Int32
        package var kind: Kind

        @usableFromInline
        package init(sequence: UInt64, time: Double, type: Int32, kind: Kind) {
            self.sequence = sequence
            self.time = time
            self.type = type
            self.kind = kind
        }
    }

    @usableFromInline
    let lock = Lock.make(.tape)
    /// The recorded state types, in the recorder's order.
    @usableFromInline
    let identifiers: [ObjectIdentifier]
    /// Each recorded type's states, in the same order.
    package let buffers: [DispatchTapeBuffer]
    /// The same, unretained (`buffers` holds them): recording a state reaches its buffer
    /// with no retain and release (with them, the row `dispatchRecorderOn` of
    /// `Benchmarks/instructions` is 7% dearer).
    @usableFromInline
    let unretainedBuffers: [Unmanaged<DispatchTapeBuffer>]
    @usableFromInline
    let capacity: Int
    @usableFromInline
    let checkpointInterval: Int
    /// Told of what the tape cannot do by itself. Weak: the listener holds the tape. (Its
    /// side table costs nothing here: the listener is reached on rare paths only.)
    @usableFromInline
    package weak var listener: (any DispatchTapeListener)?

    /// What the dispatcher's mutex guards.
    @usableFromInline
    struct Dispatching {
        @usableFromInline
        var sequence: UInt64 = 0
        @usableFromInline
        var stepsSinceCheckpoint = 0
        @inlinable
        init() {}
    }

    /// What `lock` guards.
    @usableFromInline
    struct Guarded {
        @usableFromInline
        var entries: [Entry] = []
        @usableFromInline
        var isWriterAwake = false
        @usableFromInline
        var isClosed = false
        @usableFromInline
        var wantsCheckpoint = false
        @usableFromInline
        var droppedWhileBehind = 0
        @inlinable
        init() {}
    }

    // `@exclusivity(unchecked)`: a lock serializes each (checked, each group's accesses make
    // the row `dispatchRecorderOn` of `Benchmarks/instructions` 13% dearer).
    @usableFromInline
    @exclusivity(unchecked)
    var dispatching = Dispatching()
    @usableFromInline
    @exclusivity(unchecked)
    var guarded = Guarded()

    /// A tape of the states of the types `identifiers`, each into the buffer of the same
    /// place; at most `capacity` entries wait; a checkpoint every `checkpointInterval` steps.
    package init(
        identifiers: [ObjectIdentifier], buffers: [DispatchTapeBuffer], capacity: Int, checkpointInterval: Int,
        listener: any DispatchTapeListener
    ) {
        self.identifiers = identifiers
        self.buffers = buffers
        unretainedBuffers = buffers.map(Unmanaged.passUnretained)
        self.capacity = capacity
        self.checkpointInterval = max(checkpointInterval, 1)
        self.listener = listener
        guarded.entries.reserveCapacity(capacity)
    }

    // MARK: The dispatching thread

    /// Records `state`, dispatched and about to be reduced (or dropped: `reachesStore` is
    /// `false`). Call holding the dispatcher's mutex.
    @inlinable
    func record<State: DispatchState>(_ state: State, reachesStore: Bool) {
        guard let index = identifiers.firstIndex(of: ObjectIdentifier(State.self)) else {
            listener?.heardUnrecorded(State.self)
            return
        }
        let time = Self.now()
        dispatching.sequence &+= 1
        lock.lock()
        if _slowPath(dispatching.stepsSinceCheckpoint >= checkpointInterval || guarded.wantsCheckpoint) {
            // The values are read without `lock` (each value's lock ranks before it).
            lock.unlock()
            listener?.takeCheckpoint(before: dispatching.sequence, time: time)
            lock.lock()
        }
        guard !guarded.isClosed, guarded.entries.count < capacity else {
            if !guarded.isClosed {
                guarded.droppedWhileBehind += 1
            }
            lock.unlock()
            return
        }
        dispatching.stepsSinceCheckpoint += 1
        unretainedBuffers[index]._withUnsafeGuaranteedRef { buffer in
            // The recorder made this buffer for this type.
            unsafeDowncast(buffer, to: TypedDispatchTapeBuffer<State>.self).pending.append(state)
        }
        guarded.entries.append(
            Entry(
                sequence: dispatching.sequence, time: time, type: Int32(index),
                kind: reachesStore ? .step : .droppedStep))
        let wakes = !guarded.isWriterAwake
        guarded.isWriterAwake = true
        lock.unlock()
        if wakes {
            listener?.wakeWriter()
        }
    }

    /// Tells the listener of a store made. Call holding the dispatcher's mutex.
    func didMake(_ store: any Storable) {
        listener?.didMake(store, before: dispatching.sequence &+ 1)
    }

    /// Seconds since 1970, UTC (inline C: `cflux_realtime_seconds`).
    @inlinable
    package static func now() -> Double {
        cflux_realtime_seconds()
    }

    // MARK: The listener

    /// Appends the entries of a store's values (the listener keeps the values, in the same
    /// order, under this lock too) and, for a checkpoint, starts counting steps anew.
    /// Call holding `lock` (and, for a checkpoint, the dispatcher's mutex).
    package func appendValuesLocked(_ entries: [Entry]) {
        guarded.entries.append(contentsOf: entries)
        if entries.first?.kind == .checkpointStart {
            dispatching.stepsSinceCheckpoint = 0
            guarded.wantsCheckpoint = false
        }
    }

    /// Runs `body` holding `lock`.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try lock.withLock(body)
    }

    /// Whether the writer was idle, marking it awake: the caller wakes it.
    package func wakesWriterLocked() -> Bool {
        defer { guarded.isWriterAwake = true }
        return !guarded.isWriterAwake
    }

    // MARK: The writer

    /// What the writer takes: the entries waiting (swapped with `spare`, empty), their
    /// states (each buffer's pending states moved to its writer's side), and the count of
    /// states dropped so far; runs `alsoLocked` holding the lock (the listener takes its
    /// values and its own bookkeeping). With nothing waiting, the writer is idle again.
    package func take(into spare: inout [Entry], alsoLocked: () -> Bool) -> Int {
        lock.lock()
        defer { lock.unlock() }
        swap(&spare, &guarded.entries)
        for buffer in buffers {
            buffer.takePendingLocked()
        }
        let more = alsoLocked()
        if spare.isEmpty && !more {
            guarded.isWriterAwake = false
        }
        return guarded.droppedWhileBehind
    }

    /// Asks for a checkpoint before the next step (the file starts again).
    package func askForCheckpoint() {
        lock.withLock { guarded.wantsCheckpoint = true }
    }

    /// Records nothing more; returns whether it was open.
    package func close() -> Bool {
        lock.withLock {
            defer { guarded.isClosed = true }
            return !guarded.isClosed
        }
    }

    /// The count of states dropped so far, and how many steps wait.
    package var counts: (dropped: Int, waiting: Int) {
        lock.withLock {
            (guarded.droppedWhileBehind, guarded.entries.count(where: { $0.kind == .step || $0.kind == .droppedStep }))
        }
    }
}

/// A recorded type's states on a tape: made by the recorder as a
/// ``TypedDispatchTapeBuffer`` of the type.
@usableFromInline
package class DispatchTapeBuffer: @unchecked Sendable {
    // Sendable: see `TypedDispatchTapeBuffer`.

    package init() {}

    /// Moves what is pending to the writer's side; call holding the tape's lock, with the
    /// writer's side empty.
    func takePendingLocked() {}
}

/// A recorded type's states on a tape, as their own type: no existential box, and room for
/// the tape's capacity reserved, so that recording a state allocates nothing.
@usableFromInline
package final class TypedDispatchTapeBuffer<State: DispatchState>: DispatchTapeBuffer, @unchecked Sendable {
    // Sendable: `pending` is guarded by the tape's lock (appended on the dispatching
    // thread); `taken` is the writer's, used on its queue only (and swapped with `pending`
    // under the lock). The states are of a recorded type, which is Sendable.
    // `@exclusivity(unchecked)`: the lock serializes `pending`'s accesses (checked, the row
    // `dispatchRecorderOn` of `Benchmarks/instructions` is 14% dearer).
    @usableFromInline
    @exclusivity(unchecked)
    var pending: [State] = []
    @usableFromInline
    package var taken: [State] = []

    @usableFromInline
    package init(capacity: Int) {
        pending.reserveCapacity(capacity)
        taken.reserveCapacity(capacity)
    }

    override func takePendingLocked() {
        swap(&pending, &taken)
    }
}

/// What a tape tells its recorder; on the dispatching thread, holding the dispatcher's
/// mutex and not the tape's lock.
@usableFromInline
package protocol DispatchTapeListener: AnyObject, Sendable {
    /// A state came while the writer was idle: wake it.
    func wakeWriter()
    /// A checkpoint is due before step `sequence`: read the stores' values and append them
    /// (`appendValuesLocked`).
    func takeCheckpoint(before sequence: UInt64, time: Double)
    /// A state of a type not recorded was dispatched.
    func heardUnrecorded(_ type: Any.Type)
    /// The dispatcher made `store` (its `init()` returned), before step `sequence`.
    func didMake(_ store: any Storable, before sequence: UInt64)
}

extension Dispatcher {
    /// Records every dispatch on `tape` (and tells it of every store made), until the
    /// returned ``Dust`` is cleaned. `starting` runs first, holding the dispatcher's mutex,
    /// so that no dispatch comes between what it reads (the live stores, with
    /// ``liveStoreHoldingMutex(of:)``) and the first one recorded.
    ///
    /// Cleaning the dust takes the dispatcher's mutex to take the tape out (unlike a log
    /// subscriber's, which a dispatch checks each time: a tape costs a dispatch nothing
    /// beyond its own record). So clean it where a dispatch may be waited for: not from a
    /// thread a dispatch of this dispatcher waits for. It holds the dispatcher until then
    /// (not weakly: a weak reference gives the dispatcher a side table, and every retain of
    /// it in a dispatch the slow path).
    package func addTape(_ tape: DispatchTape, starting: () -> Void) -> Dust {
        withMutex {
            starting()
            tapes.append(tape)
            dispatching.hasLogSubscribers = true
        }
        return Dust {
            self.withMutex {
                self.tapes.removeAll { $0 === tape }
                self.dispatching.hasLogSubscribers = !self.logSubscribers.isEmpty || !self.tapes.isEmpty
            }
        }
    }

    /// The live instance of `type`, if any, never making one. Call holding the
    /// dispatcher's mutex: in `addTape`'s `starting`, or in a tape listener's method.
    @usableFromInline
    package func liveStoreHoldingMutex<Store: Storable>(of type: Store.Type) -> Store? {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.liveStoreHoldingMutex: mutex not held")
        return registry.liveInstanceDispatching(of: type)
    }
}

/// Guarded by the dispatcher's mutex; it never crosses a thread on its own.
@available(*, unavailable)
extension DispatchTape.Dispatching: Sendable {}

/// Guarded by the tape's lock; it never crosses a thread on its own.
@available(*, unavailable)
extension DispatchTape.Guarded: Sendable {}
