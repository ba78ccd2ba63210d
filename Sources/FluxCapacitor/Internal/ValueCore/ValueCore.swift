public import CFluxCapacitorShims

/// The generic half of a value core, in one file so that a set walks three files (the
/// public setter, this one, the state machine): `DeliveryCore` (the rounds), `ValueCore`
/// (a stored value on top of them) and `ObserverRecord` (one observer, with its handler;
/// `MailboxObserverRecord` for one on a queue).
/// The non-generic half is `ObserverCore`, `ObserverDust` and the machine.

// MARK: - ValueCore

/// The shared state behind a ``Variable`` and the ``Constant``s made from it: a stored
/// value, on top of `DeliveryCore`'s rounds (see `Internal/README.md` for the states and
/// events). What this class adds:
///
/// - **Reads and changes.** The value is read and written with `lock` held; a change is
///   delivered as `DeliveryCore` delivers any value.
/// - **First values.** `observe(ignoreFirst: false)` delivers the current value on the
///   observing thread, without making it a round: the machine counts what rounds queue
///   for the observer meanwhile, delivered after the first value. So a slow first value
///   holds up nobody else's notifications, and the new observer still sees every value in
///   order.
/// - **Observation.** A read through the public `.value` registers with Swift's
///   Observation, making the core's `observation` bridge the first time; that read is
///   `PrimitiveValue.readNotingObservation()`, outside the core, so that the library's own
///   reads (`read()`, `snapshot()`) cannot note one. A change of a value that has a bridge
///   tells its registrar `willSet` before storing the value (without the lock, since
///   trackers run there and may read the value) and `didSet` after its round.
/// - **Releasing values.** A replaced value is let go of outside the lock, because its last
///   release runs its `deinit`, which may read, set or observe this value, or dispatch.
@usableFromInline
class ValueCore<Element: Sendable>: DeliveryCore<Element>, @unchecked Sendable {
    // Sendable: `lock` (in the base class) guards `storage`.

    /// The value, and its part in Swift's Observation. Read and written with `lock` held;
    /// `Variable.update(_:)` changes the value in place between `lockForUpdate()` and
    /// `deliverUpdateAndUnlock(_:)`. Exclusivity is checked by `lockOrTrap()` rather than
    /// by the runtime.
    // Unchecked: `lock` serializes every access (an update's in-place change included);
    // checked, the rows `set` and `dispatch` of `Benchmarks/instructions` are half again
    // as dear, and both go over their budgets.
    @usableFromInline
    @exclusivity(unchecked)
    final var storage: Storage

    /// What `storage` holds.
    @usableFromInline
    struct Storage {
        /// The value.
        @usableFromInline
        var element: Element
        /// The value's part in Swift's Observation, made by the first read through `.value`
        /// and never cleared; `nil` while nothing ever read the value that way, and then a
        /// change skips the registrar entirely.
        ///
        /// Why this is safe without a "tracked" flag that changes clear: a read sets it and
        /// registers with the registrar in one critical section, and a change looks at it
        /// in the critical section that writes the value. The lock orders the two: if the
        /// read came first, the change sees the bridge and tells the registrar; if the
        /// change came first, the read returned the new value, so there was nothing to hear
        /// of. So the registrar is told of every change after the first read, and a tracker
        /// hears each one made after Observation installed it. Observation installs a
        /// tracker after the tracked read: a change in between reaches the registrar before
        /// the tracker is there, and is not heard, as for an `@Observable` class
        /// (ObservationSemanticsTests). A flag that each change cleared would be worse: a
        /// change between a read and the install would clear it, and the next change, after
        /// the install, would skip the registrar too.
        ///
        /// Held retained (+1, released in `deinit`) and used without retaining it again
        /// (`withBridge`).
        @usableFromInline
        var observation: Unmanaged<ObservationBridge>?

        @usableFromInline
        init(element: Element) {
            self.element = element
        }
    }

    @usableFromInline
    init(_ value: Element, isDerived: Bool = false) {
        storage = Storage(element: value)
        super.init(isDerived: isDerived)
    }

    deinit {
        storage.observation?.release()
    }

    override final var hasObservationBridge: Bool {
        lock.withLock { storage.observation != nil }
    }

    /// Records a read through `.value`: makes the bridge if this is the first, and tells
    /// the registrar (which calls no user code and takes no lock of ours). Call with
    /// `lock` held; keeps it. Only `PrimitiveValue.readNotingObservation()`, the public
    /// getters' read, calls it (`LibraryReadsTests` checks).
    @usableFromInline
    final func noteReadLocked() {
        assert(lock.isHeldByCurrentThread)
        (storage.observation ?? makeObservationLocked()).withBridge { $0.access() }
    }

    private func makeObservationLocked() -> Unmanaged<ObservationBridge> {
        assert(lock.isHeldByCurrentThread)
        // +1, held by `storage.observation` until `deinit` releases it.
        let observation = Unmanaged.passRetained(ObservationBridge())
        storage.observation = observation
        return observation
    }

    // MARK: Value

    /// Sets the value. If it was ever read through `.value`, the registrar hears of the
    /// change (`setAndUnlock`).
    ///
    /// The walk of a set (`Internal/README.md`): this, `deliverChangeAndUnlock` and the
    /// machine's `change`, and on this thread `deliverRound`, which calls each observer's
    /// handler.
    @inlinable
    final func set(_ newValue: Element) {
        var replaced = newValue
        lockOrTrap()
        if lock.loadRound() == 0 && storage.observation == nil {
            // The usual set: no round runs, and nothing read the value through `.value`.
            swap(&storage.element, &replaced)
            deliverChangeAndUnlock(storage.element, round: .idle)
        } else {
            setAndUnlock(&replaced)
        }
        // The old value goes here, after the unlock: its deinit may reach this value.
        withExtendedLifetime(replaced) {}
    }

    /// `set` when a round or a first value is being delivered, or when the value was read
    /// through `.value`: waits its turn behind another thread's round (`waitForTurnLocked`),
    /// and tells the registrar `willSet` before the change (without the lock, since
    /// trackers run there and may read the value) and `didSet` after the observers of this
    /// round ran. Call with `lock` held; unlocks. `newValue` is swapped for the value it
    /// replaces.
    // Always inlined: left to the optimizer, the row `setOfReadValue` of
    // `Benchmarks/instructions` is a little dearer, more than issue 33 allowed (5% over that
    // row as it was before the issue).
    @inlinable
    @inline(__always)
    final func setAndUnlock(_ newValue: inout Element) {
        // Its first steps are `lockedForUpdate()`'s, written again: calling it (an `Update`
        // made and read) made the row `setOfReadValue` 5% dearer.
        assert(lock.isHeldByCurrentThread)
        let observation = storage.observation
        if let observation {
            lock.unlock()
            observation.withBridge { $0.willSet() }
            lock.lock()
        }
        let round = waitForTurnLocked()
        swap(&storage.element, &newValue)
        deliverChangeAndUnlock(storage.element, round: round)
        observation?.withBridge { $0.didSet() }
    }

    /// The value, for the library's own reads: a derived value comparing with what it
    /// holds, or an in-place change through `Variable.value`, which changes this copy with
    /// no lock held and sets it back with `set(_:)`.
    ///
    /// Not a read for Swift's Observation, and the core has no read that is: only the public
    /// getters note one (`PrimitiveValue.readNotingObservation()`), so no code of the
    /// library that holds a core (derived values, bindings, `values`, persistence, the
    /// testing recorders) can make a tracking scope it runs in depend on the value, or
    /// give the value a bridge that every later change pays for.
    @inlinable
    final func read() -> Element {
        lockOrTrap()
        let value = storage.element
        lock.unlock()
        return value
    }

    /// Locks for a change of `storage` in place (`Variable.update(_:)`), which
    /// `deliverUpdateAndUnlock(_:)` ends; tells the registrar `willSet` and waits its turn
    /// as `setAndUnlock` does. Returns the bridge to Observation if the value was ever read
    /// through `.value` (if not, nothing can read it until the change ends: reads need the
    /// lock).
    @inlinable
    final func lockForUpdate() -> Update {
        lockOrTrap()
        return lockedForUpdate()
    }

    /// What `lockForUpdate()` found, for `deliverUpdateAndUnlock(_:)`.
    @usableFromInline
    struct Update {
        @usableFromInline
        let observation: Unmanaged<ObservationBridge>?
        @usableFromInline
        let round: ValueCoreStateMachine.Round

        @inlinable
        init(observation: Unmanaged<ObservationBridge>?, round: ValueCoreStateMachine.Round) {
            self.observation = observation
            self.round = round
        }
    }

    /// Ends a change begun with `lockForUpdate()`: delivers the new value, unlocks, and
    /// tells the registrar `didSet` if `lockForUpdate()` found a bridge.
    @inlinable
    final func deliverUpdateAndUnlock(_ update: Update) {
        assert(lock.isHeldByCurrentThread)
        deliverChangeAndUnlock(storage.element, round: update.round)
        update.observation?.withBridge { $0.didSet() }
    }

    /// Begins an in-place change through `Variable.value` (`value.append(x)`,
    /// `value[k] = v`) that holds the value for the change, as `update(_:)` does, so that it
    /// changes the stored value where it is instead of a copy: returns what
    /// `endChangeInPlace(_:)` needs, or `nil` when the change must read and set back a copy
    /// instead.
    ///
    /// Only inside a dispatch (this thread holds a dispatcher's mutex): code there is
    /// synchronous, so the change cannot `await` while it holds the value, and other
    /// threads wait for it only as long as the change itself takes. Outside a dispatch an
    /// in-place access may suspend at an `await`, or nest in another (`swap`), which a held
    /// value could deadlock; it changes a copy there, as it always did.
    ///
    /// Traps when this thread already holds a value for an in-place change (two in-place
    /// changes nested, as `swap(&a.value, &b.value)` makes them: two threads nesting them
    /// in opposite orders would deadlock), naming the fix.
    @inlinable
    final func beginChangeInPlace() -> Update? {
        guard cflux_is_dispatching() else { return nil }
        if let held = cflux_core_changing_in_place() {
            changedInPlaceWhileChangingInPlace(held)
        }
        let update: Update
        lockOrTrap()
        if _fastPath(lock.loadRound() == 0 && storage.observation == nil) {
            // The usual change, as the usual set: no round runs, nothing read `.value`.
            update = Update(observation: nil, round: .idle)
        } else {
            update = lockedForUpdate()
        }
        cflux_set_core_changing_in_place(Unmanaged.passUnretained(self).toOpaque())
        return update
    }

    /// The stored value, moved out of `storage` for an in-place change begun with
    /// `beginChangeInPlace()`, so that the caller's code changes it without a copy: its
    /// storage stays uninitialized until `moveInAndEndChange(_:_:)`, which nothing reads
    /// meanwhile (the lock is held, and this thread's own reads trap first).
    // An unsafe move, so that `Variable.value`'s `_modify` has one `yield` (see there).
    @inlinable
    final func moveOutForChange(_: Update) -> Element {
        withUnsafeMutablePointer(to: &storage.element) { $0.move() }
    }

    /// Ends an in-place change begun with `beginChangeInPlace()`: puts the changed value
    /// back, and delivers it to the observers (after unlocking, as `update(_:)` does).
    @inlinable
    final func moveInAndEndChange(_ value: Element, _ update: Update) {
        withUnsafeMutablePointer(to: &storage.element) { $0.initialize(to: value) }
        endChangeInPlace(update)
    }

    /// Ends an in-place change begun with `beginChangeInPlace()`, the value being in
    /// `storage`: delivers it to the observers (after unlocking, as `update(_:)` does).
    @inlinable
    final func endChangeInPlace(_ update: Update) {
        cflux_set_core_changing_in_place(nil)
        deliverUpdateAndUnlock(update)
    }

    /// `lockForUpdate()` with the lock already held: tells the registrar `willSet` and
    /// waits its turn. (Inlinable, so that it runs specialized: `Update` is generic.)
    @inlinable
    final func lockedForUpdate() -> Update {
        assert(lock.isHeldByCurrentThread)
        let observation = storage.observation
        if let observation {
            lock.unlock()
            observation.withBridge { $0.willSet() }
            lock.lock()
        }
        return Update(observation: observation, round: waitForTurnLocked())
    }

    /// The trap for an in-place change begun while this thread holds `held` for another.
    @usableFromInline
    final func changedInPlaceWhileChangingInPlace(_ held: UnsafeMutableRawPointer) -> Never {
        if held == Unmanaged.passUnretained(self).toOpaque() {
            accessedWhileBeingModified()
        }
        fatalError(
            "Variable<\(Element.self)> was changed in place while another variable was being changed in "
                + "place on the same thread, inside a dispatch (for example `swap(&a.value, &b.value)` in "
                + "`reduce(with:)`). In a dispatch an in-place change holds its variable until it ends, and "
                + "two held at once could deadlock with another thread holding them in the other order. "
                + "Change one at a time: `let first = a.value; a.value = b.value; b.value = first`.")
    }

    /// Locks `lock`; traps if this thread already holds it, which only a change inside
    /// `Variable.update(_:)`, or inside an in-place change in a dispatch, that reaches the
    /// value again can do.
    @inlinable
    final func lockOrTrap() {
        if lock.isHeldByCurrentThread {
            accessedWhileBeingModified()
        }
        lock.lock()
    }

    @usableFromInline
    final func accessedWhileBeingModified() -> Never {
        fatalError(
            "Variable<\(Element.self)> was read, set or observed while its value was being changed in "
                + "place on the same thread: the closure of `variable.update { }`, or code run inside an "
                + "in-place change in a dispatch (the closure of `variable.value.removeAll(where:)`, a "
                + "mutating method of the value, the deinit of an element the change let go of), reached "
                + "`variable` again. Read what the change needs into a local before the change, and "
                + "let go of elements whose deinit needs the variable after it.")
    }

    /// The value and its version, read together. (The lock taken here, not through
    /// `lockOrTrap()`: combined values read their sources unspecialized, from inside a
    /// pack expansion, where that is a call of its own.)
    @inlinable
    final func snapshot() -> (value: Element, version: UInt64) {
        if lock.isHeldByCurrentThread {
            accessedWhileBeingModified()
        }
        lock.lock()
        defer { lock.unlock() }
        return (storage.element, machine.version)
    }

    // MARK: Observers

    @inlinable
    final func observe(
        on queue: ExecuteQueue,
        ignoreFirst: Bool,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = makeRecord(on: queue, changes: changes)
        lockOrTrap()
        observeAndUnlock(record, wantsFirst: !ignoreFirst)
        return record
    }

    /// Observes every value set after `version` (from a `snapshot()`): nothing at first if
    /// the value has not changed since, else the latest value first. So a caller that
    /// read a snapshot and then observes misses nothing and sees nothing twice.
    @usableFromInline
    final func observe(
        on queue: ExecuteQueue,
        after version: UInt64,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = Record.make(link: lock, queue: queue, handler: changes)
        lockOrTrap()
        observeAndUnlock(record, wantsFirst: version != machine.version)
        return record
    }

    /// The machine's `observe` event, and the first value if it says so. Call with `lock`
    /// held; unlocks.
    @inlinable
    final func observeAndUnlock(_ record: Record, wantsFirst: Bool) {
        assert(lock.isHeldByCurrentThread)
        let action = machine.observe(record, wantsFirst: wantsFirst, round: roundLocked(), thread: ThreadID.current)
        switch action {
        case .nothing:
            _checkInvariants()
            lock.unlock()
        case .deliverLoneFirstValue:
            lock.storeRound(Self.loneFirstDelivery(of: record))
            deliverFirstValueAndUnlock(record, action)
        case .deliverFirstValue, .deliverFirstValueInOwnRound:
            deliverFirstValueAndUnlock(record, action)
        }
    }

    /// Carries out the machine's first-value actions. Call with `lock` held; unlocks.
    /// Inlinable, so that the first value is copied and passed specialized for its type (as
    /// an unspecialized call it went through the type's value witnesses, and the rows
    /// `observeClean3000` and `observeClean30000` of `Benchmarks/instructions` were
    /// 6% dearer).
    @inlinable
    final func deliverFirstValueAndUnlock(_ record: Record, _ action: ValueCoreStateMachine.ObserveAction) {
        assert(lock.isHeldByCurrentThread)
        let first = storage.element
        _checkInvariants()
        lock.unlock()
        guard let handler = record.handler else {
            fatalError("FluxCapacitor internal inconsistency: a new observer without a handler")
        }
        if action == .deliverFirstValueInOwnRound {
            handler(first)
        } else {
            deliverFirst(first, to: record, handler: handler)
        }
    }
}

// MARK: - DeliveryCore

/// Delivers values of one type to observers, in rounds, without holding a lock while
/// observers run: the core of a ``Sink`` and its ``Signal``s, and the delivering half of a
/// ``Variable``'s core (`ValueCore`, which adds the stored value and first values).
///
/// Every decision, and every piece of bookkeeping, is the state machine's
/// (`ValueCoreStateMachine`, in `ObserverCore`); this class carries out its actions, each
/// in one `switch`: it calls observers, and lets go of observers and values outside the
/// lock, because the last release of either may run user `deinit` code that reaches this
/// core. `Internal/README.md` draws the states and events.
///
/// The common paths (a change, a round, observe and finish with nothing handed over) are
/// inlinable, so that clients run them specialized for their element type; everything
/// rarer lives in non-inlinable methods.
@usableFromInline
class DeliveryCore<Element: Sendable>: ObserverCore, @unchecked Sendable {
    // Sendable: no stored state of its own; `ObserverCore` says what guards its fields.
    @usableFromInline
    typealias Record = ObserverRecord<Element>

    /// A core of values; a derived one (`isDerived`) is kept alive by its observations.
    @usableFromInline
    override init(isDerived: Bool = false) {
        super.init(isDerived: isDerived)
    }

    // MARK: Changes

    /// Delivers `value` (stored already, or sent) as the machine's `change` says: as a
    /// round on this thread, or handed over to the round that runs. Call with `lock`
    /// held, after `waitForTurnLocked()` found `round`; unlocks.
    // Always inlined: left to the optimizer, the rows `set` and `dispatch` of
    // `Benchmarks/instructions` are 16% and 8% dearer (`set` over its budget).
    @inlinable
    @inline(__always)
    final func deliverChangeAndUnlock(_ value: Element, round: ValueCoreStateMachine.Round) {
        assert(lock.isHeldByCurrentThread)
        let thread = ThreadID.current
        switch machine.change(value, round: round) {
        case .deliverRound(let delivery):
            lock.storeRound(thread)
            lock.unlock()
            deliverRound(value, to: delivery)
            finishRound()
        case .handedOver:
            _checkInvariants()
            lock.unlock()
        }
    }

    /// Delivers `value` to every observer, without storing it: what a ``Sink`` sends.
    @inlinable
    final func send(_ value: Element) {
        lock.lock()
        deliverChangeAndUnlock(value, round: waitForTurnLocked())
    }

    /// A value the machine held (handed over, or queued behind a first value), back as the
    /// element it was made from.
    @usableFromInline
    static func element(of waiting: ValueCoreStateMachine.WaitingValue) -> Element {
        guard let element = waiting.value as? Element else {
            fatalError("DeliveryCore: internal inconsistency: a waiting value is not a \(Element.self)")
        }
        return element
    }

    // MARK: Observers

    /// Observes the values from the next change on (no first value).
    @inlinable
    final func observeChanges(
        on queue: ExecuteQueue,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = makeRecord(on: queue, changes: changes)
        lock.lock()
        _ = machine.observe(record, wantsFirst: false, round: roundLocked(), thread: ThreadID.current)
        _checkInvariants()
        lock.unlock()
        return record
    }

    /// The observer of `changes` on `queue`, made for a user's `observe`: on a derived core
    /// (`isKeptAliveByObservers`), its handler holds the core until the observer is cleaned.
    @inlinable
    final func makeRecord(on queue: ExecuteQueue, changes: @escaping @Sendable (Element) -> Void) -> Record {
        Record.make(link: lock, queue: queue, handler: isKeptAliveByObservers ? keepingSelfAlive(changes) : changes)
    }

    /// `changes`, holding this core until the observer lets go of it (when cleaned): how an
    /// observation keeps a derived value alive.
    @usableFromInline
    final func keepingSelfAlive(
        _ changes: @escaping @Sendable (Element) -> Void
    ) -> @Sendable (Element) -> Void {
        // Held as the non-generic base class: kept alive as `DeliveryCore<Element>`, the
        // closure (unspecialized in a derived value) looked up that class's generic metadata
        // at every delivery (the row `map` of `Benchmarks/instructions` was nearly three fifths dearer).
        let core: ObserverCore = self
        return { value in
            withExtendedLifetime(core) { changes(value) }
        }
    }

    /// Delivers an observer's first value, then what rounds queued for it meanwhile, until
    /// none is left or it was cleaned (the machine's `nextOfFirstDelivery`). Call without
    /// `lock`, after the machine's `observe` said `.deliverFirstValue`.
    ///
    /// A lone first delivery (nothing reached the machine since the observe) ends with one
    /// compare-and-exchange of the round word, without the lock, as an undisturbed round
    /// does; an event that reached the machine meanwhile made it an ordinary first delivery,
    /// so the exchange fails and the machine says what comes next
    /// (`continueFirstDelivery(to:handler:)`, not inlined).
    @inlinable
    final func deliverFirst(_ first: Element, to record: Record, handler: @escaping @Sendable (Element) -> Void) {
        handler(first)
        if lock.exchangeRound(expected: Self.loneFirstDelivery(of: record), desired: 0) {
            return
        }
        continueFirstDelivery(to: record, handler: handler)
    }

    /// The rest of a first delivery that was not lone: what rounds queued for the observer
    /// meanwhile, until none is left or it was cleaned (the machine's `nextOfFirstDelivery`).
    @usableFromInline
    final func continueFirstDelivery(to record: Record, handler: @escaping @Sendable (Element) -> Void) {
        repeat {
            lock.lock()
            _checkInvariants()
        } while carryOutAndUnlock(machine.nextOfFirstDelivery(record), for: record, handler: handler)
    }

    /// Carries out the machine's `nextOfFirstDelivery` action. Call with `lock` held;
    /// unlocks. Returns whether the first delivery goes on. (A function of its own so that
    /// the value in `action` is let go of when it returns, before the caller locks again.)
    private final func carryOutAndUnlock(
        _ action: consuming ValueCoreStateMachine.NextOfFirstDeliveryAction, for record: Record,
        handler: @escaping @Sendable (Element) -> Void
    ) -> Bool {
        assert(lock.isHeldByCurrentThread)
        switch consume action {
        case .deliver(let next):
            lock.unlock()
            Dispatcher.withScope(next.scope) { handler(Self.element(of: next)) }
            return true
        case .ended:
            lock.unlock()
            return false
        case .endedDropping(let dropped):
            lock.unlock()
            // Let go of outside the lock: a value's deinit may reach this core.
            withExtendedLifetime(dropped) {}
            return false
        }
    }

    /// The number of observers, for tests.
    var observerCount: Int {
        lock.withLock { machine.observerCount }
    }

    // MARK: Rounds

    /// Calls every observer of `delivery` with `value`, on its queue.
    // Always inlined: left to the optimizer, the rows `set` and `send` of
    // `Benchmarks/instructions` are 14% and 17% dearer (`set` over its budget).
    @inlinable
    @inline(__always)
    final func deliverRound(_ value: Element, to delivery: ValueCoreStateMachine.Delivery) {
        if delivery.besideFirstDeliveries {
            deliverRoundBesideFirstDeliveries(value, to: delivery)
            return
        }
        guard var slot = delivery.slots else { return }
        let end = slot + delivery.count
        while slot < end {
            defer { slot += 1 }
            // Re-read each slot: an observer may have cleaned a later one.
            if let reference = slot.pointee {
                // Unretained: the slab holds a +1 reference to each observer in it, and
                // only this thread (the drainer) takes one out during the round, after
                // its call. Every observer in this core's slab is a `Record`. (Retained, the
                // row `notify3000` of `Benchmarks/instructions` is a tenth dearer.)
                reference._withUnsafeGuaranteedRef {
                    unsafeDowncast($0, to: Record.self).handler?(value)
                }
            }
        }
    }

    /// `deliverRound` while some observer's first value is being delivered by the thread
    /// that observes: the machine says which (its `reach` event), and such an observer gets
    /// `value` queued, delivered after its first value by that thread.
    @usableFromInline
    final func deliverRoundBesideFirstDeliveries(_ value: Element, to delivery: ValueCoreStateMachine.Delivery) {
        guard let slots = delivery.slots else { return }
        // This round runs in the scope `value` was set in.
        let waiting: ValueCoreStateMachine.WaitingValue = (value, Dispatcher.scopeToCarry)
        for slot in 0..<delivery.count {
            guard let reference = slots[slot] else { continue }
            // A rare path: plain code (a retain, a checked cast), not `deliverRound`'s.
            let record = reference.takeUnretainedValue() as! Record
            lock.lock()
            let action = machine.reach(ObjectIdentifier(record), with: waiting)
            _checkInvariants()
            lock.unlock()
            switch action {
            case .deliver: record.handler?(value)
            case .queued: break
            }
        }
    }

    /// Ends this thread's round, after delivering what was handed over to it. A round
    /// that nobody disturbed ends with one compare-and-exchange, without the lock.
    @inlinable
    final func finishRound() {
        if lock.exchangeRound(expected: ThreadID.current, desired: 0) {
            return
        }
        lock.lock()
        finishRoundAndUnlock()
    }

    /// Delivers what was handed over to this thread's round, step by step as the machine
    /// says, until the round ends. Call with `lock` held; unlocks.
    @usableFromInline
    final func finishRoundAndUnlock() {
        assert(lock.isHeldByCurrentThread)
        _checkInvariants()
        while carryOutAndUnlock(machine.nextStep()) {
            lock.lock()
            _checkInvariants()
        }
    }

    /// Carries out the machine's `nextStep` action. Call with `lock` held; unlocks.
    /// Returns whether the round goes on. (A function of its own so that the value in
    /// `action` is let go of when it returns, before the caller locks again.)
    private final func carryOutAndUnlock(_ action: ValueCoreStateMachine.NextStepAction) -> Bool {
        assert(lock.isHeldByCurrentThread)
        switch action {
        case .deliver(let next, let delivery):
            lock.unlock()
            Dispatcher.withScope(next.scope) { deliverRound(Self.element(of: next), to: delivery) }
            return true
        case .ended(let left, let wakeWaitingChanges):
            lock.storeRound(0)
            _checkInvariants()
            lock.unlock()
            if wakeWaitingChanges {
                cflux_unpark_all(Unmanaged.passUnretained(self).toOpaque())
            }
            // Let go of outside the lock: a handler's captures may run user deinit code.
            for observer in left {
                observer.releaseHandler()
            }
            return false
        }
    }
}

// MARK: - ObserverRecord

/// One observer of a value core: its handler. It is also the ``Dust`` handed to the
/// caller of `observe`.
///
/// It is the one allocation of an `observe` on ``ExecuteQueue/current``, so keep it small:
/// 56 bytes, glibc's 64-byte size class (issue 23's budget of 88 bytes per observer, with
/// the slab's slot: the row `observerMemory` of `Benchmarks/instructions`). `Dust` keeps its
/// state in one enum word, which
/// holds the core's lock (the way back to the core) until the observer is cleaned. One more
/// field once made observe + clean 20–40% slower
/// (`Benchmarks/compare --filter 'observe.*'`). Rare state belongs in the core, or in the
/// subclass for observers on a queue (`MailboxObserverRecord`).
@usableFromInline
class ObserverRecord<Element: Sendable>: ObserverDust, @unchecked Sendable {
    // Sendable: `handler` is read by the thread delivering a round while the observer is
    // in the core's slab, and set to nil by `releaseHandler()` only after it has left the
    // slab (the core's lock orders the two), so that a cleaned observer's captures are
    // released even while someone still holds its dust.
    /// What a round calls with each value: the observer's closure, or for an observer on a
    /// queue, a closure that posts the value to its mailbox.
    // Unchecked: the core's lock orders the drainer's reads and `releaseHandler()`'s
    // write; checked, the rows `set` and `observeClean30000` of `Benchmarks/instructions`
    // are half again and a fifth dearer, and both go over their budgets.
    @usableFromInline
    @exclusivity(unchecked)
    final var handler: (@Sendable (Element) -> Void)?

    @usableFromInline
    init(link: CoreLock, handler: @escaping @Sendable (Element) -> Void) {
        self.handler = handler
        super.init(link: link)
    }

    /// The observer of `handler` on `queue`: this class for ``ExecuteQueue/current``, a
    /// `MailboxObserverRecord` for the others.
    @inlinable
    static func make(
        link: CoreLock, queue: ExecuteQueue, handler: @escaping @Sendable (Element) -> Void
    ) -> ObserverRecord {
        if case .current = queue {
            return ObserverRecord(link: link, handler: handler)
        }
        return MailboxObserverRecord(link: link, queue: queue, handler: handler)
    }

    override final func releaseHandler() {
        handler = nil
    }
}

/// An observer on ``ExecuteQueue/main`` or ``ExecuteQueue/queue(_:)``: its handler posts
/// each value to its mailbox, which calls the observer's closure on the queue, in order.
@usableFromInline
final class MailboxObserverRecord<Element: Sendable>: ObserverRecord<Element>, @unchecked Sendable {
    // Sendable: `mailbox` is immutable (and a `Mailbox` is Sendable).
    let mailbox: Mailbox<Element>

    @usableFromInline
    init(link: CoreLock, queue: ExecuteQueue, handler: @escaping @Sendable (Element) -> Void) {
        let mailbox: Mailbox<Element>
        switch queue {
        case .current:
            fatalError("MailboxObserverRecord: internal inconsistency: an observer on .current")
        case .main: mailbox = Mailbox(target: nil)
        case .queue(let target): mailbox = Mailbox(target: target)
        }
        self.mailbox = mailbox
        super.init(link: link) { value in mailbox.deliver(value, to: handler) }
    }

    override func dropQueuedDeliveries() {
        mailbox.dropQueued()
    }
}

/// The storage is read and written under the core's lock only; it never crosses a thread
/// on its own.
@available(*, unavailable)
extension ValueCore.Storage: Sendable {}

/// What one thread found under the lock, for that same thread to deliver.
@available(*, unavailable)
extension ValueCore.Update: Sendable {}
