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
final class ValueCore<Element: Sendable>: DeliveryCore<Element>, @unchecked Sendable {
    // Sendable: `lock` (in the base class) guards `storage`.

    /// The value. Read and written with `lock` held; `Variable.update(_:)` changes it in
    /// place between `lockForUpdate()` and `deliverUpdateAndUnlock(_:)`. Exclusivity is
    /// checked by `lockOrTrap()` rather than by the runtime.
    @usableFromInline
    @exclusivity(unchecked)
    var storage: Element

    @usableFromInline
    init(_ value: Element) {
        storage = value
        super.init()
    }

    // MARK: Value

    /// Sets the value. If it was ever read through `.value`, the registrar hears of the
    /// change: `willSet` before it (without the lock, since trackers run there), `didSet`
    /// after the observers of this round ran.
    @inlinable
    func set(_ newValue: Element) {
        var replaced = newValue
        let observation = lockForUpdate()
        swap(&storage, &replaced)
        deliverUpdateAndUnlock(observation)
        // The old value goes here, after the unlock: its deinit may reach this value.
        withExtendedLifetime(replaced) {}
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
    func read() -> Element {
        lockOrTrap()
        let value = storage
        lock.unlock()
        return value
    }

    /// Locks for a change of `storage` (a set, or `Variable.update(_:)`'s change in place),
    /// which `deliverUpdateAndUnlock(_:)` ends. Returns the bridge to Observation if the
    /// value was ever read through `.value`, after telling its registrar `willSet`.
    @inlinable
    func lockForUpdate() -> Unmanaged<ObservationBridge>? {
        lockOrTrap()
        guard let observation else {
            // Nothing read the value through `.value` yet, and nothing can until the
            // change ends: reads need the lock.
            return nil
        }
        lock.unlock()
        observation._withUnsafeGuaranteedRef { $0.willSet() }
        lockOrTrap()
        return observation
    }

    /// Ends a change begun with `lockForUpdate()`: delivers the new value, unlocks, and
    /// tells the registrar `didSet` if `lockForUpdate()` returned a bridge.
    @inlinable
    func deliverUpdateAndUnlock(_ observation: Unmanaged<ObservationBridge>?) {
        assert(lock.isHeldByCurrentThread)
        deliverChangeAndUnlock(storage)
        observation?._withUnsafeGuaranteedRef { $0.didSet() }
    }

    /// Locks `lock`; traps if this thread already holds it, which only a change inside
    /// `Variable.update(_:)` that reaches the value again can do.
    @inlinable
    func lockOrTrap() {
        if lock.isHeldByCurrentThread {
            accessedWhileBeingModified()
        }
        lock.lock()
    }

    @usableFromInline
    func accessedWhileBeingModified() -> Never {
        preconditionFailure(
            "Variable<\(Element.self)> was read, set or observed while its value was being changed in "
                + "place on the same thread: the closure of `variable.update { }` reached `variable` "
                + "again. Read what the change needs into a local before `update`, or change the value "
                + "with `variable.value.method()`, which holds no lock while the method runs.")
    }

    /// The value and its version, read together.
    func snapshot() -> (value: Element, version: UInt64) {
        lockOrTrap()
        defer { lock.unlock() }
        return (storage, machine.version)
    }

    // MARK: Observers

    @inlinable
    func observe(
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
    func observe(
        on queue: ExecuteQueue,
        after version: UInt64,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = Record(link: link, queue: queue, handler: changes)
        lockOrTrap()
        observeAndUnlock(record, wantsFirst: version != machine.version)
        return record
    }

    /// The machine's `observe` event, and the first value if it says so. Call with `lock`
    /// held; unlocks.
    @inlinable
    func observeAndUnlock(_ record: Record, wantsFirst: Bool) {
        assert(lock.isHeldByCurrentThread)
        let action = machine.observe(record, wantsFirst: wantsFirst, thread: ThreadID.current)
        if action == .nothing {
            lock.unlock()
        } else {
            deliverFirstValueAndUnlock(record, action)
        }
    }

    /// Carries out the machine's first-value actions. Call with `lock` held; unlocks.
    @usableFromInline
    func deliverFirstValueAndUnlock(_ record: Record, _ action: ValueCoreStateMachine.ObserveAction) {
        assert(lock.isHeldByCurrentThread)
        let first = storage
        machine._checkInvariants()
        lock.unlock()
        guard let handler = record.handler else {
            preconditionFailure("FluxCapacitor internal inconsistency: a new observer without a handler")
        }
        if action == .deliverFirstValue {
            deliverFirst(first, to: record, handler: handler)
        } else {
            record.receive(first, handler: handler)
        }
    }
}
