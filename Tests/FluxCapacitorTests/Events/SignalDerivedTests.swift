import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

extension Dispatcher {
    enum Alarm: DispatchState, Equatable {
        typealias RelatedStoreType = AlarmStore
        typealias RelatedActionType = AlarmAction

        case ring(String)
        case snooze
    }
}

/// A store that tells its observers something happened (an event) beside its state.
final class AlarmStore: Storable {
    typealias DispatchStateType = Dispatcher.Alarm

    let rings: Signal<String>
    private let _rings = Sink<String>()

    let snoozeCount: Constant<Int>
    private let _snoozeCount = Variable(0)

    required init() {
        rings = _rings.signal
        snoozeCount = Constant(_snoozeCount)
    }

    func reduce(with state: Dispatcher.Alarm) {
        switch state {
        case .ring(let message): _rings.send(message)
        case .snooze: _snoozeCount.value += 1
        }
    }
}

struct AlarmAction: Actionable {
    typealias DispatchStateType = Dispatcher.Alarm
}

@Suite("Signals: derived, async, scoped, and in stores", .isolatedDispatcher)
struct SignalDerivedTests {
    @Test func mapSendsTheTransformOfEachValue() {
        let sink = Sink<Int>()
        let seen = Locked<[String]>([])
        let dust = sink.signal.map { "#\($0)" }.observe { value in seen.withLock { $0.append(value) } }
        sink.send(1)
        sink.send(2)
        dust.clean()
        sink.send(3)
        #expect(seen.value == ["#1", "#2"])
    }

    @Test func filterSendsOnlyTheValuesThatPass() {
        let sink = Sink<Int>()
        let seen = Locked<[Int]>([])
        let dust = sink.signal.filter { $0.isMultiple(of: 2) }.map { $0 * 10 }.observe { value in
            seen.withLock { $0.append(value) }
        }
        for value in 1...6 {
            sink.send(value)
        }
        dust.clean()
        #expect(seen.value == [20, 40, 60])
    }

    @Test func aDerivedSignalLivesWhileObservedAndStopsObservingItsSourceWhenDropped() {
        let sink = Sink<Int>()
        let seen = Locked<[Int]>([])
        // Not held by anyone but its observation.
        let dust = sink.signal.map { $0 + 1 }.observe { value in seen.withLock { $0.append(value) } }
        #expect(sink.core.observerCount == 1)
        sink.send(1)
        dust.clean()
        #expect(sink.core.observerCount == 0, "the derived signal went, with its observation of the source")
        #expect(seen.value == [2])
    }

    @Test func aDerivedSignalKeepsTheOrderAndReentrancyOfItsSource() {
        let sink = Sink<Int>()
        let calls = Locked<[String]>([])
        let doubled = sink.signal.map { $0 * 2 }
        let dusts = [
            doubled.observe { value in
                calls.withLock { $0.append("a\(value)") }
                if value == 2 { sink.send(2) }
            },
            doubled.observe { value in calls.withLock { $0.append("b\(value)") } },
        ]
        defer { dusts.forEach { $0.clean() } }
        sink.send(1)
        #expect(calls.value == ["a2", "b2", "a4", "b4"])
    }

    @Test func valuesStartObservingWhenTheIteratorIsMade() async {
        let sink = Sink<Int>()
        let sequence = sink.signal.values
        #expect(sink.core.observerCount == 0)
        sink.send(1)
        var iterator = sequence.makeAsyncIterator()
        #expect(sink.core.observerCount == 1)
        sink.send(2)
        sink.send(3)
        #expect(await iterator.next() == 2, "what was sent before makeAsyncIterator() is not delivered")
        #expect(await iterator.next() == 3)
    }

    @Test func valuesFromAnotherThreadArriveInOrderAndEndingTheLoopReleasesTheObservation() async {
        let sink = Sink<Int>()
        var seen: [Int] = []
        let values = sink.signal.values
        var iterator = values.makeAsyncIterator()
        DispatchQueue.global().async {
            for value in 1...5 { sink.send(value) }
        }
        while seen.count < 5, let value = await iterator.next() {
            seen.append(value)
        }
        #expect(seen == [1, 2, 3, 4, 5])
        _ = consume iterator
        #expect(sink.core.observerCount == 0)
    }

    @Test func cancellingTheTaskEndsTheLoopOverValues() async {
        let sink = Sink<Int>()
        let task = Task {
            var count = 0
            for await _ in sink.signal.values {
                count += 1
            }
            return count
        }
        while sink.core.observerCount < 1 {
            await Task.yield()
        }
        sink.send(1)
        task.cancel()
        _ = await task.value
        #expect(sink.core.observerCount == 0)
    }

    @Test func bufferingNewestGivesASlowConsumerTheLatestValue() async {
        let sink = Sink<Int>()
        var iterator = sink.signal.values(bufferingPolicy: .bufferingNewest(1)).makeAsyncIterator()
        for value in 1...5 {
            sink.send(value)
        }
        #expect(await iterator.next() == 5)
    }

    @Test func aScopedObserverGetsTheObjectWithEachValueUntilTheObjectGoes() {
        let sink = Sink<Int>()
        let deinits = Locked(0)
        var screen: Screen? = Screen(deinits: deinits)
        sink.signal.observe(on: .current, duringScopeOf: screen!) { screen, value in
            screen.show(value)
        }
        sink.send(1)
        sink.send(2)
        #expect(screen?.shown == [1, 2])
        screen = nil
        #expect(deinits.value == 1, "the observation does not hold the object")
        sink.send(3)
        #expect(sink.core.observerCount == 0, "released at the next value")
    }

    @Test func bindSetsTheKeyPathOnEachValueOnTheRequestedQueue() async throws {
        let queue = DispatchQueue(label: "binding")
        queue.setSpecific(key: QueueLabel.queueKey, value: "binding")
        let sink = Sink<String>()
        let label = QueueLabel()
        sink.signal.bind(to: label, \.text, on: .queue(queue))
        #expect(label.sets.isEmpty, "nothing before the first value")
        sink.send("first")
        sink.send("second")
        try await waitUntil { label.sets.count == 2 }
        #expect(label.sets.map(\.text) == ["first", "second"])
        #expect(label.sets.map(\.queue) == ["binding", "binding"])
    }

    @Test @MainActor func aMainActorObjectIsObservedOnTheMainActorForAsLongAsItLives() async throws {
        let sink = Sink<Int>()
        let deinits = Locked(0)
        var model: MainActorModel? = MainActorModel(deinits: deinits)
        sink.signal.observe(duringScopeOf: model!) { model, value in
            model.values.append(value)
        }
        sink.send(1)
        #expect(model?.values == [1], "sent on the main thread: at once")
        DispatchQueue.global().async { sink.send(2) }
        try await waitUntil { MainActor.assumeIsolated { model?.values == [1, 2] } }
        model = nil
        #expect(deinits.value == 1)
        sink.send(3)
        try await waitUntil { sink.core.observerCount == 0 }
    }

    @Test @MainActor func bindSetsAMainActorPropertyOnTheMainActor() async throws {
        let sink = Sink<String>()
        let model = MainActorModel()
        sink.signal.map { $0.uppercased() }.bind(to: model, \.title)
        #expect(model.title == "")
        DispatchQueue.global().async { sink.send("saved") }
        try await waitUntil { MainActor.assumeIsolated { model.title == "SAVED" } }
    }

    @Test func aStoreSendsFromReduceAndInvokeReturnsAfterItsObserversRan() {
        let store = AlarmStore.instantiate()
        let rings = Locked<[String]>([])
        let dust = store.rings.observe { message in rings.withLock { $0.append(message) } }
        defer { dust.clean() }
        AlarmAction().invoke(.ring("wake up"))
        #expect(rings.value == ["wake up"])
        AlarmAction().invoke(.snooze)
        AlarmAction().invoke(.ring("again"))
        #expect(rings.value == ["wake up", "again"])
        #expect(store.snoozeCount.value == 1)
    }

    @Test func anEventIsNotReplayedToAnObserverThatComesLater() {
        let store = AlarmStore.instantiate()
        AlarmAction().invoke(.ring("nobody heard this"))
        let rings = Locked<[String]>([])
        let dust = store.rings.observe { message in rings.withLock { $0.append(message) } }
        defer { dust.clean() }
        #expect(rings.value.isEmpty)
        AlarmAction().invoke(.ring("heard"))
        #expect(rings.value == ["heard"])
    }

    @Test func anObserverOfAStoresSignalMayDispatch() {
        let store = AlarmStore.instantiate()
        let dust = store.rings.observe { _ in AlarmAction().invoke(.snooze) }
        defer { dust.clean() }
        AlarmAction().invoke(.ring("snooze me"))
        #expect(store.snoozeCount.value == 1, "the dispatch from the observer ran before invoke returned")
    }
}
