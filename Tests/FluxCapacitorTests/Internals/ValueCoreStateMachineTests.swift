import FluxTestFixtures
import Testing

@testable import FluxCapacitor

/// The value core's state machine, event by event, on one thread: thread identities are
/// parameters, so "another thread" is just another number, and so is whether a round runs.
/// The fixture plays the core's round word (a round and its drainer, or a lone first
/// delivery) as `ObserverCore.roundLocked()` reads it. Each test drives the machine from
/// one state with one event and checks the action and the state it leads to; the table in
/// `Sources/FluxCapacitor/Internal/README.md` names the same cells.
@Suite("Value core state machine")
struct ValueCoreStateMachineTests {
    /// The thread that delivers a round, and another one (never 0, bit 0 clear).
    static let drainer: UInt = 0x1000
    static let other: UInt = 0x2000

    /// What `nextOfFirstDelivery` said, with the values as `Int`s.
    enum FirstDeliveryStep: Equatable {
        case deliver(Int?)
        case ended(dropping: [Int?])
    }

    /// A machine, the round word as the core would keep it, and the observers a test made,
    /// let go of at the end.
    final class Fixture {
        private let link = CoreLock.make()
        var machine = ValueCoreStateMachine()
        /// The round, as the core's word says it.
        private(set) var round = ValueCoreStateMachine.Round.idle
        /// A lone first delivery in the word: its observer.
        private(set) var lone: ObserverDust?

        func makeObserver() -> ObserverDust {
            ObserverDust(link: link)
        }

        /// Checks the machine's invariants (compiled in with FLUXCAPACITOR_INTERNAL_CHECKS),
        /// and returns it for reading.
        var checked: ValueCoreStateMachine {
            machine._checkInvariants()
            return machine
        }

        /// Starts a round on `drainer` with a change, as a set that finds no round does.
        func startRound() {
            #expect(change(on: ValueCoreStateMachineTests.drainer) != nil)
        }

        /// What `ObserverCore.roundLocked()` does before each event: a lone first delivery
        /// in the word goes on as an ordinary one.
        func roundLocked() -> ValueCoreStateMachine.Round {
            if let lone {
                machine.loneFirstDeliveryBecameOrdinary(UInt(bitPattern: ObjectIdentifier(lone)))
                self.lone = nil
            }
            return round
        }

        // The events, as methods of the fixture, so that `#expect` can take their results.

        /// The machine's `change` of a value numbered by the changes so far: the round to
        /// deliver, or `nil` when it was handed over.
        func change(on thread: UInt) -> ValueCoreStateMachine.Delivery? {
            switch machine.change(Int(machine.version) + 1, round: roundLocked()) {
            case .deliverRound(let delivery):
                round = .running(drainer: thread)
                return delivery
            case .handedOver:
                return nil
            }
        }

        /// Whether work was handed over to the running round (the state's case).
        var isHandedOver: Bool {
            if case .handedOver = machine.state { return true }
            return false
        }

        func observe(_ observer: ObserverDust, first: Bool, on thread: UInt) -> ValueCoreStateMachine.ObserveAction {
            let action = machine.observe(observer, wantsFirst: first, round: roundLocked(), thread: thread)
            if action == .deliverLoneFirstValue {
                lone = observer
            }
            return action
        }

        /// The machine's `remove`, as `nothing`, `releaseHandler` or `release` (the slab's
        /// reference to `observer`, which this releases).
        func remove(_ observer: ObserverDust, on thread: UInt) -> String {
            switch machine.remove(observer, round: roundLocked(), thread: thread) {
            case .nothing: return "nothing"
            case .releaseHandler: return "releaseHandler"
            case .release(let reference):
                #expect(reference.takeRetainedValue() === observer)
                return "release"
            }
        }

        /// The observing thread's lock-free end of a lone first delivery (as
        /// `DeliveryCore.deliverFirst` does it): whether it ended the first delivery, which
        /// otherwise goes on with `nextOfFirstDelivery`.
        func endLoneFirstDelivery(_ observer: ObserverDust) -> Bool {
            guard lone === observer else { return false }
            lone = nil
            return true
        }

        func nextStep() -> ValueCoreStateMachine.NextStepAction {
            let action = machine.nextStep()
            if case .ended = action {
                round = .idle
            }
            return action
        }

        /// The machine's `reach` of `observer` by a round with `value`: whether it queued it.
        func queueForFirstDelivery(_ observer: ObserverDust, _ value: Int = 0) -> Bool {
            machine.reach(ObjectIdentifier(observer), with: (value, nil)) == .queued
        }

        /// The machine's `nextOfFirstDelivery`, with the values it hands back as `Int`s.
        func nextOfFirstDelivery(_ observer: ObserverDust) -> FirstDeliveryStep {
            switch machine.nextOfFirstDelivery(observer) {
            case .deliver(let next): return .deliver(next.value as? Int)
            case .ended: return .ended(dropping: [])
            case .endedDropping(var dropped):
                var values: [Int?] = []
                while let value = dropped.popFirst() {
                    values.append(value.value as? Int)
                }
                return .ended(dropping: values)
            }
        }

        /// Runs `nextStep` until the round ends, counting the values it delivers; returns
        /// that count and what the end lets go of.
        func finishRound() -> (delivered: [Int?], left: [ObserverDust], wakes: Bool) {
            var delivered: [Int?] = []
            while true {
                machine._checkInvariants()
                switch nextStep() {
                case .deliver(let value, _): delivered.append(value.value as? Int)
                case .ended(let left, let wakes):
                    machine._checkInvariants()
                    #expect(!isHandedOver)
                    return (delivered, left, wakes)
                }
            }
        }

        deinit {
            _ = machine.removeAllObservers()
        }
    }

    // MARK: change

    @Test func aChangeWithNoRoundStartsOneOnTheChangingThread() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        #expect(fixture.observe(observer, first: false, on: Self.other) == .nothing)
        let delivery = fixture.change(on: Self.drainer)
        #expect(delivery?.count == 1)
        #expect(delivery?.besideFirstDeliveries == false)
        #expect(fixture.checked.version == 1)
        #expect(fixture.round == .running(drainer: Self.drainer))
        // Nobody disturbed the round: its drainer may end it without the lock.
        #expect(!fixture.isHandedOver)
    }

    @Test func aChangeDuringARoundIsHandedOverAndDeliveredAfterIt() {
        let fixture = Fixture()
        fixture.startRound()
        #expect(fixture.change(on: Self.other) == nil)  // from a thread that stopped waiting
        #expect(fixture.change(on: Self.drainer) == nil)  // from an observer
        #expect(fixture.checked.version == 3)
        // The core flagged its word for this: the drainer's lock-free end fails, and it takes
        // the steps.
        #expect(fixture.isHandedOver)
        let end = fixture.finishRound()
        #expect(end.delivered == [2, 3])  // the values the machine held, in order
        #expect(fixture.round == .idle)
    }

    @Test func aRoundWithNothingHandedOverEndsAtItsFirstStep() {
        let fixture = Fixture()
        fixture.startRound()
        let end = fixture.finishRound()
        #expect(end.delivered.isEmpty && end.left.isEmpty && !end.wakes)
        #expect(fixture.round == .idle)
    }

    @Test func aChangeThatWaitsForTheRoundIsWokenWhenItEndsAndHandsNothingOver() {
        let fixture = Fixture()
        fixture.startRound()
        _ = fixture.roundLocked()  // the core flags the round word before the machine hears
        fixture.machine.changeWaits()
        fixture.machine.changeWaits()
        #expect(fixture.isHandedOver)
        let end = fixture.finishRound()
        #expect(end.delivered.isEmpty && end.wakes)
        #expect(fixture.round == .idle)
        // The next round starts undisturbed: nobody waits for it.
        fixture.startRound()
        #expect(!fixture.finishRound().wakes)
    }

    // MARK: observe

    @Test func observingWithNoRoundJoinsTheSlabAtOnce() {
        let fixture = Fixture()
        let first = fixture.makeObserver()
        let second = fixture.makeObserver()
        #expect(fixture.observe(first, first: false, on: Self.other) == .nothing)
        #expect(fixture.observe(second, first: false, on: Self.other) == .nothing)
        #expect(first.place == .inSlab(0))
        #expect(second.place == .inSlab(1))
        #expect(fixture.checked.observerCount == 2)
    }

    @Test func observingWithAFirstValueAndNothingGoingOnStartsALoneFirstDeliveryThatEndsWithoutTheMachine() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        #expect(fixture.observe(observer, first: true, on: Self.other) == .deliverLoneFirstValue)
        #expect(observer.place == .inSlab(0))
        // In the round word alone: no entry, no round.
        #expect(fixture.checked.firstDeliveries.isEmpty)
        #expect(fixture.lone === observer && fixture.round == .idle)
        #expect(fixture.endLoneFirstDelivery(observer))
        #expect(fixture.lone == nil)
    }

    @Test func observingWithAFirstValueBesideAnotherFirstDeliveryStartsAnOrdinaryOne() {
        let fixture = Fixture()
        let lone = fixture.makeObserver()
        let second = fixture.makeObserver()
        #expect(fixture.observe(lone, first: true, on: Self.other) == .deliverLoneFirstValue)
        #expect(fixture.observe(second, first: true, on: Self.drainer) == .deliverFirstValue)
        // The second observe reached the machine: the lone first delivery became an
        // ordinary one, and the second is one too.
        #expect(fixture.checked.firstDeliveries.count == 2)
        #expect(fixture.lone == nil)
        #expect(fixture.machine.delivery.besideFirstDeliveries)
        #expect(!fixture.endLoneFirstDelivery(lone) && !fixture.endLoneFirstDelivery(second))
        #expect(fixture.nextOfFirstDelivery(second) == .ended(dropping: []))
        #expect(fixture.nextOfFirstDelivery(lone) == .ended(dropping: []))
        #expect(fixture.checked.firstDeliveries.isEmpty)
    }

    @Test func observingWithoutAFirstValueDuringALoneFirstDeliveryMakesItAnOrdinaryOne() {
        let fixture = Fixture()
        let lone = fixture.makeObserver()
        let plain = fixture.makeObserver()
        _ = fixture.observe(lone, first: true, on: Self.other)
        #expect(fixture.observe(plain, first: false, on: Self.drainer) == .nothing)
        #expect(plain.place == .inSlab(1))
        #expect(fixture.checked.firstDeliveries.count == 1)
        #expect(fixture.lone == nil)
        #expect(!fixture.endLoneFirstDelivery(lone))
        #expect(fixture.nextOfFirstDelivery(lone) == .ended(dropping: []))
    }

    @Test func aChangeDuringALoneFirstDeliveryMakesItAnOrdinaryOneThatTheRoundQueuesFor() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: true, on: Self.other)
        let delivery = fixture.change(on: Self.drainer)
        #expect(delivery?.besideFirstDeliveries == true && delivery?.count == 1)
        #expect(fixture.checked.firstDeliveries.count == 1)
        #expect(fixture.round == .running(drainer: Self.drainer) && fixture.lone == nil)
        #expect(fixture.queueForFirstDelivery(observer, 1))
        #expect(fixture.finishRound().delivered.isEmpty)
        // The observing thread's lock-free end fails: the machine has a value for it.
        #expect(!fixture.endLoneFirstDelivery(observer))
        #expect(fixture.nextOfFirstDelivery(observer) == .deliver(1))
        #expect(fixture.nextOfFirstDelivery(observer) == .ended(dropping: []))
        #expect(fixture.checked.firstDeliveries.isEmpty)
    }

    @Test func removingTheObserverOfALoneFirstDeliveryMakesItAnOrdinaryOneThatEnds() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: true, on: Self.other)
        // From its own first value's call, say: there is no round.
        #expect(fixture.remove(observer, on: Self.other) == "release")
        #expect(observer.place == .left)
        #expect(fixture.checked.firstDeliveries.count == 1)
        #expect(fixture.lone == nil)
        #expect(!fixture.endLoneFirstDelivery(observer))
        #expect(fixture.nextOfFirstDelivery(observer) == .ended(dropping: []))
        #expect(fixture.checked.firstDeliveries.isEmpty)
    }

    @Test func aLoneFirstDeliveryThatEndedLeavesNothingForTheNextChange() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: true, on: Self.other)
        #expect(fixture.endLoneFirstDelivery(observer))
        let delivery = fixture.change(on: Self.drainer)
        #expect(delivery?.besideFirstDeliveries == false && delivery?.count == 1)
        #expect(fixture.checked.firstDeliveries.isEmpty)
        _ = fixture.finishRound()
    }

    @Test func observingFromAnotherThreadDuringARoundJoinsBeforeTheNextLaterValue() {
        let fixture = Fixture()
        fixture.startRound()  // version 1
        let early = fixture.makeObserver()
        #expect(fixture.observe(early, first: false, on: Self.other) == .nothing)  // at 1
        #expect(fixture.change(on: Self.other) == nil)  // version 2, handed over
        let late = fixture.makeObserver()
        #expect(fixture.observe(late, first: true, on: Self.other) == .deliverFirstValue)  // at 2
        #expect(early.place == .joining && late.place == .joining)
        #expect(fixture.checked.observerCount == 2)

        // `early` joins before value 2 and gets it; `late` observed it already (first value).
        guard case .deliver(let value, let delivery) = fixture.nextStep() else {
            Issue.record("expected value 2")
            return
        }
        #expect(value.value as? Int == 2)
        #expect(delivery.count == 1)
        #expect(early.place == .inSlab(0))
        #expect(late.place == .joining)
        let end = fixture.finishRound()
        #expect(end.delivered.isEmpty)
        #expect(late.place == .inSlab(1))
        #expect(fixture.nextOfFirstDelivery(late) == .ended(dropping: []))
    }

    @Test func aJoinHandedOverBetweenTwoValuesJoinsAfterTheFirstAndBeforeTheSecond() {
        let fixture = Fixture()
        fixture.startRound()  // 1
        #expect(fixture.change(on: Self.other) == nil)  // 2, handed over
        let observer = fixture.makeObserver()
        #expect(fixture.observe(observer, first: false, on: Self.other) == .nothing)
        #expect(fixture.change(on: Self.other) == nil)  // 3, handed over after the join
        guard case .deliver(let second, let before) = fixture.nextStep() else {
            Issue.record("expected value 2")
            return
        }
        #expect(second.value as? Int == 2 && before.count == 0 && observer.place == .joining)
        guard case .deliver(let third, let after) = fixture.nextStep() else {
            Issue.record("expected value 3")
            return
        }
        #expect(third.value as? Int == 3 && after.count == 1 && observer.place == .inSlab(0))
        #expect(fixture.finishRound().delivered.isEmpty)
    }

    @Test func observingFromTheDrainersOwnRoundJoinsAfterItAndTakesItsFirstValueAtOnce() {
        let fixture = Fixture()
        fixture.startRound()
        let plain = fixture.makeObserver()
        let withFirst = fixture.makeObserver()
        #expect(fixture.observe(plain, first: false, on: Self.drainer) == .nothing)
        #expect(
            fixture.observe(withFirst, first: true, on: Self.drainer) == .deliverFirstValueInOwnRound)
        // No first delivery to track: nothing can be queued for it before it joins.
        #expect(fixture.checked.firstDeliveries.isEmpty)
        #expect(plain.place == .joining && withFirst.place == .joining)
        _ = fixture.finishRound()
        #expect(plain.place == .inSlab(0) && withFirst.place == .inSlab(1))
    }

    // MARK: remove

    @Test func removingAnObserverWithNoRoundTakesItOutAndHandsBackTheSlabsReference() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: false, on: Self.other)
        #expect(fixture.remove(observer, on: Self.other) == "release")
        #expect(observer.place == .left)
        #expect(fixture.checked.observerCount == 0)
    }

    @Test func removingAnObserverFromTheDrainersOwnRoundEmptiesItsSlotAtOnce() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: false, on: Self.other)
        let delivery = fixture.change(on: Self.drainer)!
        #expect(fixture.remove(observer, on: Self.drainer) == "nothing")
        #expect(fixture.isHandedOver)  // what it lets go of waits for the round's end
        // The round re-reads each slot: it will not call the observer again.
        #expect(delivery.slots![0] == nil)
        #expect(observer.place == .left)
        let end = fixture.finishRound()
        #expect(end.left.map(ObjectIdentifier.init) == [ObjectIdentifier(observer)])
    }

    @Test func removingAnObserverFromAnotherThreadDuringARoundLeavesBetweenValues() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: false, on: Self.other)
        let delivery = fixture.change(on: Self.drainer)!
        #expect(fixture.remove(observer, on: Self.other) == "nothing")
        #expect(observer.place == .leaving(0))
        #expect(delivery.slots![0] != nil)  // the drainer alone changes the slab in a round
        #expect(fixture.round == .running(drainer: Self.drainer) && fixture.isHandedOver)
        let end = fixture.finishRound()
        #expect(observer.place == .left)
        #expect(end.left.map(ObjectIdentifier.init) == [ObjectIdentifier(observer)])
    }

    @Test func removingAJoiningObserverFromAnotherThreadReleasesItsHandlerAndTheRoundSkipsIt() {
        let fixture = Fixture()
        fixture.startRound()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: false, on: Self.other)
        #expect(fixture.remove(observer, on: Self.other) == "releaseHandler")
        #expect(observer.place == .left)
        #expect(fixture.checked.observerCount == 0)
        let end = fixture.finishRound()
        #expect(end.left.isEmpty)
        #expect(fixture.machine.observers.live == 0)
    }

    @Test func removingAJoiningObserverFromTheDrainersThreadLetsTheRoundReleaseIt() {
        let fixture = Fixture()
        fixture.startRound()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: true, on: Self.drainer)
        #expect(fixture.remove(observer, on: Self.drainer) == "nothing")
        #expect(observer.place == .leftWhileJoining)
        let end = fixture.finishRound()
        #expect(end.left.map(ObjectIdentifier.init) == [ObjectIdentifier(observer)])
        #expect(observer.place == .left)
        #expect(fixture.machine.observers.live == 0)
    }

    @Test func removingAnObserverThatIsLeavingOrLeftChangesNothing() {
        let fixture = Fixture()
        let leaving = fixture.makeObserver()
        _ = fixture.observe(leaving, first: false, on: Self.other)
        fixture.startRound()
        _ = fixture.remove(leaving, on: Self.other)
        #expect(fixture.remove(leaving, on: Self.other) == "nothing")
        #expect(fixture.remove(leaving, on: Self.drainer) == "nothing")
        #expect(leaving.place == .leaving(0))

        let leftWhileJoining = fixture.makeObserver()
        _ = fixture.observe(leftWhileJoining, first: false, on: Self.drainer)
        _ = fixture.remove(leftWhileJoining, on: Self.drainer)
        #expect(fixture.remove(leftWhileJoining, on: Self.other) == "nothing")
        #expect(leftWhileJoining.place == .leftWhileJoining)

        let end = fixture.finishRound()
        #expect(end.left.map(ObjectIdentifier.init) == [leaving, leftWhileJoining].map(ObjectIdentifier.init))
        #expect(fixture.remove(leaving, on: Self.other) == "nothing")
        #expect(leaving.place == .left && leftWhileJoining.place == .left)
    }

    @Test func removingMostObserversWithNoRoundCompactsTheSlabAndTellsEachItsSlot() {
        let fixture = Fixture()
        let observers = (0..<20).map { _ in fixture.makeObserver() }
        for observer in observers {
            _ = fixture.observe(observer, first: false, on: Self.other)
        }
        for observer in observers.prefix(15) {
            #expect(fixture.remove(observer, on: Self.other) == "release")
        }
        #expect(fixture.checked.observers.count < 20)
        let firstOfTheLastFive = fixture.machine.observers.count - 5
        #expect(
            observers.suffix(5).map(\.place) == (0..<5).map { .inSlab(ObserverSlab.Index(firstOfTheLastFive + $0)) })
    }

    @Test func aRoundCompactsTheSlabOnlyWhenItEnds() {
        let fixture = Fixture()
        let observers = (0..<20).map { _ in fixture.makeObserver() }
        for observer in observers {
            _ = fixture.observe(observer, first: false, on: Self.other)
        }
        fixture.startRound()
        for observer in observers.prefix(15) {
            #expect(fixture.remove(observer, on: Self.drainer) == "nothing")
        }
        #expect(fixture.checked.observers.count == 20)  // the round walks these slots
        let end = fixture.finishRound()
        #expect(end.left.map(ObjectIdentifier.init) == observers.prefix(15).map(ObjectIdentifier.init))
        #expect(fixture.checked.observers.count == 5)
        #expect(observers.suffix(5).map(\.place) == (0..<5).map { .inSlab($0) })
    }

    // MARK: first deliveries

    @Test func aRoundQueuesItsValueForAnObserverWhoseFirstValueIsBeingDelivered() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        let bystander = fixture.makeObserver()
        _ = fixture.observe(bystander, first: false, on: Self.other)
        _ = fixture.observe(observer, first: true, on: Self.other)
        #expect(fixture.change(on: Self.drainer)?.besideFirstDeliveries == true)
        #expect(!fixture.queueForFirstDelivery(bystander, 1))
        #expect(fixture.queueForFirstDelivery(observer, 1))
        #expect(fixture.queueForFirstDelivery(observer, 2))
        _ = fixture.finishRound()
        #expect(fixture.nextOfFirstDelivery(observer) == .deliver(1))
        #expect(fixture.nextOfFirstDelivery(observer) == .deliver(2))
        #expect(fixture.nextOfFirstDelivery(observer) == .ended(dropping: []))
        #expect(fixture.checked.firstDeliveries.isEmpty)
    }

    @Test func aFirstDeliveryOfAnObserverCleanedMeanwhileEndsAndDropsWhatWasQueued() {
        let fixture = Fixture()
        let observer = fixture.makeObserver()
        _ = fixture.observe(observer, first: true, on: Self.other)
        #expect(fixture.change(on: Self.drainer)?.besideFirstDeliveries == true)
        #expect(fixture.queueForFirstDelivery(observer, 1))
        #expect(fixture.queueForFirstDelivery(observer, 2))
        _ = fixture.finishRound()
        #expect(fixture.remove(observer, on: Self.other) == "release")
        #expect(fixture.nextOfFirstDelivery(observer) == .ended(dropping: [1, 2]))
        #expect(fixture.checked.firstDeliveries.isEmpty)
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func aFirstDeliveryThatWasNeverStartedStopsWithAnInternalInconsistency() async {
        await #expect(processExitsWith: .failure) {
            let fixture = Fixture()
            _ = fixture.nextOfFirstDelivery(fixture.makeObserver())
        }
    }
    #endif
}
