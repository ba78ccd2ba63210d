/// Delivers values of one type to observers, in rounds, without holding a lock while
/// observers run: the core of a ``Sink`` and its ``Signal``s, and the delivering half of a
/// ``Variable``'s core (`ValueCore`, which adds the stored value and first values).
///
/// Every decision is the state machine's (`ValueCoreStateMachine`, in `ObserverCore`);
/// this class carries out its actions: it calls observers, keeps the values the machine
/// queues (in the same order), and lets go of observers and values outside the lock,
/// because the last release of either may run user `deinit` code that reaches this core.
/// `Internal/README.md` draws the states and events.
///
/// The common paths (a change, a round, observe and finish with nothing handed over) are
/// inlinable, so that clients run them specialized for their element type; everything
/// rarer lives in non-inlinable methods.
@usableFromInline
class DeliveryCore<Element: Sendable>: ObserverCore, @unchecked Sendable {
    // Sendable: `lock` (in the base class) guards the stored vars below.
    @usableFromInline
    typealias Record = ObserverRecord<Element>

    /// The values handed over to the running round, each with the dispatcher scope it was
    /// set in (`nil` for none), in the order of the machine's versions.
    @exclusivity(unchecked)
    private final var handedOverValues = FIFO<(value: Element, scope: Dispatcher?)>()
    /// The values rounds queued for observers whose first value is being delivered, each
    /// with its scope, in the numbers the machine counts. An observer with none has no
    /// entry.
    @exclusivity(unchecked)
    private final var queuedForFirstDelivery: [ObjectIdentifier: FIFO<(value: Element, scope: Dispatcher?)>] = [:]

    @usableFromInline
    override init() {
        super.init()
    }

    // MARK: Changes

    /// Delivers `value` (stored already, or sent) as the machine's `change` says: as a
    /// round on this thread, or handed over to the round that runs. Call with `lock`
    /// held; unlocks.
    @inlinable
    final func deliverChangeAndUnlock(_ value: Element) {
        assert(lock.isHeldByCurrentThread)
        guard let delivery = machine.change(thread: ThreadID.current) else {
            handOverAndUnlock(value)
            return
        }
        lock.unlock()
        deliverRound(value, to: delivery)
        finishRound()
    }

    /// Queues `value`, with the dispatcher scope it is set in, for the running round's
    /// drainer. Call with `lock` held; unlocks.
    @usableFromInline
    final func handOverAndUnlock(_ value: Element) {
        assert(lock.isHeldByCurrentThread)
        handedOverValues.append((value, Dispatcher.scopeToCarry))
        machine._checkInvariants()
        lock.unlock()
    }

    /// Delivers `value` to every observer, without storing it: what a ``Sink`` sends.
    @inlinable
    final func send(_ value: Element) {
        lock.lock()
        deliverChangeAndUnlock(value)
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
        _ = machine.observe(record, wantsFirst: false, thread: ThreadID.current)
        lock.unlock()
        return record
    }

    /// The observer of `changes` on `queue`, made for a user's `observe`: on a derived core
    /// (`isKeptAliveByObservers`), its handler holds the core until the observer is cleaned.
    @inlinable
    final func makeRecord(on queue: ExecuteQueue, changes: @escaping @Sendable (Element) -> Void) -> Record {
        Record(link: link, queue: queue, handler: isKeptAliveByObservers ? keepingSelfAlive(changes) : changes)
    }

    /// `changes`, holding this core until the observer lets go of it (when cleaned): how an
    /// observation keeps a derived value alive.
    @usableFromInline
    final func keepingSelfAlive(
        _ changes: @escaping @Sendable (Element) -> Void
    ) -> @Sendable (Element) -> Void {
        { [self] value in
            withExtendedLifetime(self) { changes(value) }
        }
    }

    /// Delivers an observer's first value, then what rounds queued for it meanwhile, until
    /// none is left or it was cleaned (the machine's `nextOfFirstDelivery`). Call without
    /// `lock`, after the machine's `observe` said `.deliverFirstValue`.
    ///
    /// The common case, a first value that no round disturbed, touches no storage of the
    /// element type: unspecialized code looks up the metadata of every generic type it
    /// touches, which would cost more than the rest of the observe.
    final func deliverFirst(_ first: Element, to record: Record, handler: @escaping @Sendable (Element) -> Void) {
        record.receive(first, handler: handler)
        lock.lock()
        let step = machine.nextOfFirstDelivery(record)
        if step == .ended(dropping: 0) {
            lock.unlock()
        } else {
            carryOutAndUnlock(step, of: record, handler: handler)
        }
    }

    /// `deliverFirst` when rounds queued values for `record` meanwhile: carries out `step`
    /// and the machine's next ones, until the first delivery ends. Call with `lock` held;
    /// unlocks.
    private final func carryOutAndUnlock(
        _ step: ValueCoreStateMachine.FirstDeliveryStep, of record: Record,
        handler: @escaping @Sendable (Element) -> Void
    ) {
        assert(lock.isHeldByCurrentThread)
        let id = ObjectIdentifier(record)
        var step = step
        while true {
            switch step {
            case .deliverQueued:
                do {
                    let next = queuedForFirstDelivery[id]!.popFirst()!
                    if queuedForFirstDelivery[id]!.isEmpty {
                        queuedForFirstDelivery[id] = nil
                    }
                    lock.unlock()
                    // `next` is let go of at the end of this block, before locking again.
                    Dispatcher.withScope(next.scope) { record.receive(next.value, handler: handler) }
                }
                lock.lock()
                step = machine.nextOfFirstDelivery(record)
            case .ended(dropping: 0):
                lock.unlock()
                return
            case .ended:
                let dropped = queuedForFirstDelivery.removeValue(forKey: id)
                lock.unlock()
                // Let go of outside the lock: a value's deinit may reach this core.
                withExtendedLifetime(dropped) {}
                return
            }
        }
    }

    /// The number of observers, for tests.
    var observerCount: Int {
        lock.withLock { machine.observerCount }
    }

    // MARK: Rounds

    /// Calls every observer of `delivery` with `value`, on its queue. Always inlined: as a
    /// call of its own it cost a dispatch 20 instructions more (callgrind, 399 -> 419).
    @inlinable
    @inline(__always)
    final func deliverRound(_ value: Element, to delivery: ValueCoreStateMachine.Delivery) {
        if delivery.besideFirstDeliveries {
            deliverRoundBesideFirstDeliveries(value, to: delivery)
            return
        }
        guard let slots = delivery.slots else { return }
        for slot in 0..<delivery.count {
            // Re-read each slot: an observer may have cleaned a later one.
            if let reference = slots[slot] {
                // Every observer in this core's slab is a `Record`.
                reference._withUnsafeGuaranteedRef { unsafeDowncast($0, to: Record.self).receive(value) }
            }
        }
    }

    /// `deliverRound` while some observer's first value is being delivered by the thread
    /// that observes: the machine says which, and such an observer gets `value` queued,
    /// delivered after its first value by that thread.
    @usableFromInline
    final func deliverRoundBesideFirstDeliveries(_ value: Element, to delivery: ValueCoreStateMachine.Delivery) {
        guard let slots = delivery.slots else { return }
        for slot in 0..<delivery.count {
            guard let reference = slots[slot] else { continue }
            reference._withUnsafeGuaranteedRef {
                let record = unsafeDowncast($0, to: Record.self)
                let id = ObjectIdentifier(record)
                lock.lock()
                if machine.queueForFirstDelivery(id) {
                    // This round runs in the scope `value` was set in.
                    queuedForFirstDelivery[id, default: FIFO()].append((value, Dispatcher.scopeToCarry))
                    lock.unlock()
                } else {
                    lock.unlock()
                    record.receive(value)
                }
            }
        }
    }

    /// Ends this thread's round, after delivering what was handed over to it. A round
    /// that nobody disturbed ends with one compare-and-exchange, without the lock.
    @inlinable
    final func finishRound() {
        if round.compareExchange(expected: ThreadID.current, desired: 0) {
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
        while true {
            machine._checkInvariants()
            switch machine.nextStep() {
            case .deliverNextValue(let delivery):
                do {
                    let next = handedOverValues.popFirst()!
                    lock.unlock()
                    // `next` is let go of at the end of this block, before locking again.
                    Dispatcher.withScope(next.scope) { deliverRound(next.value, to: delivery) }
                }
                lock.lock()
            case .ended(let left, let leftBeforeJoining):
                machine._checkInvariants()
                lock.unlock()
                // Let go of outside the lock: a handler's captures may run user deinit code.
                for reference in left {
                    Self.release(reference)
                }
                for observer in leftBeforeJoining {
                    observer.releaseHandler()
                }
                return
            }
        }
    }
}

/// The core of a ``Sink`` and of its ``Signal``s: a `DeliveryCore`, which delivers each sent
/// value as a round and stores none.
///
/// So an event gets exactly what a change of a ``Variable`` gets (rounds, hand-over to the
/// drainer, observers joining and leaving between rounds, mailboxes for `.main` and
/// `.queue`), from the same code.
@usableFromInline
typealias SignalCore<Element: Sendable> = DeliveryCore<Element>
