import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

/// A view model as a SwiftUI app writes it: it reads the store directly in a computed
/// property, with no copy of the store's state.
@Observable
final class CounterViewModel {
    let store: CounterStore
    var prefix = "count"

    init(store: CounterStore = .instantiate()) {
        self.store = store
    }

    var label: String {
        "\(prefix): \(store.count.value)"
    }
}

/// Main-actor state that mirrors a store value changed on other threads.
@MainActor
@Observable
final class MainActorMirror {
    var count = 0
}

/// Reads `read` inside `withObservationTracking`, as a SwiftUI body does; returns what it
/// read and a count of the calls of `onChange`.
func countingChanges<Result>(_ read: () -> Result) -> (result: Result, changes: Locked<Int>) {
    let changes = Locked(0)
    let result = withObservationTracking(read) {
        changes.withLock { $0 += 1 }
    }
    return (result, changes)
}

@Suite("Swift Observation of values", .isolatedDispatcher)
struct ObservationTrackingTests {
    // MARK: Tracking

    @Test func aTrackedReadFiresOnceOnTheNextChange() {
        let variable = Variable(0)
        let changes = countingChanges { variable.value }.changes
        #expect(changes.value == 0)
        variable.value = 1
        #expect(changes.value == 1)
        variable.value = 2
        #expect(changes.value == 1, "once per registration, as for an @Observable property")
    }

    @Test func anInPlaceChangeFiresOnceAndOnChangeSeesTheOldValue() {
        let variable = Variable([1])
        let seen = Locked<[[Int]]>([])
        withObservationTracking {
            _ = variable.value
        } onChange: {
            // Like an @Observable property: onChange runs before the change is stored.
            seen.withLock { $0.append(variable.value) }
        }
        variable.value.append(2)
        variable.value.append(3)
        #expect(seen.value == [[1]])
        #expect(variable.value == [1, 2, 3])
    }

    @Test func eachRegistrationHearsTheChangeAfterIt() {
        let variable = Variable(0)
        let registrations = (1...3).map { value in
            let changes = countingChanges { variable.value }.changes
            variable.value = value
            return changes.value
        }
        #expect(registrations == [1, 1, 1])
    }

    @Test func aConstantIsTrackedThroughItsVariable() {
        let variable = Variable("a")
        let constant = Constant(variable)
        let changes = countingChanges { constant.value }.changes
        variable.value = "b"
        #expect(changes.value == 1)
    }

    @Test func aDerivedValueIsTrackedThroughItsSource() {
        let variable = Variable([1, 2])
        let count = variable.map(\.count)
        let changes = countingChanges { count.value }.changes
        variable.value.append(3)
        #expect(changes.value == 1)
        #expect(count.value == 3)
    }

    @Test func aDispatchThatChangesATrackedValueFires() {
        let store = CounterStore.instantiate()
        let (count, changes) = countingChanges { store.count.value }
        #expect(count == 0)
        CounterAction().invoke(.increment)
        #expect(changes.value == 1, "fired before invoke returned")
        #expect(store.count.value == 1)
    }

    @Test func changingAValueThatWasNotReadDoesNotFire() {
        let read = Variable(0)
        let untouched = Variable(0)
        let otherStoreValue = CounterStore.instantiate()
        let changes = countingChanges { read.value }.changes
        untouched.value = 1
        untouched.value += 1
        CounterAction().invoke(.increment)
        #expect(otherStoreValue.count.value == 1)
        #expect(changes.value == 0)
        read.value = 1
        #expect(changes.value == 1)
    }

    @Test func anObservableModelWhoseComputedPropertyReadsAStoreIsTracked() {
        let model = CounterViewModel()
        let (label, changes) = countingChanges { model.label }
        #expect(label == "count: 0")
        CounterAction().invoke(.add(2))
        #expect(changes.value == 1)
        #expect(model.label == "count: 2")

        // The model's own properties are tracked beside the store's values.
        let again = countingChanges { model.label }.changes
        model.prefix = "total"
        #expect(again.value == 1)
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @Test(.timeLimit(.minutes(1)))
    func observationsYieldsTheCurrentValueThenChanges() async {
        let variable = Variable(0)
        var iterator = Observations { variable.value }.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        variable.value = 1
        #expect(await iterator.next() == 1)
        variable.value += 1
        #expect(await iterator.next() == 2)
    }

    // MARK: Threads

    @Test func aChangeOnAnotherThreadFiresOnThatThreadBeforeTheChangeReturns() {
        let variable = Variable(0)
        let firedOn = Locked<[UInt]>([])
        withObservationTracking {
            _ = variable.value
        } onChange: {
            firedOn.withLock { $0.append(ThreadID.current) }
        }
        let setter = Locked<UInt>(0)
        let firedBeforeSetReturned = Locked(false)
        onThreads(1) { _ in
            setter.withLock { $0 = ThreadID.current }
            variable.value = 1
            firedBeforeSetReturned.withLock { $0 = firedOn.value.count == 1 }
        }
        #expect(firedOn.value == [setter.value])
        #expect(firedBeforeSetReturned.value)
    }

    @Test @MainActor func aDispatchFromTheMainActorFiresOnTheMainQueue() {
        let mainKey = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainKey, value: "main")
        let store = CounterStore.instantiate()
        let onMainQueue = Locked<[Bool]>([])
        withObservationTracking {
            _ = store.count.value
        } onChange: {
            onMainQueue.withLock { $0.append(DispatchQueue.getSpecific(key: mainKey) == "main") }
        }
        CounterAction().invoke(.increment)
        #expect(onMainQueue.value == [true])
    }

    @Test @MainActor func aValueBoundIntoMainActorStateChangesItOnTheMainQueue() async throws {
        let mainKey = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainKey, value: "main")
        let store = CounterStore.instantiate()
        let mirror = MainActorMirror()
        store.count.bind(to: mirror, \.count)
        let onMainQueue = Locked<[Bool]>([])
        withObservationTracking {
            _ = mirror.count
        } onChange: {
            onMainQueue.withLock { $0.append(DispatchQueue.getSpecific(key: mainKey) == "main") }
        }
        // A dispatch from a background thread: the store changes there, the mirror on the
        // main actor.
        onThreads(1) { _ in CounterAction().invoke(.increment) }
        try await waitUntil { MainActor.assumeIsolated { mirror.count == 1 } }
        #expect(onMainQueue.value == [true])
    }

    /// The safety of the "read through `.value`" flag: a tracker whose install returned
    /// hears the next change that starts after it, even when the read that made the value
    /// trackable raced changes and other reads. (A "read since the last change" flag that
    /// changes clear fails this: a change between the read and the install clears it.)
    ///
    /// It does not check that `onChange` ran only once: when a change races the install,
    /// Observation itself may call it twice, for an `@Observable` class's property too (this
    /// harness on such a property saw it about once in 2,500 rounds). A version of the core
    /// with a flag that changes clear failed this test in every run tried (6 to 18 misses in
    /// 200 rounds).
    @Test func aTrackerInstalledWhileChangesRaceHearsEveryLaterChange() {
        let rounds = 200
        let missed = Locked(0)
        for round in 0..<rounds {
            let variable = Variable(0)
            let installed = Locked(false)
            let settingDone = Locked(false)
            let fired = Locked(0)
            onThreads(3) { index in
                switch index {
                case 0:
                    withObservationTracking {
                        _ = variable.value
                    } onChange: {
                        fired.withLock { $0 += 1 }
                    }
                    installed.withLock { $0 = true }
                case 1:
                    var step = 0
                    while true {
                        let wasInstalled = installed.value
                        step += 1
                        if (round + step) % 2 == 0 {
                            variable.value = step
                        } else {
                            variable.value += 1
                        }
                        if wasInstalled {
                            // onChange runs inside the change, on this thread.
                            if fired.value == 0 { missed.withLock { $0 += 1 } }
                            break
                        }
                    }
                    settingDone.withLock { $0 = true }
                default:
                    while !settingDone.value {
                        _ = variable.value
                    }
                }
            }
        }
        #expect(missed.value == 0)
    }

    // MARK: Cost

    @Test func aValueNeverReadThroughValueSkipsObservation() {
        let variable = Variable(0)
        let recorder = ValueRecorder(variable, ignoreFirst: false)
        let doubled = variable.map { $0 * 2 }
        let dust = doubled.observe(ignoreFirst: false) { _ in }
        defer { dust.clean() }
        variable.value = 1
        variable.value += 1
        #expect(recorder.values == [0, 1, 2])
        #expect(!variable.core.hasObservationBridge)
        #expect(!doubled.core.hasObservationBridge)
        _ = variable.value
        #expect(variable.core.hasObservationBridge)
    }

    // MARK: Lifetimes

    @Test func trackingKeepsNeitherTheValueNorItsElementAlive() {
        let deinits = Locked(0)
        weak var weakVariable: Variable<Tracked>?
        do {
            let variable = Variable(Tracked(deinits))
            weakVariable = variable
            withObservationTracking {
                _ = variable.value
            } onChange: {
            }
        }
        #expect(weakVariable == nil)
        #expect(deinits.value == 1)
    }

    @Test func onChangeIsLetGoOfAfterItFires() {
        let deinits = Locked(0)
        let variable = Variable(0)
        do {
            let captured = Tracked(deinits)
            withObservationTracking {
                _ = variable.value
            } onChange: {
                withExtendedLifetime(captured) {}
            }
        }
        #expect(deinits.value == 0)
        variable.value = 1
        #expect(deinits.value == 1)
    }

    @Test func onChangeIsLetGoOfWhenTheValueGoes() {
        let deinits = Locked(0)
        do {
            let variable = Variable(0)
            let captured = Tracked(deinits)
            withObservationTracking {
                _ = variable.value
            } onChange: {
                withExtendedLifetime(captured) {}
            }
        }
        #expect(deinits.value == 1)
    }

    @Test func aTrackedStoreIsFreedWhenItsLastHolderGoes() {
        weak var weakStore: CounterStore?
        do {
            let model = CounterViewModel()
            weakStore = model.store
            withObservationTracking {
                _ = model.label
            } onChange: {
            }
        }
        #expect(weakStore == nil)
        #expect(CounterStore.instantiate().count.value == 0, "a fresh store")
    }
}
