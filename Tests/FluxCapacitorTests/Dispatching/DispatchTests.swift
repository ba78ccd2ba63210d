import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
import Testing

@Suite("Dispatching", .isolatedDispatcher)
struct DispatchTests {
    @Test func invokeReturnsAfterTheStoreReducedAndCurrentObserversRan() {
        let store = CounterStore.instantiate()
        let seen = Locked<[Int]>([])
        let dust = store.count.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }

        CounterAction().invoke(.increment)
        #expect(store.count.value == 1)
        #expect(seen.value == [1])

        CounterAction().invoke(.add(5))
        #expect(store.count.value == 6)
        #expect(seen.value == [1, 6])
    }

    @Test func dispatchWithNoLiveStoreIsDroppedReportedAndMakesNoStore() {
        let events = Locked<[(DispatchEvent.Phase, String)]>([])
        let dust = Dispatcher.current.observeDispatches { event in
            events.withLock { $0.append((event.phase, String(describing: event.storeType))) }
        }
        defer { dust.clean() }
        let madeBefore = CounterStore.made.inCurrentDispatcher

        CounterAction().invoke(.increment)

        #expect(events.value.map(\.0) == [.droppedWithoutStore])
        #expect(events.value.map(\.1) == ["CounterStore"])
        #expect(CounterStore.made.inCurrentDispatcher == madeBefore, "a dropped dispatch must not make a store")
    }

    @Test func aDroppedStateIsReleased() {
        let deinits = Locked(0)
        ChainAction().invoke(.carry(Payload(object: Tracked(deinits))))
        #expect(deinits.value == 1)
    }

    @Test func theLogSeesEachDispatchBeforeAndAfterReduction() {
        let store = CounterStore.instantiate()
        let log = Locked<[String]>([])
        let dust = Dispatcher.current.observeDispatches { event in
            let count = (event.store as? CounterStore)?.count.value ?? -1
            log.withLock {
                $0.append(
                    "\(event.phase) \(event.state) count=\(count) received=\(event.phase != .droppedWithoutStore)")
            }
        }
        CounterAction().invoke(.add(2))
        dust.clean()
        CounterAction().invoke(.add(3))

        #expect(
            log.value == [
                "willReduce add(2) count=0 received=true",
                "didReduce add(2) count=2 received=true",
            ])
        #expect(store.count.value == 5)
    }

    @Test func aDispatchFromReduceRunsAfterTheCurrentOneAndBeforeTheOuterInvokeReturns() {
        let store = ChainStore.instantiate()
        let log = Locked<[String]>([])
        let dust = Dispatcher.current.observeDispatches { event in
            log.withLock { $0.append("\(event.phase) \(event.state)") }
        }
        defer { dust.clean() }

        ChainAction().invoke(.step(2))

        #expect(store.steps.value == 3)
        #expect(store.maxDepth.value == 1, "a reentrant dispatch must not recurse into reduce")
        #expect(
            log.value == [
                "willReduce step(2)", "didReduce step(2)",
                "willReduce step(1)", "didReduce step(1)",
                "willReduce step(0)", "didReduce step(0)",
            ])
    }

    @Test func aDispatchFromAnObserverRunsAfterTheCurrentOneAndBeforeTheOuterInvokeReturns() {
        let store = CounterStore.instantiate()
        let order = Locked<[String]>([])
        let first = store.count.observe(ignoreFirst: true) { value in
            order.withLock { $0.append("first sees \(value)") }
            if value == 1 {
                CounterAction().invoke(.set(10))
                order.withLock { $0.append("first's invoke returned") }
            }
        }
        let second = store.count.observe(ignoreFirst: true) { value in
            order.withLock { $0.append("second sees \(value)") }
        }
        defer {
            first.clean()
            second.clean()
        }

        CounterAction().invoke(.increment)
        order.withLock { $0.append("outer invoke returned") }

        #expect(
            order.value == [
                "first sees 1",
                "first's invoke returned",
                "second sees 1",
                "first sees 10",
                "second sees 10",
                "outer invoke returned",
            ])
    }

    @Test func aHundredThousandChainedDispatchesDoNotOverflowTheStack() {
        let store = ChainStore.instantiate()
        ChainAction().invoke(.step(100_000))
        #expect(store.steps.value == 100_001)
        #expect(store.maxDepth.value == 1)
    }

    @Test func aLogSubscriberMayDispatch() {
        let store = CounterStore.instantiate()
        let dust = Dispatcher.current.observeDispatches { event in
            if event.phase == .didReduce, case .increment? = event.state as? Dispatcher.Counter {
                CounterAction().invoke(.add(100))
            }
        }
        defer { dust.clean() }
        CounterAction().invoke(.increment)
        #expect(store.count.value == 101)
    }

    @Test func aLogSubscriberCleanedDuringADispatchIsNotCalledAgainAndIsReleased() {
        let store = CounterStore.instantiate()
        let calls = Locked<[String]>([])
        let deinits = Locked(0)
        let own = Locked<Dust?>(nil)
        do {
            let tracked = Tracked(deinits)
            own.withLock {
                $0 = Dispatcher.current.observeDispatches { event in
                    _ = tracked
                    calls.withLock { $0.append("\(event.phase)") }
                    own.value?.clean()
                }
            }
        }
        let bystander = Dispatcher.current.observeDispatches { event in
            calls.withLock { $0.append("bystander \(event.phase)") }
        }
        defer { bystander.clean() }

        CounterAction().invoke(.increment)
        #expect(calls.value == ["willReduce", "bystander willReduce", "bystander didReduce"])
        #expect(deinits.value == 1, "a cleaned subscriber's handler is released at once")

        CounterAction().invoke(.increment)
        #expect(calls.value.count == 5)
        #expect(store.count.value == 2)
    }
}
