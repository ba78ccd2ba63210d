import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Where two test cases wait for each other, to show that they run at the same time.
private actor Rendezvous {
    private var arrived: Set<Int> = []

    /// Marks `party` arrived and waits (up to a second) for `other`; returns whether it came.
    func meet(_ party: Int, _ other: Int) async -> Bool {
        arrived.insert(party)
        for _ in 0..<1_000 where !arrived.contains(other) {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return arrived.contains(other)
    }
}

private let rendezvous = Rendezvous()

@Suite("Test isolation", .isolatedDispatcher)
struct IsolationTests {
    /// Many test cases that use the same store type run in parallel (Swift Testing runs a
    /// parameterized test's cases concurrently); each must see only its own dispatches.
    @Test(arguments: 1...200)
    func testsUsingTheSameStoreTypeInParallelSeeOnlyTheirOwnDispatches(amount: Int) async {
        #expect(Dispatcher.current !== Dispatcher.shared)
        let store = CounterStore.instantiate()
        let recorder = DispatchRecorder()
        for step in 0..<20 {
            CounterAction().invoke(.add(amount))
            if step.isMultiple(of: 5) {
                await Task.yield()
            }
        }
        // Child tasks and unstructured tasks inherit the scope.
        async let child: Void = CounterAction().invoke(.add(amount))
        await child
        await Task { CounterAction().invoke(.add(amount)) }.value

        #expect(CounterStore.instantiate() === store)
        #expect(store.count.value == 22 * amount)
        #expect(recorder.states(of: Dispatcher.Counter.self) == Array(repeating: .add(amount), count: 22))
    }

    /// Two test cases that meet halfway, so they certainly overlap, each with the same
    /// store type: neither sees the other's dispatches.
    @Test(arguments: [0, 1])
    func twoOverlappingTestsKeepTheirStoresApart(party: Int) async {
        let store = CounterStore.instantiate()
        CounterAction().invoke(.set(party * 100))
        let met = await rendezvous.meet(party, 1 - party)
        CounterAction().invoke(.increment)
        #expect(store.count.value == party * 100 + 1)
        #expect(CounterStore.instantiate() === store)
        if !met {
            // Run serially (for example with --no-parallel): isolation held regardless.
            print("note: the two cases did not overlap in this run")
        }
    }

    /// The trait makes the test known to FluxCapacitorPersistence's messages (a value
    /// persisted with no storage names the fix for a test), to the test's tasks only.
    @Test func theTraitMakesItsTestKnownToTheTestsTasks() async {
        #expect(RunningTest.name == "IsolationTests/theTraitMakesItsTestKnownToTheTestsTasks()")
        #expect(await Task { RunningTest.name }.value == RunningTest.name)
        #expect(await Task.detached { RunningTest.name }.value == nil)
    }

    @Test func aDispatchQueueHopDoesNotCarryTheScopeButWithCurrentDoes() async {
        let dispatcher = Dispatcher.current
        let seen: (hop: Dispatcher, carried: Dispatcher) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let hop = Dispatcher.current
                let carried = Dispatcher.withCurrent(dispatcher) { Dispatcher.current }
                continuation.resume(returning: (hop, carried))
            }
        }
        #expect(seen.hop === Dispatcher.shared)
        #expect(seen.carried === dispatcher)
    }

    @Test func queueObserversRunInTheScopeOfTheChangeTheyReceive() async {
        let store = CounterStore.instantiate()
        let dispatcher = Dispatcher.current
        let inScope: Bool = await withCheckedContinuation { continuation in
            let dust = Locked<Dust?>(nil)
            dust.withLock {
                $0 = store.count.observe(on: .queue(DispatchQueue(label: "observer")), ignoreFirst: true) { _ in
                    continuation.resume(returning: Dispatcher.current === dispatcher)
                    dust.value?.clean()
                }
            }
            CounterAction().invoke(.increment)
        }
        #expect(inScope)
    }
}
