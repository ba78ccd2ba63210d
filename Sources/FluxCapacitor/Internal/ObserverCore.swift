/// The part of a value core that does not depend on the element type: the lock, the state
/// machine, the link observers reach it through, and what a derived value holds on to.
/// `DeliveryCore` delivers values of a type to observers; `ValueCore` adds a stored value.
/// `Internal/README.md` tells how they work together.
///
/// Kept apart from the generic cores so that cleaning an observer, which `Dust.clean()`
/// reaches without knowing the element type, runs no generic code.
@usableFromInline
class ObserverCore: @unchecked Sendable {
    // Sendable: `lock` guards every stored var below, with two exceptions told at
    // `ValueCoreStateMachine`: while a round runs, its drainer reads the slab's slots
    // without the lock, and ends an undisturbed round with an atomic compare-and-exchange.
    // The fields skip the runtime's dynamic exclusivity checks: the lock already
    // serializes them, and the checks cost more than the rest of a set.

    /// Held only for the machine's bookkeeping, never while observers run, except by
    /// `Variable.update(_:)`, which holds it while the caller's closure changes the value
    /// in place. So a thread that finds it holds the lock on entry is inside such a change,
    /// and is stopped with a clear message instead of deadlocking.
    @usableFromInline
    final let lock: Lock
    /// The machine's round word, read here by a drainer ending its round without the lock:
    /// reading it through `machine` would be an access to the machine that races with the
    /// mutations other threads make under the lock. Found from the lock, which shares its
    /// allocation (`Lock.makeWithAtomicWord()`): no field of its own.
    @inlinable
    final var round: AtomicWord {
        lock.atomicWordBeside
    }
    // Unchecked: `lock` serializes the machine's events; the runtime's check would cost
    // more than the rest of a set.
    @usableFromInline
    @exclusivity(unchecked)
    final var machine: ValueCoreStateMachine
    /// What observers reach the core through; detached in `deinit`.
    @usableFromInline
    final let link = ObserverLink()

    /// The value's part in Swift's Observation (see `ValueCore`), made by the first read
    /// through `.value` and never cleared; `nil` while nothing ever read the value that
    /// way, and then a change skips the registrar entirely.
    ///
    /// Why this is safe without a "tracked" flag that changes clear: a read sets it and
    /// registers with the registrar in one critical section, and a change looks at it in
    /// the critical section that writes the value. The lock orders the two: if the read
    /// came first, the change sees the bridge and tells the registrar; if the change came
    /// first, the read returned the new value, so there was nothing to hear of. So the
    /// registrar is told of every change after the first read, and a tracker hears each
    /// one made after Observation installed it. Observation installs a tracker after the
    /// tracked read: a change in between reaches the registrar before the tracker is
    /// there, and is not heard, as for an `@Observable` class (ObservationSemanticsTests).
    /// A flag that each change cleared would be worse: a change between a read and the
    /// install would clear it, and the next change, after the install, would skip the
    /// registrar too.
    ///
    /// Held retained (released in `deinit`) and used without retaining it again: a change
    /// runs while its caller holds the core, so the bridge outlives the call, and a retain
    /// and release per change would add to the cost of every tracked change.
    // Unmanaged: +1, released in `deinit`. Unchecked: written once under `lock`, read
    // under it (a change reads it in the critical section that writes the value).
    @usableFromInline
    @exclusivity(unchecked)
    final var observation: Unmanaged<ObservationBridge>?

    /// For a derived value (`map`, `removeDuplicates()`, a signal's `map`,
    /// `Constant(combining:)`): its observation of its source, cleaned when this core goes,
    /// and the source, which this core keeps alive. Set once, before the core is shared.
    // Unchecked: set once before the core is shared, then read only by `deinit` and by
    // combinations walking their sources.
    @exclusivity(unchecked)
    final var upstream: (observation: Dust, source: AnyObject)?

    /// Whether an observation of this core keeps it alive until it is cleaned: derived
    /// values, which nobody else may hold (those with an `upstream`).
    @usableFromInline
    final var isKeptAliveByObservers: Bool {
        upstream != nil
    }

    @usableFromInline
    init() {
        // One allocation for both (`deallocateWithAtomicWord()` in `deinit`).
        let (lock, round) = Lock.makeWithAtomicWord()
        self.lock = lock
        machine = ValueCoreStateMachine(round: round)
        link.attach(self)
    }

    deinit {
        observation?.release()
        upstream?.observation.clean()
        // Once detached, no observer is inside `remove(_:)` and none will enter it.
        link.detach()
        for reference in machine.removeAllObservers() {
            ObserverDust.release(reference)
        }
        lock.deallocateWithAtomicWord()
    }

    /// Records a read through `.value`: makes the bridge if this is the first, and tells
    /// the registrar (which calls no user code and takes no lock of ours). Call with
    /// `lock` held; keeps it. Only `PrimitiveValue.readNotingObservation()`, the public
    /// getters' read, calls it (`LibraryReadsTests` checks).
    @usableFromInline
    final func noteReadLocked() {
        assert(lock.isHeldByCurrentThread)
        let observation = self.observation ?? makeObservationLocked()
        // Unretained: this core holds the bridge (+1) until its deinit.
        observation._withUnsafeGuaranteedRef { $0.access() }
    }

    private final func makeObservationLocked() -> Unmanaged<ObservationBridge> {
        // +1, held by `observation` until `deinit` releases it.
        let observation = Unmanaged.passRetained(ObservationBridge())
        self.observation = observation
        return observation
    }

    /// Takes `observer` out (the machine's `remove` event); returns what the caller lets go
    /// of once it holds no lock.
    final func remove(_ observer: ObserverDust) -> ValueCoreStateMachine.RemoveAction {
        if lock.isHeldByCurrentThread {
            preconditionFailure(
                "An observer of a Variable was cleaned while that Variable's value was being changed "
                    + "in place on the same thread (the closure of `variable.update { }` cleaned it). "
                    + "Clean it after the update.")
        }
        lock.lock()
        let action = machine.remove(observer, thread: ThreadID.current)
        machine._checkInvariants()
        lock.unlock()
        return action
    }
}
