import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
import Testing

@testable import FluxCapacitor

@Suite("Derived values: map and removeDuplicates", .isolatedDispatcher)
struct DerivedValueTests {
    @Test func aMappedValueFollowsItsSource() {
        let source = Variable([1, 2])
        let count = source.map(\.count)
        let recorder = ValueRecorder(count)
        source.value.append(3)
        source.value = []
        #expect(count.value == 0)
        #expect(recorder.values == [2, 3, 0])
    }

    @Test func mappedValuesCompose() {
        let source = Variable(1)
        let described = source.map { $0 * 10 }.map { "\($0) points" }
        source.value = 2
        #expect(described.value == "20 points")
    }

    @Test func removeDuplicatesReportsOnlyChanges() {
        let source = Variable(1)
        let distinct = source.removeDuplicates()
        let recorder = ValueRecorder(distinct, ignoreFirst: true)
        for value in [1, 2, 2, 2, 3, 3, 1] {
            source.value = value
        }
        #expect(recorder.values == [2, 3, 1])
        #expect(distinct.value == 1)
    }

    @Test func droppingADerivedValueReleasesItsObservationOfTheSource() {
        let source = Variable(0)
        let deinits = Locked(0)
        weak var weakDerived: ValueCore<Int>?
        do {
            let tracked = Tracked(deinits)
            let derived = source.map { value in
                _ = tracked
                return value + 1
            }
            weakDerived = derived.core
            #expect(source.core.observerCount == 1)
            source.value = 1
            #expect(derived.value == 2)
        }
        #expect(weakDerived == nil)
        #expect(source.core.observerCount == 0)
        #expect(deinits.value == 1, "what the transform captured is released")
    }

    @Test func aDerivedValueHoldsItsSource() {
        weak var weakSource: ValueCore<Int>?
        let derived: Constant<Int>
        do {
            let source = Variable(5)
            weakSource = source.core
            derived = source.map { $0 * 2 }
        }
        #expect(weakSource != nil)
        #expect(derived.value == 10)
    }

    @Test func observingADerivedValueKeepsItAliveUntilCleaned() {
        let source = Variable(0)
        let seen = Locked<[Int]>([])
        let buster = DustBuster()
        source.map { $0 * 2 }.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }.cleaned(
            by: buster)
        source.value = 1
        source.value = 2
        #expect(seen.value == [2, 4])
        buster.clean()
        #expect(source.core.observerCount == 0)
        source.value = 3
        #expect(seen.value == [2, 4])
    }

    @Test func cleaningOneDerivedObservationLeavesTheOthersUntouched() {
        let source = Variable(0)
        let doubled = source.map { $0 * 2 }
        let distinct = source.removeDuplicates()
        let first = ValueRecorder(doubled, ignoreFirst: true)
        let second = ValueRecorder(doubled, ignoreFirst: true)
        let third = ValueRecorder(distinct, ignoreFirst: true)
        source.value = 1
        first.stop()
        source.value = 2
        #expect(first.values == [2])
        #expect(second.values == [2, 4])
        #expect(third.values == [1, 2])
        #expect(source.core.observerCount == 2)
    }

    @Test func aDerivedValueTakesEveryValueFromConcurrentProducersOnce() {
        let source = Variable(0)
        let calls = Locked(0)
        let doubled = source.map { value in
            calls.withLock { $0 += 1 }
            return value * 2
        }
        let recorder = ValueRecorder(doubled, ignoreFirst: true)
        onThreads(4) { thread in
            for step in 1...250 {
                source.value = thread * 1_000 + step
            }
        }
        #expect(calls.value == 1 + 1_000)
        #expect(Set(recorder.values).count == 1_000)
        #expect(doubled.value == source.value * 2)
    }

    @Test func removeDuplicatesByAPredicateComparesWithTheLastValueTaken() {
        let source = Variable([1, 2])
        let sameCount = source.removeDuplicates { $0.count == $1.count }
        let recorder = ValueRecorder(sameCount, ignoreFirst: true)
        source.value = [3, 4]
        source.value = [5]
        source.value = [6]
        source.value = [7, 8, 9]
        #expect(recorder.values == [[5], [7, 8, 9]])
    }
}
