import CFluxCapacitorShims

/// The part of a value core that does not depend on the element type: the lock and round
/// word, the state machine, and what a derived value holds on to.
/// `DeliveryCore` delivers values of a type to observers; `ValueCore` adds a stored value.
/// `Internal/README.md` tells how they work together.
///
/// Kept apart from the generic cores so that cleaning an observer, which `Dust.clean()`
/// reaches without knowing the element type, runs no generic code.
@usableFromInline
class ObserverCore: @unchecked Sendable {
    // Sendable: `lock` guards every stored var below, with one exception told at
    // `ValueCoreStateMachine.observers`: while a round runs, its drainer reads the slab's
    // slots without the lock.

    /// Held only for the machine's bookkeeping, never while observers run, except by
    /// `Variable.update(_:)`, which holds it while the caller's closure changes the value
    /// in place. So a thread that finds it holds the lock on entry is inside such a change,
    /// and is stopped with a clear message instead of deadlocking. Observers hold it too:
    /// it is how they reach the core (see `CoreLock`).
    @usableFromInline
    final let lock = CoreLock.make()
    // Unchecked: `lock` serializes the machine's events; checked, the rows `set` and `send`
    // of `Benchmarks/instructions` are half again and nine tenths dearer, and both go over
    // their budgets.
    @usableFromInline
    @exclusivity(unchecked)
    final var machine = ValueCoreStateMachine()

    /// For a derived value (`map`, `removeDuplicates()`, a signal's `map`,
    /// `Constant(combining:)`): its observation of its source, cleaned when this core goes,
    /// and the source, which this core keeps alive. Set once, before the core is shared.
    final var upstream: (observation: Dust, source: AnyObject)?

    /// Whether an observation of this core keeps it alive until it is cleaned: derived
    /// values, which nobody else may hold (those with an `upstream`). Known when the core is
    /// made, so that an observe reads a constant (reading `upstream` would be checked for
    /// exclusivity at run time: the row `observeClean30000` of `Benchmarks/instructions`
    /// 7% dearer).
    @usableFromInline
    final let isKeptAliveByObservers: Bool

    @usableFromInline
    init(isDerived: Bool) {
        isKeptAliveByObservers = isDerived
        lock.attach(self)
    }

    deinit {
        upstream?.observation.clean()
        // Once detached, no observer is inside `removeLocked(_:)` (reached through
        // `CoreLock.withCore`) and none will enter it.
        lock.detach()
        for observer in machine.removeAllObservers() {
            observer.releaseHandler()
        }
    }

    // MARK: The round word

    /// Whether a round runs, and who delivers it, in one word that the drainer clears
    /// without the lock when nobody handed it work (`CoreLock`'s element):
    /// - 0: no round runs.
    /// - a thread's identity `T` (its two lowest bits clear, see `cflux_current_thread`): `T`
    ///   delivers a round, and nothing was handed over to it, so `T` ends the round with one
    ///   compare-and-exchange (`T` → 0), without the lock (`finishRound()`). (Ending every
    ///   round under the lock made the row `set` of `Benchmarks/instructions` a tenth
    ///   dearer.)
    /// - `T | handedOverBit`: `T` delivers a round and was handed work, so its
    ///   compare-and-exchange fails and it ends the round under the lock (`nextStep`).
    /// - an observer's address `| loneFirstDeliveryBit`, and no round: the observer's first
    ///   value is being delivered and nothing else reached the machine since it observed,
    ///   so its thread ends the first delivery with one compare-and-exchange, without the
    ///   lock (`deliverFirst`). Any event that finds it ends it first (`roundLocked()`), so
    ///   that the exchange fails and the observing thread goes on under the lock.
    ///   (Without it, the row `observeClean30000` of `Benchmarks/instructions` is
    ///   8% dearer; a word of its own for it would make a live store's value core
    ///   16 bytes larger.)
    ///
    /// Set under the lock; cleared under the lock, or without it by the drainer from `T` and
    /// by the observing thread from its lone first delivery. Observers are 16-byte aligned
    /// and threads' identities 4-byte aligned, so the two bits are free.
    @usableFromInline
    static let handedOverBit: UInt = 1
    @usableFromInline
    static let loneFirstDeliveryBit: UInt = 2

    /// The round word of `observer`'s lone first delivery.
    @inlinable
    static func loneFirstDelivery(of observer: ObserverDust) -> UInt {
        UInt(bitPattern: ObjectIdentifier(observer)) | loneFirstDeliveryBit
    }

    /// The round as the machine sees it, with the lock held. A running round is flagged
    /// first (`T` → `T | handedOverBit`), so that its drainer ends it under the lock and
    /// finds the work this event hands it; a lone first delivery is ended in the word and
    /// goes on in the machine (`loneFirstDeliveryBecameOrdinary`).
    @inlinable
    final func roundLocked() -> ValueCoreStateMachine.Round {
        assert(lock.isHeldByCurrentThread)
        let word = lock.loadRound()
        if word == 0 {
            return .idle
        }
        return roundLockedSlowPath()
    }

    @usableFromInline
    final func roundLockedSlowPath() -> ValueCoreStateMachine.Round {
        while true {
            // At most three turns: only the lock-free ends change the word meanwhile, and
            // only to 0.
            let word = lock.loadRound()
            if word == 0 {
                return .idle
            }
            if word & Self.loneFirstDeliveryBit != 0 {
                // Its observing thread may end it meanwhile (word 0): then there is nothing
                // to keep.
                if lock.exchangeRound(expected: word, desired: 0) {
                    machine.loneFirstDeliveryBecameOrdinary(word & ~Self.loneFirstDeliveryBit)
                }
                continue
            }
            if word & Self.handedOverBit != 0
                || lock.exchangeRound(expected: word, desired: word | Self.handedOverBit)
            {
                return .running(drainer: word & ~Self.handedOverBit)
            }
        }
    }

    // MARK: Waiting for another thread's round

    /// How many times a thread looks at the round word, yielding the processor every eighth
    /// time, before it parks until the round ends (or, where it must not wait, hands its
    /// value over).
    @usableFromInline
    static let looksBeforeParking = 64

    /// With the lock held, for a change on this thread: waits its turn while another thread
    /// delivers a round, and returns the round as `roundLocked()` does, which stays so while
    /// the lock is held.
    ///
    /// So a change made while another thread delivers one waits and delivers its own value,
    /// as behind a plain lock: it looks at the round word a few times (a round usually ends
    /// within them: 4 threads setting one value, 15–16 ns a set, `Benchmarks/contention`),
    /// then parks until the round ends, using no processor meanwhile. Setters that keep
    /// setting behind a slow observer are slowed down to its pace, and no value waits for
    /// another thread to deliver it: memory stays flat, and each set returns once its own
    /// value reached the `.current` observers.
    ///
    /// A change hands its value over to the running round instead of waiting (the round's
    /// drainer delivers it after the current value) when waiting could deadlock:
    /// - on the drainer's own thread (a set from an observer): it would wait for itself;
    /// - on a thread that holds a dispatcher's mutex (a reduce, a `.current` observer of a
    ///   dispatch): the round's observers may dispatch to it;
    /// - when the drainer waits, directly or through other threads, for a round this thread
    ///   delivers (two threads whose observers set each other's values): `cflux_waits_add`
    ///   finds the cycle, and the last to come hands over.
    /// A first value being delivered is no round: it is not waited for.
    @inlinable
    final func waitForTurnLocked() -> ValueCoreStateMachine.Round {
        assert(lock.isHeldByCurrentThread)
        if lock.loadRound() == 0 {
            return .idle
        }
        return waitForTurnLockedSlowPath()
    }

    /// `waitForTurnLocked()` when a round or a first value is being delivered.
    @usableFromInline
    final func waitForTurnLockedSlowPath() -> ValueCoreStateMachine.Round {
        if Self.isRound(lock.loadRound(), of: ThreadID.current) == false {
            waitForOtherRoundLocked()
        }
        return roundLockedSlowPath()
    }

    /// `waitForTurnLocked()`'s wait: with the lock held on entry and on return. Returns
    /// with no round of another thread running, or, where this thread must not wait (see
    /// `waitForTurnLocked()`), with one running, for the change to hand its value over.
    private final func waitForOtherRoundLocked() {
        let thread = ThreadID.current
        var looks = 0
        while looks < Self.looksBeforeParking {
            lock.unlock()
            repeat {
                looks += 1
                if looks & 7 == 0 {
                    cflux_yield()
                }
            } while Self.isRound(lock.loadRound(), of: thread) == false && looks < Self.looksBeforeParking
            lock.lock()
            if Self.isRound(lock.loadRound(), of: thread) != false {
                return
            }
        }
        guard !Dispatcher.isDispatchingOnThisThread else { return }
        let core = Unmanaged.passUnretained(self).toOpaque()
        while true {
            let drainer = roundLockedSlowPath().drainer
            guard drainer != 0, drainer != thread else { return }
            guard cflux_waits_add(thread, drainer) else { return }
            machine.changeWaits()
            let count = cflux_park_count(core)
            _checkInvariants()
            lock.unlock()
            cflux_park(core, count)
            cflux_waits_remove(thread)
            lock.lock()
        }
    }

    /// How many changes on other threads wait for the running round to end (for tests).
    final var waitingChanges: Int {
        lock.withLock { machine.waitingChanges }
    }

    /// Whether `word` is a round of `thread` (true), of another thread (false), or no round
    /// at all (nil).
    @usableFromInline
    static func isRound(_ word: UInt, of thread: UInt) -> Bool? {
        guard word != 0, word & loneFirstDeliveryBit == 0 else { return nil }
        return word & ~handedOverBit == thread
    }

    // MARK: Observation and observers

    /// Whether something read the value through `.value`, so that its changes tell
    /// Observation's registrar (for tests; only a `ValueCore` has a value to read).
    var hasObservationBridge: Bool {
        false
    }

    /// Takes `observer` out (the machine's `remove` event); returns what the caller lets go
    /// of once it holds no lock. Call with `lock` held; keeps it.
    final func removeLocked(_ observer: ObserverDust) -> ValueCoreStateMachine.RemoveAction {
        assert(lock.isHeldByCurrentThread)
        let action = machine.remove(observer, round: roundLocked(), thread: ThreadID.current)
        _checkInvariants()
        return action
    }
}

extension ObserverCore {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// The machine's invariants, and the round word's against it: while work is handed over
    /// the handed-over bit is set (only locked code sets or clears it; an event that handed
    /// nothing over may have set it too, which costs the drainer a locked end), and a lone
    /// first delivery has no round and no other first delivery beside it. Call with `lock`
    /// held.
    @usableFromInline
    final func _checkInvariants() {
        machine._checkInvariants()
        let word = lock.loadRound()
        if word & Self.loneFirstDeliveryBit != 0 {
            guard !machine.isHandedOver && machine.firstDeliveries.isEmpty else {
                fatalError("ObserverCore: internal inconsistency: a lone first delivery beside a round or another")
            }
        } else if machine.isHandedOver {
            guard word & Self.handedOverBit != 0 else {
                fatalError("ObserverCore: internal inconsistency: work handed over without the round word's bit")
            }
        }
    }
    #else
    @inlinable
    final func _checkInvariants() {}
    #endif
}
