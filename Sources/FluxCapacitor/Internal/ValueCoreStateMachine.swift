/// Every decision of a value core, as one state machine: who is in the slab, whether a
/// round runs and who delivers it, what was handed over to that round, and which observers'
/// first values are being delivered. `Internal/README.md` draws its states and events as
/// one table.
///
/// The core (``ObserverCore`` and its subclasses) owns one machine, calls it with its lock
/// held, and carries out the action each event returns after unlocking: calling observers,
/// letting go of observers and values. The machine itself calls no user code, takes no
/// lock, and never blocks, so it is tested event by event on one thread
/// (`ValueCoreStateMachineTests`); thread identities are parameters.
///
/// The machine holds no element values, so that it is not generic: cleaning an observer,
/// reached through `Dust.clean()` without knowing the element type, runs no generic code
/// (unspecialized generic code looks up type metadata, which would cost more than the rest
/// of a clean). The values handed over to a round, and those queued for a first delivery,
/// wait in the core (`DeliveryCore`), in the order the machine counts them; an action that
/// says "deliver the next value" means the core's next one.
///
/// One exception to "with the lock held": the round's drainer ends a round that nobody
/// disturbed with one compare-and-exchange of `round`, without the lock (see
/// `DeliveryCore.finishRound()`, through the core's own handle of the word), so that a plain
/// change locks once.
@usableFromInline
struct ValueCoreStateMachine {
    /// The round: 0 when none runs; otherwise the thread delivering it (the *drainer*),
    /// with bit 0 set once work was handed over to it. Only the drainer clears it without
    /// the lock, and only from "drainer, nothing handed over". (A handle: the core keeps
    /// one too, to read it without touching the machine, and deallocates it.)
    @usableFromInline
    let round: AtomicWord
    /// How many changes (and sent values) there were.
    @usableFromInline
    private(set) var version: UInt64 = 0
    /// The observers in the order they joined, walked by rounds without the lock: while a
    /// round runs only its drainer changes the slab (others hand joins and leaves over).
    @usableFromInline
    private(set) var observers = ObserverSlab()
    /// The versions of the values handed over to the running round, in order.
    private var handedOverValues = FIFO<UInt64>()
    /// Observers that asked to join while a round ran, each with the version it observed
    /// at: it joins before the first handed-over value of a later version.
    private var handedOverJoins = FIFO<(observer: ObserverDust, version: UInt64)>()
    /// Observers in the slab that another thread cleaned while a round ran.
    private var handedOverLeaves: [ObserverDust] = []
    /// The slab's references to observers that left during the round, and observers that
    /// left before joining, to let go of when the round ends.
    private var leftDuringRound: [Unmanaged<ObserverDust>] = []
    private var leftBeforeJoining: [ObserverDust] = []
    /// The observers whose first value the observing thread is delivering, and how many
    /// values rounds queued for each meanwhile.
    @usableFromInline
    private(set) var firstDeliveries: [(observer: ObjectIdentifier, queued: Int)] = []

    /// A machine whose round state is in `round`, which holds 0.
    @usableFromInline
    init(round: AtomicWord) {
        self.round = round
    }

    /// Takes every observer out of the slab, for the caller to release, when the core goes.
    mutating func removeAllObservers() -> [Unmanaged<ObserverDust>] {
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
        init(slots: UnsafeMutablePointer<ObserverSlab.Slot>?, count: Int, besideFirstDeliveries: Bool) {
            self.slots = slots
            self.count = count
            self.besideFirstDeliveries = besideFirstDeliveries
        }
    }

    @inlinable
    var delivery: Delivery {
        Delivery(slots: observers.base, count: observers.count, besideFirstDeliveries: !firstDeliveries.isEmpty)
    }

    // MARK: Event: a change

    /// The value changed (or a value was sent). Returns the round for `thread` to deliver,
    /// having made it the drainer; or `nil` when a round is running, which takes the value
    /// over: the core queues the value after the ones handed over before it.
    @inlinable
    mutating func change(thread: UInt) -> Delivery? {
        version &+= 1
        if round.load() != 0 && handOverChange() {
            return nil
        }
        round.store(thread)
        return delivery
    }

    /// Hands the change just counted over to the running round, if it still runs.
    @usableFromInline
    mutating func handOverChange() -> Bool {
        guard flagHandOver() else { return false }
        handedOverValues.append(version)
        return true
    }

    /// Marks that work was handed over to the drainer. Returns `false` if no round runs
    /// any more (its drainer ended it meanwhile), in which case the caller does the work.
    @usableFromInline
    func flagHandOver() -> Bool {
        while true {
            let state = round.load()
            if state == 0 {
                return false
            }
            if state & 1 != 0 || round.compareExchange(expected: state, desired: state | 1) {
                return true
            }
        }
    }

    // MARK: Event: observe

    /// What the observing thread does after `observe`.
    @usableFromInline
    enum ObserveAction: Equatable {
        /// Nothing more.
        case nothing
        /// Deliver the first value, then what rounds queue for the observer meanwhile
        /// (`nextOfFirstDelivery`), until `nextOfFirstDelivery` says it ended.
        case deliverFirstValue
        /// Deliver the first value, and nothing more: the observer joins this thread's own
        /// round before its next value, so no value can be queued for it.
        case deliverFirstValueInOwnRound
    }

    /// `observer` starts observing on `thread`, with its first value if `wantsFirst`.
    @inlinable
    mutating func observe(_ observer: ObserverDust, wantsFirst: Bool, thread: UInt) -> ObserveAction {
        if round.load() == 0 && !wantsFirst {
            observer.place = .inSlab(observers.append(observer))
            return .nothing
        }
        return observeWithFirstValueOrDuringRound(observer, wantsFirst: wantsFirst, thread: thread)
    }

    @usableFromInline
    mutating func observeWithFirstValueOrDuringRound(
        _ observer: ObserverDust, wantsFirst: Bool, thread: UInt
    ) -> ObserveAction {
        let drainer = round.load() & ~1
        if drainer == thread {
            _ = flagHandOver()
            observer.place = .joining
            handedOverJoins.append((observer, version))
            return wantsFirst ? .deliverFirstValueInOwnRound : .nothing
        }
        if drainer != 0 && flagHandOver() {
            observer.place = .joining
            handedOverJoins.append((observer, version))
        } else {
            observer.place = .inSlab(observers.append(observer))
        }
        guard wantsFirst else { return .nothing }
        firstDeliveries.append((ObjectIdentifier(observer), 0))
        return .deliverFirstValue
    }

    /// The number of observers, joined or joining.
    var observerCount: Int {
        var count = observers.live
        handedOverJoins.forEach { join in
            if case .joining = join.observer.place {
                count += 1
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
        /// The observer left the slab: let go of its handler, then of the slab's reference.
        case release(Unmanaged<ObserverDust>)
    }

    /// `observer` is cleaned, on `thread`.
    mutating func remove(_ observer: ObserverDust, thread: UInt) -> RemoveAction {
        let drainer = round.load() & ~1
        switch observer.place {
        case .joining where drainer == thread:
            // Perhaps from its own first value's call: the round lets go of it when its
            // turn to join comes.
            observer.place = .leftWhileJoining
        case .joining:
            // The drainer skips it. (If its first value is being delivered, the observing
            // thread holds its own copy of the handler and stops after it.)
            observer.place = .left
            return .releaseHandler
        case .inSlab(let slot) where drainer == thread:
            // From an observer during this thread's round: out of the slab now, so it is
            // not called again in this round; let go of after the round.
            observer.place = .left
            leftDuringRound.append(observers.remove(at: slot))
            _ = flagHandOver()
        case .inSlab(let slot) where drainer != 0 && flagHandOver():
            observer.place = .leaving(slot)
            handedOverLeaves.append(observer)
        case .inSlab(let slot):
            observer.place = .left
            let reference = observers.remove(at: slot)
            if observers.isSparse {
                observers.compact()
            }
            return .release(reference)
        case .leaving, .leftWhileJoining, .left:
            break
        }
        return .nothing
    }

    // MARK: Event: the next step of a round

    /// What the drainer does next.
    @usableFromInline
    enum RoundStep {
        /// Deliver the core's next handed-over value to this delivery.
        case deliverNextValue(Delivery)
        /// The round ended: let go of these, after unlocking.
        case ended(left: [Unmanaged<ObserverDust>], leftBeforeJoining: [ObserverDust])
    }

    /// The drainer finished delivering a value: applies what was handed over, in order,
    /// and says what comes next. When nothing is left the round ends (`round` is 0).
    @usableFromInline
    mutating func nextStep() -> RoundStep {
        while true {
            for observer in handedOverLeaves {
                if case .leaving(let slot) = observer.place {
                    leftDuringRound.append(observers.remove(at: slot))
                }
                observer.place = .left
            }
            handedOverLeaves.removeAll(keepingCapacity: true)

            if let join = handedOverJoins.first, join.version < handedOverValues.first ?? .max {
                _ = handedOverJoins.popFirst()
                switch join.observer.place {
                case .joining:
                    join.observer.place = .inSlab(observers.append(join.observer))
                case .leftWhileJoining:
                    join.observer.place = .left
                    leftBeforeJoining.append(join.observer)
                case .inSlab, .leaving, .left:
                    // Cleaned by another thread, which let go of it.
                    break
                }
                continue
            }
            if handedOverValues.popFirst() != nil {
                return .deliverNextValue(delivery)
            }
            break
        }
        round.store(0)
        if observers.isSparse {
            observers.compact()
        }
        defer {
            leftDuringRound = []
            leftBeforeJoining = []
        }
        return .ended(left: leftDuringRound, leftBeforeJoining: leftBeforeJoining)
    }

    // MARK: Events: first deliveries

    /// A round reached `observer`, whose first value may be being delivered: returns
    /// `true` if so, having counted the value the core queues for it.
    @usableFromInline
    mutating func queueForFirstDelivery(_ observer: ObjectIdentifier) -> Bool {
        guard let index = firstDeliveries.firstIndex(where: { $0.observer == observer }) else {
            return false
        }
        firstDeliveries[index].queued += 1
        return true
    }

    /// What the observing thread does after delivering a first value, or a value queued
    /// behind it.
    @usableFromInline
    enum FirstDeliveryStep: Equatable {
        /// Deliver the next value the core queued for the observer.
        case deliverQueued
        /// The first delivery is over; the core drops this many values it still queued
        /// for the observer (which was cleaned), after unlocking.
        case ended(dropping: Int)
    }

    /// `observer`'s first value (or a value queued behind it) was delivered.
    @usableFromInline
    mutating func nextOfFirstDelivery(_ observer: ObserverDust) -> FirstDeliveryStep {
        let id = ObjectIdentifier(observer)
        // From the end: the observer that observed last is the likeliest.
        guard let index = firstDeliveries.lastIndex(where: { $0.observer == id }) else {
            preconditionFailure("FluxCapacitor internal inconsistency: a first delivery that was never started")
        }
        let queued = firstDeliveries[index].queued
        if queued > 0 && observer.isObserving {
            firstDeliveries[index].queued -= 1
            return .deliverQueued
        }
        firstDeliveries.remove(at: index)
        return .ended(dropping: queued)
    }

    // MARK: Invariants

    /// Checks what must hold whenever the lock is free (and, in a round, whenever the
    /// drainer holds it): compiled in only with `FLUXCAPACITOR_INTERNAL_CHECKS`.
    @inlinable
    @inline(__always)
    func _checkInvariants() {
        #if FLUXCAPACITOR_INTERNAL_CHECKS
        _checkInvariantsSlowly()
        #endif
    }

    #if FLUXCAPACITOR_INTERNAL_CHECKS
    @usableFromInline
    func _checkInvariantsSlowly() {
        observers._checkInvariants()
        let state = round.load()
        let handedOver = !handedOverValues.isEmpty || !handedOverJoins.isEmpty || !handedOverLeaves.isEmpty
        precondition(
            !handedOver || state & 1 != 0,
            "FluxCapacitor internal inconsistency: work handed over without the round's flag")
        precondition(
            state != 0 || (!handedOver && leftDuringRound.isEmpty && leftBeforeJoining.isEmpty),
            "FluxCapacitor internal inconsistency: work left over with no round running")
        // Bounded, as everything here (it runs at every event): the first and the last
        // leaving observers, and first deliveries while there are few.
        for observer in handedOverLeaves.prefix(8) + handedOverLeaves.suffix(8) {
            guard case .leaving = observer.place else {
                preconditionFailure("FluxCapacitor internal inconsistency: a leaving observer not marked so")
            }
        }
        if let first = handedOverValues.first {
            // The versions after it are in order by construction (O(1): this runs at every
            // event).
            precondition(
                first <= version && handedOverValues.count <= Int(version),
                "FluxCapacitor internal inconsistency: a handed-over value ahead of the version")
        }
        for (index, first) in firstDeliveries.prefix(16).enumerated() {
            precondition(
                first.queued >= 0 && !firstDeliveries[..<index].contains { $0.observer == first.observer },
                "FluxCapacitor internal inconsistency: first deliveries")
        }
    }
    #endif
}

// The machine is owned and guarded by its value core; it is never sent anywhere on its own.
@available(*, unavailable)
extension ValueCoreStateMachine: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.Delivery: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.ObserveAction: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.RoundStep: Sendable {}
@available(*, unavailable)
extension ValueCoreStateMachine.FirstDeliveryStep: Sendable {}
