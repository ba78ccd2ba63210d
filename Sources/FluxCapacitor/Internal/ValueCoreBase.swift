/// The part of a value core that does not depend on the element type: the lock, the
/// observers, who is delivering, and what was handed over to them. See ``ValueCore`` for
/// how rounds work.
///
/// Kept apart from the generic core so that cleaning an observer, which `Dust.clean()`
/// reaches without knowing the element type, runs no generic code: generic code that is
/// not specialized looks up type metadata at run time, which costs more than the rest of
/// a clean.
@usableFromInline
class ValueCoreBase: @unchecked Sendable {
    // Sendable: `mutex` guards every stored var below, with one exception: while a round
    // runs, the slots of `observers` are read and cleared only by the drainer thread
    // (other threads queue their changes in `pendingAdds`/`pendingRemovals`). The round
    // state lives in the mutex's atomic word (see `roundState`). The fields skip the
    // runtime's dynamic exclusivity checks: the mutex already serializes them, and the
    // checks cost more than the rest of a set.

    /// Held only for short bookkeeping, never while observers run, except by
    /// `Variable.update(_:)`, which holds it while the caller's closure changes the value
    /// in place. So a thread that finds it holds the lock on entry is inside such a change,
    /// and is stopped with a clear message instead of deadlocking.
    @usableFromInline
    final let mutex = Lock()
    @usableFromInline
    @exclusivity(unchecked)
    final var version: UInt64 = 0
    @usableFromInline
    @exclusivity(unchecked)
    final var observers = ObserverSlab()

    /// The round state, in the mutex's atomic word: 0 when no round runs; otherwise the
    /// thread delivering it (the *drainer*), with bit 0 set once work was handed over to
    /// it (values, observers joining or leaving, observers to let go of).
    ///
    /// Only the drainer clears it without the mutex, and only from "drainer, nothing
    /// handed over" (`finishDraining()`'s compare-and-exchange), so that a round that
    /// nobody disturbed ends without taking the lock. Every other change is made with the
    /// mutex held.
    @inlinable
    final var roundState: UInt {
        mutex.word
    }

    /// The thread delivering a round, or 0.
    @inlinable
    final var drainer: UInt {
        roundState & ~1
    }

    /// Starts a round on this thread. Call with `mutex` held and no round running.
    @inlinable
    final func becomeDrainer() {
        mutex.storeWord(ThreadID.current)
    }

    /// Marks that work was handed over to the drainer. Call with `mutex` held. Returns
    /// `false` if no round runs any more (its drainer finished meanwhile), in which case
    /// the caller must do the work itself.
    @usableFromInline
    final func flagHandoff() -> Bool {
        while true {
            let state = roundState
            if state == 0 {
                return false
            }
            if state & 1 != 0 || mutex.compareExchangeWord(expected: state, desired: state | 1) {
                return true
            }
        }
    }

    /// The value's part in Swift's Observation, made by the first read through `.value`
    /// and never cleared; `nil` while nothing ever read the value that way, and then a
    /// change skips the registrar entirely.
    ///
    /// Why this is safe without a "tracked" flag that changes clear: a read sets it and
    /// registers with the registrar in one critical section of `mutex`, and a change looks
    /// at it in the critical section that writes the value. The mutex orders the two: if
    /// the read came first, the change sees the bridge and tells the registrar, so a
    /// `withObservationTracking` that installed its observer after that read hears of the
    /// change; if the change came first, the read returned the new value, so there was
    /// nothing to hear of. A flag that each change cleared would be wrong: a change between
    /// a read and the tracker's install (which Observation does after the read) would
    /// clear it, and the next change, after the install, would skip the registrar.
    ///
    /// Held retained (released in `deinit`) and used without retaining it again: a change
    /// runs while its caller holds the core, so the bridge outlives the call, and a retain
    /// and release per change would add to the cost of every tracked change.
    @usableFromInline
    @exclusivity(unchecked)
    final var observation: Unmanaged<ObservationBridge>?

    /// Records a read through `.value`: makes the bridge if this is the first, and tells
    /// the registrar (which calls no user code and takes no lock of ours). Call with
    /// `mutex` held.
    @usableFromInline
    final func noteReadLocked() {
        let observation = self.observation ?? makeObservation()
        observation._withUnsafeGuaranteedRef { $0.access() }
    }

    /// Makes the bridge to Observation. Call with `mutex` held, once.
    private final func makeObservation() -> Unmanaged<ObservationBridge> {
        let observation = Unmanaged.passRetained(ObservationBridge())
        self.observation = observation
        return observation
    }

    @exclusivity(unchecked)
    final var pendingRemovals: [ObserverDust] = []
    @exclusivity(unchecked)
    final var retired: [Unmanaged<ObserverDust>] = []
    /// What observers reach the core through; cut in `deinit`.
    @usableFromInline
    final let link = ObserverLink()

    /// For a derived value (`map`, `removeDuplicates()`): its observation of its source,
    /// cleaned when this core goes, and the source, which this core keeps alive. Set once,
    /// before the core is shared.
    @exclusivity(unchecked)
    final var upstream: (observation: Dust, source: AnyObject)?
    /// Whether an observation of this core keeps it alive until it is cleaned (derived
    /// values, which nobody else may hold). Set once, before the core is shared.
    @usableFromInline
    @exclusivity(unchecked)
    final var isKeptAliveByObservers = false

    @usableFromInline
    init() {
        link.attach(self)
    }

    deinit {
        observation?.release()
        upstream?.observation.clean()
        // After the cut, no observer is inside `remove(_:)` and none will enter it.
        link.cut()
        for reference in observers.removeAll() {
            Self.retire(reference)
        }
        mutex.deallocate()
    }

    /// What the caller of `remove(_:)` lets go of once it holds no lock.
    enum Leftover {
        /// The observer was never in the slab: let go of its handler.
        case retireObserver
        /// The slab's reference: let go of the handler, then of the reference.
        case retireSlot(Unmanaged<ObserverDust>)
    }

    /// Takes `observer` out; returns what the caller must retire after releasing its locks.
    final func remove(_ observer: ObserverDust) -> Leftover? {
        if mutex.isHeldByCurrentThread {
            preconditionFailure(
                "An observer of a Variable was cleaned while that Variable's value was being changed "
                    + "in place on the same thread (the closure of `variable.update { }` cleaned it). "
                    + "Clean it after the update.")
        }
        mutex.lock()
        switch observer.state {
        case .pending:
            // A pending observer exists only while a round with a hand-over flag runs.
            if drainer != ThreadID.current {
                // Not in a round of this thread: the caller retires it, and the drainer
                // skips it. (If its first value is being delivered, the thread delivering
                // it holds its own copy of the handler and stops after it.)
                observer.state = .removed
                mutex.unlock()
                return .retireObserver
            }
            // Its first value may be being delivered right now, on this thread: the
            // drainer retires it when its turn to join comes.
            observer.state = .cancelledWhilePending
        case .active(let slot):
            let drainer = self.drainer
            if drainer == ThreadID.current {
                // Called from an observer during a round: leave the slot now (so it is not
                // called again in this round), be let go of after the round.
                observer.state = .removed
                retired.append(observers.remove(at: slot))
                _ = flagHandoff()
            } else if drainer != 0 && flagHandoff() {
                observer.state = .leaving(slot)
                pendingRemovals.append(observer)
            } else {
                observer.state = .removed
                let reference = observers.remove(at: slot)
                if observers.isSparse {
                    observers.compact()
                }
                mutex.unlock()
                return .retireSlot(reference)
            }
        case .leaving, .removed, .cancelledWhilePending:
            break
        }
        mutex.unlock()
        return nil
    }

    /// Lets go of an observer that has left the slab: its handler, then the slab's
    /// reference.
    static func retire(_ reference: Unmanaged<ObserverDust>) {
        reference._withUnsafeGuaranteedRef { $0.retire() }
        reference.release()
    }
}
