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
        switch machine.change(value, thread: ThreadID.current) {
        case .deliverRound(let delivery):
            lock.unlock()
            deliverRound(value, to: delivery)
            finishRound()
        case .handedOver:
            machine._checkInvariants()
            lock.unlock()
        }
    }

    /// Delivers `value` to every observer, without storing it: what a ``Sink`` sends.
    @inlinable
    final func send(_ value: Element) {
        lock.lock()
        deliverChangeAndUnlock(value)
    }

    /// A value the machine held (handed over, or queued behind a first value), back as the
    /// element it was made from.
    @usableFromInline
    static func element(of waiting: ValueCoreStateMachine.WaitingValue) -> Element {
        guard let element = waiting.value as? Element else {
            preconditionFailure("DeliveryCore: internal inconsistency: a waiting value is not a \(Element.self)")
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
        _ = machine.observe(record, wantsFirst: false, thread: ThreadID.current)
        machine._checkInvariants()
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
    final func deliverFirst(_ first: Element, to record: Record, handler: @escaping @Sendable (Element) -> Void) {
        record.receive(first, handler: handler)
        repeat {
            lock.lock()
            machine._checkInvariants()
        } while carryOutAndUnlock(machine.nextOfFirstDelivery(record), for: record, handler: handler)
    }

    /// Carries out the machine's `nextOfFirstDelivery` action. Call with `lock` held;
    /// unlocks. Returns whether the first delivery goes on. (A function of its own so that
    /// the value in `action` is let go of when it returns, before the caller locks again.)
    /// Inlined: as a call of its own it cost observe + clean 3 instructions more.
    @inline(__always)
    private final func carryOutAndUnlock(
        _ action: consuming ValueCoreStateMachine.NextOfFirstDeliveryAction, for record: Record,
        handler: @escaping @Sendable (Element) -> Void
    ) -> Bool {
        assert(lock.isHeldByCurrentThread)
        switch consume action {
        case .deliver(let next):
            lock.unlock()
            Dispatcher.withScope(next.scope) { record.receive(Self.element(of: next), handler: handler) }
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
                // Unretained: the slab holds a +1 reference to each observer in it, and
                // only this thread (the drainer) takes one out during the round, after
                // its call. Every observer in this core's slab is a `Record`.
                reference._withUnsafeGuaranteedRef { unsafeDowncast($0, to: Record.self).receive(value) }
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
            // Unretained: the slab's +1 reference holds it (see `deliverRound`).
            reference._withUnsafeGuaranteedRef {
                let record = unsafeDowncast($0, to: Record.self)
                lock.lock()
                let action = machine.reach(ObjectIdentifier(record), with: waiting)
                machine._checkInvariants()
                lock.unlock()
                switch action {
                case .deliver: record.receive(value)
                case .queued: break
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
        machine._checkInvariants()
        while carryOutAndUnlock(machine.nextStep()) {
            lock.lock()
            machine._checkInvariants()
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
        case .ended(let left, let leftBeforeJoining):
            machine._checkInvariants()
            lock.unlock()
            // Let go of outside the lock: a handler's captures may run user deinit code.
            for reference in left {
                ObserverDust.release(reference)
            }
            for observer in leftBeforeJoining {
                observer.releaseHandler()
            }
            return false
        }
    }
}
