import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

extension Dispatcher {
    enum Pair: DispatchState, Equatable {
        typealias RelatedStoreType = PairStore
        typealias RelatedActionType = PairAction

        /// Sets `left`, then `right`.
        case setBoth(Int, Int)
        case setLeft(Int)
        case setRight(Int)
        /// Adds one to both, each read from its own value.
        case incrementBoth
    }
}

/// A store with two values, set one after the other by one reduce, and a hook that runs
/// between the two sets.
final class PairStore: Storable {
    typealias DispatchStateType = Dispatcher.Pair

    let left: Constant<Int>
    let right: Constant<Int>
    private let _left = Variable(0)
    private let _right = Variable(0)
    /// Runs after `left` is set and before `right` is, in `setBoth`.
    let betweenSets = Locked<(@Sendable () -> Void)?>(nil)

    required init() {
        left = Constant(_left)
        right = Constant(_right)
    }

    func reduce(with state: Dispatcher.Pair) {
        switch state {
        case .setBoth(let left, let right):
            _left.value = left
            betweenSets.value?()
            _right.value = right
        case .setLeft(let value): _left.value = value
        case .setRight(let value): _right.value = value
        case .incrementBoth:
            _left.value += 1
            _right.value += 1
        }
    }
}

struct PairAction: Actionable {
    typealias DispatchStateType = Dispatcher.Pair
}

/// Two integers, as a combined value of two sources records them.
struct Both: Equatable, Sendable, CustomStringConvertible {
    let left: Int
    let right: Int

    init(_ left: Int, _ right: Int) {
        self.left = left
        self.right = right
    }

    var description: String { "(\(left), \(right))" }
}

/// Parks the thread that delivers a round of a value inside one of its observers, until
/// released: that thread is then the value's drainer, and a change made meanwhile on
/// another thread is handed over to it.
final class ParkedDrainer: Sendable {
    private let parked = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let armed = Locked(false)
    private let dust: Dust

    /// Observes `variable` (before anything else observes it) with an observer that parks.
    init(_ variable: Variable<Int>) {
        let (parked, release, armed) = (self.parked, self.release, self.armed)
        dust = variable.observe(ignoreFirst: true) { _ in
            let park = armed.withLock { isArmed in
                defer { isArmed = false }
                return isArmed
            }
            if park {
                parked.signal()
                release.wait()
            }
        }
    }

    /// Sets `variable` to `value` on a new thread and returns once that thread is parked in
    /// the round.
    func park(setting variable: Variable<Int>, to value: Int) {
        armed.withLock { $0 = true }
        let finished = self.finished
        let scope = Dispatcher.current
        Thread {
            Dispatcher.withCurrent(scope) { variable.value = value }
            finished.signal()
        }.start()
        parked.wait()
    }

    /// Lets the parked thread finish its round, and waits until it has.
    func finish() {
        release.signal()
        finished.wait()
    }

    deinit { dust.clean() }
}

@Suite("Combined values: Constant(combining:)", .isolatedDispatcher)
struct CombinedValueTests {
    @Test func theCurrentValueComesFirst() {
        let left = Variable(1)
        let right = Constant(Variable("a"))
        let combined = Constant(combining: left, right) { "\($0)\($1)" }
        let recorder = ValueRecorder(combined)
        #expect(combined.value == "1a")
        #expect(recorder.values == ["1a"])
    }

    @Test func oneDispatchThatChangesTwoSourcesIsOneChange() {
        let store = PairStore.instantiate()
        let combined = Constant(combining: store.left, store.right) { Both($0, $1) }
        let recorder = ValueRecorder(combined)
        // What `.current` observers of the sources and of the combined value see while the
        // reduce runs: the combined value never holds the new left with the old right.
        let seenDuringReduce = Locked<[Both]>([])
        let dust = store.left.observe(ignoreFirst: true) { _ in
            seenDuringReduce.withLock { $0.append(combined.value) }
        }
        defer { dust.clean() }
        store.betweenSets.withLock { $0 = { seenDuringReduce.withLock { $0.append(combined.value) } } }

        PairAction().invoke(.setBoth(1, 2))

        #expect(recorder.values == [Both(0, 0), Both(1, 2)], "one delivery, after the reduce")
        #expect(seenDuringReduce.value == [Both(0, 0), Both(0, 0)])
        #expect(combined.value == Both(1, 2))
    }

    @Test func eachReduceOfAReentrantDispatchIsItsOwnChange() {
        let store = PairStore.instantiate()
        let combined = Constant(combining: store.left, store.right) { Both($0, $1) }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        // An observer of the combined value dispatches: that dispatch runs after the
        // current one, and its reduce is a change of its own.
        let dust = combined.observe(ignoreFirst: true) { value in
            if value == Both(1, 1) {
                PairAction().invoke(.setBoth(5, 6))
            }
        }
        defer { dust.clean() }
        PairAction().invoke(.incrementBoth)
        #expect(recorder.values == [Both(1, 1), Both(5, 6)])
    }

    @Test func aDispatchThatLeavesTheResultAsItWasIsStillOneChange() {
        let store = PairStore.instantiate()
        let sum = Constant(combining: store.left, store.right) { $0 + $1 }
        let recorder = ValueRecorder(sum, ignoreFirst: true)
        let distinct = ValueRecorder(sum.removeDuplicates(), ignoreFirst: true)
        PairAction().invoke(.setBoth(1, 1))
        // The sources change, the sum does not: one delivery of the same sum, as `map`
        // delivers a repeated result; `removeDuplicates()` drops it.
        PairAction().invoke(.setBoth(2, 0))
        // A reduce that sets a source to the value it holds is a change too.
        PairAction().invoke(.setLeft(2))
        #expect(recorder.values == [2, 2, 2])
        #expect(distinct.values == [2])
    }

    @Test func outsideADispatchEachSetIsItsOwnChange() {
        let left = Variable(0)
        let right = Variable(0)
        let combined = Constant(combining: left, right) { Both($0, $1) }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        left.value = 1
        right.value = 2
        left.value = 3
        #expect(recorder.values == [Both(1, 0), Both(1, 2), Both(3, 2)])
    }

    @Test func anyNumberOfSourcesOfDifferentTypes() {
        let count = Variable(2)
        let name = Constant(Variable("flux"))
        let isOn = Variable(true)
        let single = Constant(combining: count) { $0 * 10 }
        let combined = Constant(combining: count, name, isOn) { count, name, isOn in
            isOn ? String(repeating: name, count: count) : ""
        }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        count.value = 1
        isOn.value = false
        #expect(recorder.values == ["flux", ""])
        #expect(single.value == 10)
    }

    @Test func combinedValuesOfOneDispatchChangeOnceAlsoWhenComposed() {
        let store = PairStore.instantiate()
        let other = Variable(0)
        // `total` is made from `left` (set first by the reduce) and, through `map`, from
        // `pair`, whose sources the reduce sets after: it is recomputed after `pair` is.
        let pair = Constant(combining: other, store.right) { Both($0, $1) }
        let total = Constant(combining: store.left, pair.map { $0.left + $0.right }) { $0 * 100 + $1 }
        let recorder = ValueRecorder(total, ignoreFirst: true)
        store.betweenSets.withLock { $0 = { other.value = 7 } }
        PairAction().invoke(.setBoth(1, 2))
        #expect(recorder.values == [109], "one change, with the pair's new value")
    }

    @Test func aSourceHandedOverToAnotherThreadIsReadAsTheReduceLeftIt() {
        let store = PairStore.instantiate()
        // The right value's drainer is parked in a round on another thread, so the
        // reduce's set of `right` is handed over to it and not delivered during the
        // dispatch; the left one is delivered during the dispatch.
        let rightVariable = Variable(0)
        let right = Constant(rightVariable)
        let parked = ParkedDrainer(rightVariable)
        let left = store.left
        let combined = Constant(combining: left, right) { Both($0, $1) }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        parked.park(setting: rightVariable, to: 9)
        store.betweenSets.withLock { $0 = { rightVariable.value = 2 } }
        PairAction().invoke(.setBoth(1, 0))
        #expect(recorder.values == [Both(1, 2)], "read after the reduce, the handed-over value included")
        parked.finish()
        #expect(recorder.values == [Both(1, 2)], "the handed-over deliveries find nothing new")
    }

    @Test func sourcesAllHandedOverAreReadOnceTheDispatchHasEnded() {
        let leftVariable = Variable(0)
        let rightVariable = Variable(0)
        let parkedLeft = ParkedDrainer(leftVariable)
        let parkedRight = ParkedDrainer(rightVariable)
        let combined = Constant(combining: leftVariable, rightVariable) { Both($0, $1) }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        parkedLeft.park(setting: leftVariable, to: 8)
        parkedRight.park(setting: rightVariable, to: 9)
        let store = PairStore.instantiate()
        store.betweenSets.withLock {
            $0 = {
                leftVariable.value = 1
                rightVariable.value = 2
            }
        }
        // Nothing reaches the combined value during this dispatch: both sets wait for the
        // parked threads.
        PairAction().invoke(.setBoth(0, 0))
        #expect(recorder.values == [])
        parkedLeft.finish()
        parkedRight.finish()
        #expect(recorder.values == [Both(1, 2)])
    }

    @Test func aSetOnAnotherThreadDuringAReduceWaitsForTheDispatchToEnd() {
        let store = PairStore.instantiate()
        let third = Variable(0)
        // Registered before the combined value, so it runs before the combined value hears
        // of the set: tells the reduce that the other thread is about to read.
        let aboutToRead = DispatchSemaphore(value: 0)
        let dust = third.observe(ignoreFirst: true) { _ in aboutToRead.signal() }
        defer { dust.clean() }
        let combined = Constant(combining: store.left, store.right, third) { [$0, $1, $2] }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        let setterFinished = DispatchSemaphore(value: 0)
        let scope = Dispatcher.current
        store.betweenSets.withLock {
            $0 = {
                // Halfway through the reduce: `left` is 1, `right` still 0.
                let thread = Thread {
                    // In the test's dispatcher, as a thread started in a scope must be.
                    Dispatcher.withCurrent(scope) { third.value = 5 }
                    setterFinished.signal()
                }
                thread.start()
                aboutToRead.wait()
                // Give the other thread time to reach its read; it must wait for this
                // dispatch, however long this takes.
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        PairAction().invoke(.setBoth(1, 2))
        setterFinished.wait()
        #expect(recorder.values.allSatisfy { $0[0] == 0 || $0[1] == 2 }, "\(recorder.values)")
        #expect(recorder.values.last == [1, 2, 5])
    }

    @Test func theTransformRunsOutsideTheDispatcherWhenASourceIsSetOutsideADispatch() {
        let store = PairStore.instantiate()
        let source = Variable(0)
        // A transform should be free of side effects; but if it dispatches, the dispatch
        // runs at once, as one from any code outside a dispatch does (the sources are read
        // holding the dispatcher, the transform runs after).
        let combined = Constant(combining: source, store.left) { value, _ in
            if value > 0 {
                PairAction().invoke(.setRight(value))
            }
            return value
        }
        source.value = 3
        #expect(store.right.value == 3)
        #expect(combined.value == 3)
    }

    @Test func noHalfwayCombinationWhileOtherThreadsSetSources() {
        let store = PairStore.instantiate()
        let third = Variable(0)
        let combined = Constant(combining: store.left, store.right, third) { ($0, $1, $2) }
        let seen = Locked<[(Int, Int, Int)]>([])
        let dust = combined.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        // Two threads dispatch `incrementBoth` (left and right always move together); two
        // set the third source outside any dispatch.
        onThreads(4) { index in
            for step in 1...300 {
                if index < 2 {
                    PairAction().invoke(.incrementBoth)
                } else {
                    third.value = step
                }
            }
        }
        let values = seen.value
        #expect(values.allSatisfy { $0.0 == $0.1 }, "never a halfway combination of one reduce")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 <= $1.0 }, "in order")
        #expect(values.last.map { $0.0 == 600 && $0.1 == 600 } == true)
        #expect(combined.value.0 == 600 && combined.value.2 == third.value)
    }

    @Test func manySetsFromThreadsArriveInOrderAndEndWithTheLastValues() {
        let sources = (0..<4).map { _ in Variable(0) }
        let combined = Constant(combining: sources[0], sources[1], sources[2], sources[3]) { [$0, $1, $2, $3] }
        let seen = Locked<[[Int]]>([])
        let dust = combined.observe { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        onThreads(4) { index in
            for step in 1...500 {
                sources[index].value = step
            }
        }
        let values = seen.value
        #expect(values.first == [0, 0, 0, 0])
        #expect(values.last == [500, 500, 500, 500])
        #expect(values.count <= 2_001)
        for (earlier, later) in zip(values, values.dropFirst()) {
            #expect(zip(earlier, later).allSatisfy { $0 <= $1 }, "\(earlier) then \(later)")
        }
        #expect(combined.value == [500, 500, 500, 500])
    }

    @Test func oneThreadsSetsOfOneSourceAreEachAChange() {
        let source = Variable(0)
        let other = Variable(0)
        let combined = Constant(combining: source, other) { $0 + $1 }
        let recorder = ValueRecorder(combined, ignoreFirst: true)
        onThreads(1) { _ in
            for step in 1...100 {
                source.value = step
            }
        }
        #expect(recorder.values == Array(1...100))
    }

    @Test func readingItInObservationTrackingIsToldOfEachSourcesChange() {
        let store = PairStore.instantiate()
        let other = Variable(0)
        let combined = Constant(combining: store.left, store.right, other) { $0 + $1 + $2 }
        for change in [
            { PairAction().invoke(.setBoth(1, 2)) }, { other.value = 5 }, { PairAction().invoke(.setRight(0)) },
        ] {
            let changed = Locked(0)
            let read = withObservationTracking {
                combined.value
            } onChange: {
                changed.withLock { $0 += 1 }
            }
            let before = read
            change()
            #expect(changed.value == 1, "invalidated once by the change after \(before)")
        }
        #expect(combined.value == 6)
    }

    @Test func aCombinedValueHoldsItsSourcesAndDroppingItReleasesEverything() {
        let deinits = Locked(0)
        weak var weakCombined: ValueCore<Int>?
        weak var weakLeft: ValueCore<Int>?
        let right = Variable(0)
        do {
            let combined: Constant<Int>
            do {
                let left = Variable(1)
                weakLeft = left.core
                let tracked = Tracked(deinits)
                combined = Constant(combining: left, right) { left, right in
                    _ = tracked
                    return left + right
                }
                weakCombined = combined.core
            }
            #expect(weakLeft != nil, "the combined value holds its sources")
            #expect(right.core.observerCount == 1)
            right.value = 2
            #expect(combined.value == 3)
        }
        #expect(weakCombined == nil)
        #expect(weakLeft == nil)
        #expect(right.core.observerCount == 0, "its observations of the sources are cleaned")
        #expect(deinits.value == 1, "what the transform captured is released")
    }

    @Test func observingACombinedValueKeepsItAliveUntilCleaned() {
        let left = Variable(0)
        let right = Variable(0)
        let buster = DustBuster()
        let seen = Locked<[Int]>([])
        Constant(combining: left, right) { $0 - $1 }
            .observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
            .cleaned(by: buster)
        left.value = 3
        right.value = 1
        #expect(seen.value == [3, 2])
        buster.clean()
        #expect(left.core.observerCount == 0)
        #expect(right.core.observerCount == 0)
        left.value = 10
        #expect(seen.value == [3, 2])
    }

    @Test func storesOfOneDispatcherEachChangeItOncePerReduce() {
        let dispatcher = Dispatcher()
        Dispatcher.withCurrent(dispatcher) {
            let store = PairStore.instantiate()
            let combined = Constant(combining: store.left, store.right, store.left) { [$0, $1, $2] }
            let recorder = ValueRecorder(combined, ignoreFirst: true)
            PairAction().invoke(.setBoth(1, 2))
            PairAction().invoke(.setBoth(3, 4))
            #expect(recorder.values == [[1, 2, 1], [3, 4, 3]])
        }
    }
}
