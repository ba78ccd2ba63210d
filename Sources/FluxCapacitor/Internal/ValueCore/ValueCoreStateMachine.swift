/// Every decision of a value core, as one state machine in the shape of swift-async-algorithms'
/// `DebounceStateMachine`: the round's state is one enum whose cases carry what they need
/// (``RoundState``), each event is a `mutating` function that returns an `<Event>Action`,
/// and the core (`DeliveryCore`) carries each action out in one `switch`, after unlocking.
/// `Internal/README.md` draws the states and events as tables, and
/// `ValueCoreStateMachineTests` takes each cell.
///
/// The machine owns every piece of the core's bookkeeping: the observers (the slab, and each
/// observer's `place`, which nothing else writes), the work handed over to a running round
/// (joins, values and leaves, in one queue in the order they came), and the first
/// deliveries with the values queued behind them. It calls no user code, takes no lock,
/// touches no atomic and never blocks, so it is tested event by event on one thread: thread
/// identities are parameters, and so is whether a round runs, which the core keeps in its
/// round word (`ObserverCore.handedOverBit`) and tells each event as a ``Round``.
///
/// The machine is not generic: cleaning an observer, reached through `Dust.clean()` without
/// knowing the element type, runs no generic code (unspecialized generic code looks up
/// type metadata, which would cost more than the rest of a clean). The few values it holds
/// (handed over to a round, or queued behind a first value) are `WaitingValue`s, whose
/// value is an `Any` that the core casts back; only rare paths (a value set from inside a
/// round, or by a thread that stopped waiting for another thread's round; a first value
/// that a round overtook) make them.
@usableFromInline
struct ValueCoreStateMachine {
    /// How many changes (and sent values) there were.
    @usableFromInline
    private(set) var version: UInt64 = 0
    /// The observers in the order they joined, walked by rounds without the lock: while a
    /// round runs only its drainer changes the slab (others hand joins and leaves over).
    @usableFromInline
    private(set) var observers = ObserverSlab()
    /// What the running round was handed.
    @usableFromInline
    private(set) var state = RoundState.undisturbed
    /// The observers whose first value the observing thread is delivering, each with the
    /// values rounds queued for it meanwhile.
    @usableFromInline
    private(set) var firstDeliveries: [FirstDelivery] = []

    /// Whether a round runs, as the core found it in its round word, with the lock held
    /// (`ObserverCore.roundLocked()`, which also flags a running round, so that its drainer
    /// ends it under the lock and finds what the event hands it).
    @usableFromInline
    struct Round: Equatable {
        /// The thread that delivers the round, or 0 for none. (A struct of one word, not an
        /// enum with a payload, so that "no round" is one comparison on a hot path.)
        @usableFromInline
        let drainer: UInt

        @inlinable
        init(drainer: UInt) {
            self.drainer = drainer
        }

        /// No round runs.
        @inlinable
        static var idle: Round {
            Round(drainer: 0)
        }

        /// `drainer` delivers a round.
        @inlinable
        static func running(drainer: UInt) -> Round {
            Round(drainer: drainer)
        }
    }

    /// A value waiting for a round or behind a first value, with the dispatcher scope it
    /// was set in (`nil` for none), which its delivery binds again.
    @usableFromInline
    typealias WaitingValue = (value: Any, scope: Dispatcher?)

    /// The round's work: none (no round, or one nobody handed work to), or work handed over
    /// that its drainer applies step by step (``nextStep()``).
    @usableFromInline
    enum RoundState {
        /// No work for a round: the drainer may end its round without the lock.
        case undisturbed
        /// Work was handed over to the drainer, which ends its round under the lock, in
        /// ``nextStep()``.
        case handedOver(HandOver)
    }

    /// The work handed over to a running round. A class, so that the enum that carries it is
    /// one word and is changed in place; made at a round's first hand-over.
    @usableFromInline
    final class HandOver {
        /// Joins and values, in the order they came: an observer that asked to join before
        /// a value was set joins before that value is delivered (and after the values set
        /// before it asked, which its first value, if any, covers).
        var waiting = FIFO<Waiting>()
        /// Observers in the slab that another thread cleaned during the round, taken out
        /// at the next step.
        var leaves: [ObserverDust] = []
        /// Observers that left during the round (out of the slab, or before joining), to
        /// let go of when the round ends.
        var left: [ObserverDust] = []
        /// Changes on other threads that wait for the round to end (parked, see
        /// `ObserverCore.waitForTurnLocked()`): the drainer wakes them when it ends.
        var waitingChanges = 0

        init() {}
    }

    /// One piece of work waiting for the drainer.
    enum Waiting {
        case join(ObserverDust)
        case value(WaitingValue)
    }

    /// An observer whose first value is being delivered, and what rounds queued behind it:
    /// `nil` for nothing, the common case, so that an observe makes and lets go of no queue
    /// (a queue in place made the row `observeClean30000` of `Benchmarks/instructions`
    /// a fifth dearer).
    /// A lone first delivery is not here but in the core's round word, until an event makes
    /// it one of these (``loneFirstDeliveryBecameOrdinary(_:)``).
    @usableFromInline
    struct FirstDelivery {
        /// The observer's address (`UInt(bitPattern: ObjectIdentifier(observer))`).
        @usableFromInline
        let observer: UInt
        @usableFromInline
        var queued: Queued?
    }

    /// The values queued behind one first value, in order; never empty. A class, so that a
    /// first delivery stays two words.
    @usableFromInline
    final class Queued {
        var values = FIFO<WaitingValue>()

        init() {}
    }

    @usableFromInline
    init() {}

    /// Takes every observer out of the slab, for the caller to release, when the core goes.
    mutating func removeAllObservers() -> [ObserverDust] {
        observers.removeAll()
    }

    /// What a round delivers to: the slab's slots as they are when it starts (read again
    /// slot by slot as it goes, since the drainer may clear one), and whether a first
    /// delivery runs beside it.
    @usableFromInline
    struct Delivery {
        @usableFromInline
        let slots: UnsafeMutablePointer<ObserverSlab.Slot>?
        @usableFromInline
        let count: Int
        @usableFromInline
        let besideFirstDeliveries: Bool

        @inlinable
        init(_ observers: ObserverSlab, besideFirstDeliveries: Bool) {
            slots = observers.buffer?.slots
            count = observers.count
            self.besideFirstDeliveries = besideFirstDeliveries
        }
    }

    @inlinable
    var delivery: Delivery {
        Delivery(observers, besideFirstDeliveries: !firstDeliveries.isEmpty)
    }

    // MARK: Event: a change

    /// What the changing thread does.
    @usableFromInline
    enum ChangeAction {
        /// Deliver the value to this delivery as a round: this thread is its drainer.
        case deliverRound(Delivery)
        /// Nothing: the running round took the value over.
        case handedOver
    }

    /// `value` was set (or sent): a round for the changing thread to deliver, or handed
    /// over to the round that runs (with the dispatcher scope it is set in).
    // Always inlined: left to the optimizer, the row `send` of `Benchmarks/instructions` is
    // 13% dearer, over its budget (no more than the row `set`).
    @inlinable
    @inline(__always)
    mutating func change<Value>(_ value: Value, round: Round) -> ChangeAction {
        version &+= 1
        guard round == .idle else {
            handOver(value)
            return .handedOver
        }
        return .deliverRound(delivery)
    }

    /// Hands `value` over to the running round. Generic and not inlinable, so that the
    /// inlined `change` has no code for making an `Any`.
    @usableFromInline
    mutating func handOver<Value>(_ value: Value) {
        work().waiting.append(.value((value, Dispatcher.scopeToCarry)))
    }

    /// How many changes wait for the running round to end (for tests).
    var waitingChanges: Int {
        if case .handedOver(let work) = state {
            return work.waitingChanges
        }
        return 0
    }

    /// A change on another thread will wait for the running round to end (parked): the
    /// round's drainer ends it under the lock and wakes it (``nextStep()``'s
    /// `.ended(left:wakeWaitingChanges:)`). Call only while a round runs.
    mutating func changeWaits() {
        work().waitingChanges += 1
    }

    /// The running round's work, made at the first hand-over.
    private mutating func work() -> HandOver {
        switch state {
        case .handedOver(let work):
            return work
        case .undisturbed:
            let work = HandOver()
            state = .handedOver(work)
            return work
        }
    }

    /// The core found a lone first delivery of `observer` (its address) in its round word,
    /// and ended it there: it goes on as an ordinary one, which rounds see, and which its
    /// observing thread ends under the lock with ``nextOfFirstDelivery(_:)``.
    mutating func loneFirstDeliveryBecameOrdinary(_ observer: UInt) {
        firstDeliveries.append(FirstDelivery(observer: observer, queued: nil))
    }

    // MARK: Event: observe

    /// What the observing thread does after `observe`.
    @usableFromInline
    enum ObserveAction: Equatable {
        /// Nothing more.
        case nothing
        /// Deliver the first value as a *lone first delivery*: nothing else goes on, so the
        /// core marks it in its round word, and the observing thread ends it there without
        /// the lock if nothing reached the machine meanwhile; else as `deliverFirstValue`.
        case deliverLoneFirstValue
        /// Deliver the first value, then what rounds queue for the observer meanwhile
        /// (`nextOfFirstDelivery`), until `nextOfFirstDelivery` says it ended.
        case deliverFirstValue
        /// Deliver the first value, and nothing more: the observer joins this thread's own
        /// round before its next value, so no value can be queued for it.
        case deliverFirstValueInOwnRound
    }

    /// `observer` starts observing on `thread`, with its first value if `wantsFirst`.
    @inlinable
    mutating func observe(_ observer: ObserverDust, wantsFirst: Bool, round: Round, thread: UInt) -> ObserveAction {
        if round == .idle && !wantsFirst {
            observer.place = .inSlab(observers.append(observer))
            return .nothing
        }
        return observeWithFirstValueOrDuringRound(observer, wantsFirst: wantsFirst, round: round, thread: thread)
    }

    @usableFromInline
    mutating func observeWithFirstValueOrDuringRound(
        _ observer: ObserverDust, wantsFirst: Bool, round: Round, thread: UInt
    ) -> ObserveAction {
        if round == .idle && firstDeliveries.isEmpty {
            // The usual first value (`wantsFirst`: the other case returned above).
            observer.place = .inSlab(observers.append(observer))
            return .deliverLoneFirstValue
        }
        if round != .idle {
            observer.place = .joining
            work().waiting.append(.join(observer))
            if round.drainer == thread {
                return wantsFirst ? .deliverFirstValueInOwnRound : .nothing
            }
        } else {
            observer.place = .inSlab(observers.append(observer))
        }
        guard wantsFirst else { return .nothing }
        firstDeliveries.append(FirstDelivery(observer: UInt(bitPattern: ObjectIdentifier(observer)), queued: nil))
        return .deliverFirstValue
    }

    /// Whether work was handed over to the running round.
    @usableFromInline
    var isHandedOver: Bool {
        if case .handedOver = state { true } else { false }
    }

    /// The number of observers, joined or joining.
    var observerCount: Int {
        var count = observers.live
        if case .handedOver(let work) = state {
            work.waiting.forEach { waiting in
                if case .join(let observer) = waiting, case .joining = observer.place {
                    count += 1
                }
            }
        }
        return count
    }

    // MARK: Event: remove

    /// What the thread that cleaned an observer lets go of after unlocking.
    enum RemoveAction {
        /// Nothing: the observer had left, or the round lets go of it.
        case nothing
        /// The observer never joined: let go of its handler.
        case releaseHandler
        /// The observer left the slab: let go of its handler, then of the slab's reference,
        /// handed over here. (`Unmanaged`, a plain word: as an object reference, carrying it
        /// out of the lock cost the row `observeClean30000` of `Benchmarks/instructions` a
        /// retain and release.)
        case release(Unmanaged<ObserverDust>)
    }

    /// `observer` is cleaned, on `thread`.
    mutating func remove(_ observer: ObserverDust, round: Round, thread: UInt) -> RemoveAction {
        let isDrainer = round == .running(drainer: thread)
        switch observer.place {
        case .joining where isDrainer:
            // Perhaps from its own first value's call: the round lets go of it when its
            // turn to join comes.
            observer.place = .leftWhileJoining
        case .joining:
            // The drainer skips it. (If its first value is being delivered, the observing
            // thread holds its own copy of the handler and stops after it.)
            observer.place = .left
            return .releaseHandler
        case .inSlab(let slot) where isDrainer:
            // From an observer during this thread's round: out of the slab now, so it is
            // not called again in this round; let go of after the round.
            observer.place = .left
            work().left.append(observers.remove(at: slot).takeRetainedValue())
        case .inSlab(let slot) where round != .idle:
            // Another thread's round is walking the slab: it takes the observer out
            // between two values.
            observer.place = .leaving(slot)
            work().leaves.append(observer)
        case .inSlab(let slot):
            observer.place = .left
            let reference = observers.remove(at: slot)
            if observers.isSparse {
                compact()
            }
            return .release(reference)
        case .leaving, .leftWhileJoining, .left:
            break
        }
        return .nothing
    }

    /// Squeezes the slab's holes out, telling each moved observer its new slot. Only with
    /// no round running: a round walks the slots as they are.
    private mutating func compact() {
        observers.compact { observer, slot in
            switch observer.place {
            case .leaving: observer.place = .leaving(slot)
            default: observer.place = .inSlab(slot)
            }
        }
    }

    // MARK: Event: the next step of a round

    /// What the drainer does next.
    @usableFromInline
    enum NextStepAction {
        /// Deliver this handed-over value to this delivery, in its scope.
        case deliver(WaitingValue, to: Delivery)
        /// The round ended: let go of these, after unlocking, and wake the changes that
        /// wait for it if `wakeWaitingChanges`.
        case ended(left: [ObserverDust], wakeWaitingChanges: Bool)
    }

    /// The drainer finished delivering a value: applies what was handed over, in order,
    /// and says what comes next. When nothing is left the round ends (the core clears its
    /// round word).
    @usableFromInline
    mutating func nextStep() -> NextStepAction {
        guard case .handedOver(let work) = state else {
            return .ended(left: [], wakeWaitingChanges: false)
        }
        for observer in work.leaves {
            if case .leaving(let slot) = observer.place {
                work.left.append(observers.remove(at: slot).takeRetainedValue())
            }
            observer.place = .left
        }
        work.leaves.removeAll(keepingCapacity: true)
        while let waiting = work.waiting.popFirst() {
            switch waiting {
            case .value(let value):
                return .deliver(value, to: delivery)
            case .join(let observer):
                switch observer.place {
                case .joining:
                    observer.place = .inSlab(observers.append(observer))
                case .leftWhileJoining:
                    observer.place = .left
                    work.left.append(observer)
                case .inSlab, .leaving, .left:
                    // Cleaned by another thread, which let go of it.
                    break
                }
            }
        }
        state = .undisturbed
        if observers.isSparse {
            compact()
        }
        return .ended(left: work.left, wakeWaitingChanges: work.waitingChanges > 0)
    }

    // MARK: Events: first deliveries

    /// What a round does for an observer when some first delivery runs beside it.
    @usableFromInline
    enum ReachAction: Sendable {
        /// Deliver the value to the observer.
        case deliver
        /// Nothing: the value was queued behind the observer's first value, which the
        /// observing thread delivers.
        case queued
    }

    /// A round reached `observer` with `value`: queues it if the observer's first value is
    /// being delivered.
    @usableFromInline
    mutating func reach(_ observer: ObjectIdentifier, with value: WaitingValue) -> ReachAction {
        let observer = UInt(bitPattern: observer)
        guard let index = firstDeliveries.firstIndex(where: { $0.observer == observer }) else {
            return .deliver
        }
        let queued = firstDeliveries[index].queued ?? Queued()
        queued.values.append(value)
        firstDeliveries[index].queued = queued
        return .queued
    }

    /// What the observing thread does after delivering a first value, or a value queued
    /// behind it.
    @usableFromInline
    enum NextOfFirstDeliveryAction {
        /// Deliver this value, queued for the observer, in its scope.
        case deliver(WaitingValue)
        /// The first delivery is over, and nothing was queued for it (the common case).
        case ended
        /// The first delivery is over; let go of these values, queued for the observer
        /// (which was cleaned), after unlocking.
        case endedDropping(FIFO<WaitingValue>)
    }

    /// `observer`'s first value (or a value queued behind it) was delivered.
    @usableFromInline
    mutating func nextOfFirstDelivery(_ observer: ObserverDust) -> NextOfFirstDeliveryAction {
        let id = UInt(bitPattern: ObjectIdentifier(observer))
        // The usual case first: the last first delivery, with nothing queued behind it, ends
        // (whether or not the observer was cleaned meanwhile), without the search below.
        if let last = firstDeliveries.last, last.observer == id, last.queued == nil {
            firstDeliveries.removeLast()
            return .ended
        }
        // From the end: the observer that observed last is the likeliest.
        guard let index = firstDeliveries.lastIndex(where: { $0.observer == id }) else {
            fatalError(
                "ValueCoreStateMachine: internal inconsistency: a first delivery that was never started")
        }
        if observer.isObserving && firstDeliveries[index].queued != nil {
            return nextQueued(at: index)
        }
        // Usually the last: `removeLast()` costs less than `remove(at:)`.
        let ended =
            index == firstDeliveries.count - 1 ? firstDeliveries.removeLast() : firstDeliveries.remove(at: index)
        guard let dropped = ended.queued else {
            return .ended
        }
        return .endedDropping(dropped.values)
    }

    /// The next value queued for the first delivery at `index` (a queue is `nil` rather
    /// than empty).
    private mutating func nextQueued(at index: Int) -> NextOfFirstDeliveryAction {
        guard let queued = firstDeliveries[index].queued, let next = queued.values.popFirst() else {
            fatalError(
                "ValueCoreStateMachine: internal inconsistency: an empty queue behind a first value")
        }
        if queued.values.isEmpty {
            firstDeliveries[index].queued = nil
        }
        return .deliver(next)
    }
}

extension ValueCoreStateMachine {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Checks what must hold whenever the lock is free (and, in a round, whenever the
    /// drainer holds it): compiled in only with `FLUXCAPACITOR_INTERNAL_CHECKS`. It runs at
    /// every event, so it looks at a bounded number of items. (`ObserverCore` checks its
    /// round word against it.)
    @usableFromInline
    func _checkInvariants() {
        observers._checkInvariants()
        if case .handedOver(let work) = state {
            for observer in work.leaves.prefix(8) + work.leaves.suffix(8) {
                guard case .leaving = observer.place else {
                    fatalError(
                        "ValueCoreStateMachine: internal inconsistency: a leaving observer not marked so")
                }
            }
        }
        for (index, first) in firstDeliveries.prefix(16).enumerated() {
            guard !firstDeliveries[..<index].contains(where: { $0.observer == first.observer }) else {
                fatalError("ValueCoreStateMachine: internal inconsistency: two first deliveries of one observer")
            }
        }
    }
    #else
    @inlinable
    func _checkInvariants() {}
    #endif
}

// The machine is owned and guarded by its value core; it is never sent anywhere on its own.
@available(*, unavailable)
extension ValueCoreStateMachine: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.Delivery: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.HandOver: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.ChangeAction: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.ObserveAction: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.NextStepAction: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.NextOfFirstDeliveryAction: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.Queued: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.RoundState: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.FirstDelivery: Sendable {}
/// A round is a thread's number: a plain word, safe to hand anywhere.
extension ValueCoreStateMachine.Round: Sendable {}
