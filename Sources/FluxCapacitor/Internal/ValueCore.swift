/// The shared state behind a ``Variable`` and the ``Constant``s made from it: the value,
/// its observers, and the machinery that delivers changes in order without holding a
/// lock while observers run.
///
/// ## Rounds
///
/// Setting the value starts a *round*: the setting thread becomes the core's `drainer`
/// and calls every observer with the new value, with the mutex released. While a round
/// runs, other work is handed to the drainer instead of waiting for it:
///
/// - a value set meanwhile (by an observer, or by another thread) is queued in
///   `pendingValues` and delivered by the drainer after the current round, so every
///   observer sees every value once, in the order they were set;
/// - an observer added meanwhile waits in `pendingAdds` and joins at the first round
///   after the version it registered at;
/// - an observer cleaned by the drainer itself leaves its slot at once (so it is not
///   called again in this round); one cleaned by another thread is queued in
///   `pendingRemovals` and removed between rounds.
///
/// Nobody ever waits for observers to return, so observers may set values, observe,
/// clean and dispatch without deadlock. A setter returns after its own round and those
/// queued behind it; a setter that found another thread's round running returns at once,
/// and that thread delivers its value. (A store's values are set only by `reduce`, under
/// the dispatcher's lock, so their rounds never overlap and `invoke` returns after its
/// observers ran.)
///
/// ## Dispatcher scopes
///
/// A value is delivered in the dispatcher scope it was set in (`Dispatcher.current` of
/// the setting thread), whoever delivers it: a value handed over to a round keeps the
/// scope it was set in beside it, and the drainer runs its round inside that scope
/// (`Dispatcher.withScope`), as does the observing thread for a value in a backlog. So
/// `.current` observers run in it, and `Mailbox` carries it to `.main` and `.queue`
/// observers. The scope is a reference stored beside the value: no allocation.
///
/// ## First values
///
/// `observe(ignoreFirst: false)` delivers the first value on the observing thread,
/// without making it a round: the observer has an entry in `backlogs` meanwhile, and a
/// round that reaches it queues its value there for the observing thread, which delivers
/// the backlog after the first value. So a slow first value holds up nobody else's
/// notifications, and the new observer still sees every value in order. Rounds take that
/// careful path only while `backlogs` is not empty. (The backlogs live in the core, not in
/// the observers, which stay small: an observer is one allocation per `observe`.)
///
/// ## Observation
///
/// A read through `.value` registers with Swift's Observation (`withObservationTracking`,
/// SwiftUI), making the core's `observation` bridge the first time. A change of a value
/// that has a bridge tells its registrar `willSet` before storing the value (without the
/// mutex, since trackers run there and may read the value) and `didSet` after its round;
/// a value without one skips Observation. Why deciding this in the critical section that
/// writes is safe is told at `observation`.
///
/// ## Releasing values
///
/// Values are let go of outside the mutex (a replaced value, queued values), because the
/// last release of a value runs its `deinit`, which may read, set or observe this value,
/// or dispatch.
///
/// The common paths (set, deliver, observe and finish with nothing handed over) are
/// inlinable, so that clients run them specialized for their element type; everything
/// rarer lives in non-inlinable methods.
@usableFromInline
final class ValueCore<Element: Sendable>: ValueCoreBase, @unchecked Sendable {
    // Sendable: `mutex` (in the base class) guards every stored var below.
    @usableFromInline
    typealias Record = ObserverRecord<Element>

    private struct PendingAdd {
        let record: Record
        let version: UInt64
    }

    /// The value. Read and written with `mutex` held; `Variable.value`'s `_modify` yields
    /// it between `lockForModify()` and `finishModify()`. Exclusivity is checked by
    /// `lockOrTrap()` rather than by the runtime.
    @usableFromInline
    @exclusivity(unchecked)
    var storage: Element
    /// Values set during a round, each with its version and the dispatcher scope it was
    /// set in (`nil` for none).
    @exclusivity(unchecked)
    private var pendingValues: [(value: Element, version: UInt64, scope: Dispatcher?)] = []
    @exclusivity(unchecked)
    private var pendingValuesHead = 0
    @exclusivity(unchecked)
    private var pendingAdds: [PendingAdd] = []
    @exclusivity(unchecked)
    private var pendingAddsHead = 0
    /// The observers whose first value the observing thread is delivering. Kept apart from
    /// the values queued for them, and not generic, so that a first delivery that no round
    /// disturbs (the common case) touches no storage of the element type: unspecialized
    /// code looks up the metadata of every generic type it touches, which cost an observe
    /// with its first value 2 µs.
    @usableFromInline
    @exclusivity(unchecked)
    var backlogRecords: [ObjectIdentifier] = []
    /// How many values `backlogValues` holds, for all observers.
    @exclusivity(unchecked)
    private var backlogCount = 0
    /// The values rounds handed an observer of `backlogRecords` meanwhile, each with the
    /// dispatcher scope it was set in. An observer with none has no entry.
    @exclusivity(unchecked)
    private var backlogValues: [ObjectIdentifier: [(value: Element, scope: Dispatcher?)]] = [:]

    @usableFromInline
    init(_ value: Element) {
        storage = value
        super.init()
    }

    // MARK: Value

    /// The value, read through `.value`: the read takes part in Swift's Observation (see
    /// `observation`). The library's own reads use `snapshot()`, which does not.
    @inlinable
    var value: Element {
        lockOrTrap()
        noteReadLocked()
        let value = storage
        mutex.unlock()
        return value
    }

    /// Sets the value. If it was ever read through `.value`, the registrar hears of the
    /// change: `willSet` before it (without the mutex, since trackers run there), `didSet`
    /// after the observers of this round ran.
    @inlinable
    func set(_ newValue: Element) {
        var replaced = newValue
        lockOrTrap()
        if let observation {
            mutex.unlock()
            observation._withUnsafeGuaranteedRef { $0.willSet() }
            lockOrTrap()
            swap(&storage, &replaced)
            didChangeLocked()
            observation._withUnsafeGuaranteedRef { $0.didSet() }
        } else {
            swap(&storage, &replaced)
            didChangeLocked()
        }
        // The old value goes here, after the unlock: its deinit may reach this value.
        withExtendedLifetime(replaced) {}
    }

    /// The value, copied for an in-place change through `Variable.value`, which changes the
    /// copy with no lock held and sets it back with `set(_:)`. Unlike `value`, not a read
    /// for Swift's Observation: the change tells the registrar `willSet` and `didSet`.
    @inlinable
    func copyForChange() -> Element {
        lockOrTrap()
        let value = storage
        mutex.unlock()
        return value
    }

    /// Locks for `Variable.update(_:)`'s change of `storage` in place (no copy of the old
    /// value), which `finishModify(_:)` ends and notifies. Returns the bridge to Observation if the
    /// value was ever read through `.value`, after telling its registrar `willSet`.
    @inlinable
    func lockForModify() -> Unmanaged<ObservationBridge>? {
        lockOrTrap()
        guard let observation else {
            // Nothing read the value through `.value` yet, and nothing can until the
            // change ends: reads need the mutex.
            return nil
        }
        mutex.unlock()
        observation._withUnsafeGuaranteedRef { $0.willSet() }
        lockOrTrap()
        return observation
    }

    /// Ends a change begun with `lockForModify()`: notifies, unlocks, and tells the
    /// registrar `didSet` if `lockForModify()` returned a bridge.
    @inlinable
    func finishModify(_ observation: Unmanaged<ObservationBridge>?) {
        didChangeLocked()
        observation?._withUnsafeGuaranteedRef { $0.didSet() }
    }

    /// Locks `mutex`; traps if this thread already holds it, which only a change inside
    /// `Variable.update(_:)` that reaches the value again can do.
    @inlinable
    func lockOrTrap() {
        if mutex.isHeldByCurrentThread {
            accessedWhileBeingModified()
        }
        mutex.lock()
    }

    @usableFromInline
    func accessedWhileBeingModified() -> Never {
        preconditionFailure(
            "Variable<\(Element.self)> was read, set or observed while its value was being changed in "
                + "place on the same thread: the closure of `variable.update { }` reached `variable` "
                + "again. Read what the change needs into a local before `update`, or change the value "
                + "with `variable.value.method()`, which holds no lock while the method runs.")
    }

    /// Call with `mutex` held, after `storage` changed; unlocks.
    @inlinable
    func didChangeLocked() {
        version &+= 1
        if roundState != 0 && handOffLocked(storage) {
            return
        }
        becomeDrainer()
        let value = storage
        let slots = observers.base
        let count = observers.count
        let besideFirstDeliveries = !backlogRecords.isEmpty
        mutex.unlock()
        deliverRound(value, slots: slots, count: count, besideFirstDeliveries: besideFirstDeliveries)
        finishDraining()
    }

    /// A round is running: queue `value`, with the dispatcher scope it is set in, for its
    /// drainer, and unlock. Returns `false` (still locked, nothing queued) if the round
    /// ended meanwhile. Call with `mutex` held.
    @usableFromInline
    func handOffLocked(_ value: Element) -> Bool {
        guard flagHandoff() else {
            return false
        }
        pendingValues.append((value, version, Dispatcher.scopeToCarry))
        mutex.unlock()
        return true
    }

    // MARK: Observers

    @inlinable
    func observe(
        on queue: ExecuteQueue,
        ignoreFirst: Bool,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = Record(
            link: link, queue: queue, handler: isKeptAliveByObservers ? keepingSelfAlive(changes) : changes)
        lockOrTrap()
        if roundState == 0 && ignoreFirst {
            record.state = .active(observers.append(record))
            mutex.unlock()
        } else {
            observeLocked(record, ignoreFirst: ignoreFirst)
        }
        return record
    }

    /// `changes`, holding this core until the observer lets go of it (when cleaned): how an
    /// observation keeps a derived value alive.
    @usableFromInline
    func keepingSelfAlive(
        _ changes: @escaping @Sendable (Element) -> Void
    ) -> @Sendable (Element) -> Void {
        { [self] value in
            withExtendedLifetime(self) { changes(value) }
        }
    }

    /// The value and its version, read together.
    func snapshot() -> (value: Element, version: UInt64) {
        lockOrTrap()
        defer { mutex.unlock() }
        return (storage, version)
    }

    /// Observes every value set after `version` (from a `snapshot()`): nothing at first if
    /// the value has not changed since, else the latest value first. So a caller that
    /// read a snapshot and then observes misses nothing and sees nothing twice.
    func observe(
        on queue: ExecuteQueue,
        after version: UInt64,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = Record(link: link, queue: queue, handler: changes)
        lockOrTrap()
        observeLocked(record, ignoreFirst: version == self.version)
        return record
    }

    /// `observe` when a first value is wanted or a round is running. Call with `mutex`
    /// held; unlocks.
    @usableFromInline
    func observeLocked(_ record: Record, ignoreFirst: Bool) {
        let drainer = self.drainer
        if drainer == ThreadID.current {
            observeInThisThreadsRound(record, ignoreFirst: ignoreFirst)
            return
        }
        if drainer != 0 && flagHandoff() {
            // Another thread's round: its drainer adds the observer at this version.
            pendingAdds.append(PendingAdd(record: record, version: version))
        } else {
            record.state = .active(observers.append(record))
        }
        guard !ignoreFirst, let handler = record.handler else {
            mutex.unlock()
            return
        }
        // Deliver the first value here, and what rounds queue for this observer meanwhile
        // after it.
        backlogRecords.append(ObjectIdentifier(record))
        let first = storage
        mutex.unlock()
        deliverFirst(first, to: record, handler: handler)
    }

    /// `observeLocked` inside a round on this thread: the first value goes out now, changes
    /// from the next version on come with the rounds, which cannot run before this thread
    /// is back in its round. Call with `mutex` held; unlocks. (Apart from `observeLocked`,
    /// so that its common path, unspecialized, needs no metadata of `Element?`.)
    private func observeInThisThreadsRound(_ record: Record, ignoreFirst: Bool) {
        _ = flagHandoff()
        pendingAdds.append(PendingAdd(record: record, version: version))
        let first = ignoreFirst ? nil : storage
        mutex.unlock()
        if let first {
            record.receive(first)
        }
    }

    /// Delivers an observer's first value, then its backlog, until the backlog is empty or
    /// the observer was cleaned. Call without `mutex`, after adding the record's backlog.
    private func deliverFirst(_ first: Element, to record: Record, handler: @escaping @Sendable (Element) -> Void) {
        record.receive(first, handler: handler)
        let id = ObjectIdentifier(record)
        mutex.lock()
        if backlogCount > 0 {
            deliverBacklogLocked(of: id, to: record)
        }
        backlogRecords.remove(at: backlogRecords.firstIndex(of: id)!)
        if backlogCount > 0, let undelivered = backlogValues.removeValue(forKey: id) {
            backlogCount -= undelivered.count
            mutex.unlock()
            // Values of a cleaned observer are let go of outside the lock.
            withExtendedLifetime(undelivered) {}
        } else {
            mutex.unlock()
        }
    }

    /// The number of observers, for tests.
    var observerCount: Int {
        mutex.withLock {
            var count = observers.live
            for index in pendingAddsHead..<pendingAdds.count {
                if case .pending = pendingAdds[index].record.state { count += 1 }
            }
            return count
        }
    }

    // MARK: Delivery

    /// Calls every observer in `slots` with `value`; `besideFirstDeliveries` (read with
    /// `mutex` held when the round started) says whether some may need it in their backlog.
    @inlinable
    func deliverRound(
        _ value: Element, slots: UnsafeMutablePointer<ObserverSlab.Slot>?, count: Int, besideFirstDeliveries: Bool
    ) {
        if besideFirstDeliveries {
            deliverRoundBesideFirstDeliveries(value, slots: slots, count: count)
            return
        }
        guard let slots else { return }
        for slot in 0..<count {
            // Re-read each slot: an observer may have cleaned a later one.
            if let reference = slots[slot] {
                // Every observer in this core's slab is a `Record`.
                reference._withUnsafeGuaranteedRef { unsafeDowncast($0, to: Record.self).receive(value) }
            }
        }
    }

    /// `deliverRound` while some observer's first value is being delivered by the thread
    /// that observes: such an observer gets `value` in its backlog, delivered after its
    /// first value by that thread.
    @usableFromInline
    func deliverRoundBesideFirstDeliveries(
        _ value: Element, slots: UnsafeMutablePointer<ObserverSlab.Slot>?, count: Int
    ) {
        guard let slots else { return }
        for slot in 0..<count {
            guard let reference = slots[slot] else { continue }
            reference._withUnsafeGuaranteedRef {
                let record = unsafeDowncast($0, to: Record.self)
                mutex.lock()
                let id = ObjectIdentifier(record)
                if backlogRecords.contains(id) {
                    // This round runs in the scope `value` was set in.
                    backlogValues[id, default: []].append((value, Dispatcher.scopeToCarry))
                    backlogCount += 1
                    mutex.unlock()
                } else {
                    mutex.unlock()
                    record.receive(value)
                }
            }
        }
    }

    /// Delivers what rounds queued for `record` while its first value was being delivered,
    /// until there is none or it is cleaned. Called and returns with `mutex` held, which it
    /// lets go of while each value is delivered.
    private func deliverBacklogLocked(of id: ObjectIdentifier, to record: Record) {
        while record.isInCore, let handler = record.handler, let next = takeBacklogValue(of: id) {
            mutex.unlock()
            Dispatcher.withScope(next.scope) { record.receive(next.value, handler: handler) }
            mutex.lock()
        }
    }

    /// Takes the next value queued for the observer `id` while its first value was being
    /// delivered, if any. Call with `mutex` held.
    private func takeBacklogValue(of id: ObjectIdentifier) -> (value: Element, scope: Dispatcher?)? {
        guard var values = backlogValues.removeValue(forKey: id) else { return nil }
        let next = values.removeFirst()
        backlogCount -= 1
        if !values.isEmpty {
            backlogValues[id] = values
        }
        return next
    }

    /// Stops being the drainer, after running whatever was handed over during the round.
    /// A round that nobody disturbed ends with one compare-and-exchange, without the lock.
    @inlinable
    func finishDraining() {
        if mutex.compareExchangeWord(expected: ThreadID.current, desired: 0) {
            return
        }
        mutex.lock()
        finishDrainingLocked()
    }

    /// Runs what was handed over during the round, then stops being the drainer. Call
    /// with `mutex` held; unlocks.
    @usableFromInline
    func finishDrainingLocked() {
        var skipped: [Record] = []
        while true {
            if !pendingRemovals.isEmpty {
                for observer in pendingRemovals {
                    if case .leaving(let slot) = observer.state {
                        retired.append(observers.remove(at: slot))
                    }
                    observer.state = .removed
                }
                pendingRemovals.removeAll(keepingCapacity: true)
            }
            if pendingAddsHead < pendingAdds.count {
                let add = pendingAdds[pendingAddsHead]
                if pendingValuesHead == pendingValues.count
                    || add.version < pendingValues[pendingValuesHead].version
                {
                    pendingAddsHead += 1
                    switch add.record.state {
                    case .pending:
                        break
                    case .cancelledWhilePending:
                        add.record.state = .removed
                        skipped.append(add.record)
                        continue
                    default:
                        // Cleaned by another thread, which retires it.
                        continue
                    }
                    add.record.state = .active(observers.append(add.record))
                    continue
                }
            }
            if pendingValuesHead < pendingValues.count {
                let next = pendingValues[pendingValuesHead]
                pendingValuesHead += 1
                let slots = observers.base
                let count = observers.count
                let besideFirstDeliveries = !backlogRecords.isEmpty
                mutex.unlock()
                Dispatcher.withScope(next.scope) {
                    deliverRound(next.value, slots: slots, count: count, besideFirstDeliveries: besideFirstDeliveries)
                }
                mutex.lock()
                continue
            }
            break
        }
        mutex.storeWord(0)
        // The delivered values are let go of after the unlock: their deinits may reach
        // this value.
        var delivered: [(value: Element, version: UInt64, scope: Dispatcher?)] = []
        if pendingValuesHead > 0 {
            swap(&delivered, &pendingValues)
            pendingValuesHead = 0
        }
        if pendingAddsHead > 0 {
            pendingAdds.removeAll(keepingCapacity: pendingAdds.count <= 64)
            pendingAddsHead = 0
        }
        if observers.isSparse {
            observers.compact()
        }
        var retired: [Unmanaged<ObserverDust>] = []
        if !self.retired.isEmpty {
            swap(&retired, &self.retired)
        }
        mutex.unlock()
        // Released outside the lock: a handler's captures may run user deinit code.
        for reference in retired {
            Self.retire(reference)
        }
        for record in skipped {
            record.retire()
        }
        withExtendedLifetime(delivered) {}
    }
}
