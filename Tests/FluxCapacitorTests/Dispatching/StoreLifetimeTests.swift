import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

// Stores that nothing references weakly: the registry's own hold on a store must keep its
// memory only, never its life (the tests in RegistryTests watch stores through weak
// references, which give a store the runtime's side table; these do not).

enum LifeState: DispatchState {
    typealias RelatedStoreType = LifeStore
    typealias RelatedActionType = LifeAction
    case touch
}

struct LifeAction: Actionable { typealias DispatchStateType = LifeState }

final class LifeStore: Storable {
    typealias DispatchStateType = LifeState

    /// The stores made, counted for each test's dispatcher.
    static let made = CountPerDispatcher()

    let serial: Int
    let touches = Locked(0)
    /// Set by a test to count this store's end: freed with the store.
    let witness = Locked<Tracked?>(nil)
    /// Run by `reduce`, if set.
    let duringReduce = Locked<(@Sendable () -> Void)?>(nil)

    required init() {
        serial = LifeStore.made.increment()
    }

    func reduce(with state: LifeState) {
        touches.withLock { $0 += 1 }
        duringReduce.value?()
    }

    /// The live store, with its end counted in `deinits`.
    static func instantiate(countingDeinitsIn deinits: Locked<Int>) -> LifeStore {
        let store = instantiate()
        store.witness.withLock { $0 = $0 ?? Tracked(deinits) }
        return store
    }
}

/// A store that descends from `NSObject` (on Apple platforms, the registry holds such a
/// store through a weak reference rather than an unowned one).
final class ObjectiveStore: NSObject, Storable {
    typealias DispatchStateType = ObjectiveState

    let touches = Locked(0)
    let witness = Locked<Tracked?>(nil)

    required override init() {}

    func reduce(with state: ObjectiveState) {
        touches.withLock { $0 += 1 }
    }
}

enum ObjectiveState: DispatchState {
    typealias RelatedStoreType = ObjectiveStore
    typealias RelatedActionType = ObjectiveAction
    case touch
}

struct ObjectiveAction: Actionable { typealias DispatchStateType = ObjectiveState }

@Suite("Store lifetimes", .isolatedDispatcher)
struct StoreLifetimeTests {
    @Test func aStoreIsFreedWhenItsLastReferenceGoesAndTheNextInstantiateMakesANewOne() {
        let deinits = Locked(0)
        var serial = 0
        do {
            let store = LifeStore.instantiate(countingDeinitsIn: deinits)
            serial = store.serial
            #expect(LifeStore.instantiate() === store)
            LifeAction().invoke(.touch)
            #expect(store.touches.value == 1)
        }
        #expect(deinits.value == 1, "the registry must not keep a store alive")

        LifeAction().invoke(.touch)
        let next = LifeStore.instantiate()
        #expect(next.serial != serial)
        #expect(next.touches.value == 0, "a dispatch must not reach a store that is gone")
    }

    @Test func aStoreThatDescendsFromNSObjectLivesAsLongAsItIsHeld() {
        let deinits = Locked(0)
        do {
            let store = ObjectiveStore.instantiate()
            store.witness.withLock { $0 = Tracked(deinits) }
            #expect(ObjectiveStore.instantiate() === store)
            ObjectiveAction().invoke(.touch)
            #expect(store.touches.value == 1)
        }
        #expect(deinits.value == 1)
        let next = ObjectiveStore.instantiate()
        #expect(next.touches.value == 0)
        next.clear()
        #expect(ObjectiveStore.instantiate() !== next)
    }

    @Test func aStoreReleasedOnOneThreadWhileAnotherDispatchesToItIsReducedOrDroppedAndFreed() {
        let deinits = Locked(0)
        let rounds = 100
        for _ in 0..<rounds {
            let held = Locked<LifeStore?>(LifeStore.instantiate(countingDeinitsIn: deinits))
            onThreads(2) { index in
                if index == 0 {
                    for _ in 0..<20 {
                        LifeAction().invoke(.touch)
                    }
                } else {
                    // The last outside reference goes here, or after the dispatch that
                    // holds the store for its reduce.
                    let last = held.withLock { store in
                        defer { store = nil }
                        return store
                    }
                    withExtendedLifetime(last) {}
                }
            }
        }
        #expect(LifeStore.made.inCurrentDispatcher == rounds, "each round's store is a new one")
        #expect(deinits.value == rounds, "every store was freed")
    }

    @Test func clearOnOneThreadWhileAnotherDispatchesLeavesNoStoreAlive() {
        let deinits = Locked(0)
        let stores = 100
        onThreads(2) { index in
            if index == 0 {
                for _ in 0..<500 {
                    LifeAction().invoke(.touch)
                }
            } else {
                for _ in 0..<stores {
                    LifeStore.instantiate(countingDeinitsIn: deinits).clear()
                }
            }
        }
        #expect(LifeStore.made.inCurrentDispatcher == stores, "clear() lets the next instantiate() make a store")
        #expect(deinits.value == stores, "every cleared store was freed")
    }

    @Test func aReduceMayWaitForAnotherThreadThatClearsItsStore() {
        let store = LifeStore.instantiate()
        let dispatcher = Dispatcher.current
        let cleared = Locked(false)
        store.duringReduce.withLock {
            $0 = { [weak store] in
                let target = store
                let done = DispatchSemaphore(value: 0)
                Thread {
                    Dispatcher.withCurrent(dispatcher) { target?.clear() }
                    done.signal()
                }.start()
                // clear() must not wait for this dispatch, or this would wait forever.
                cleared.withLock { $0 = done.wait(timeout: .now() + .seconds(30)) == .success }
            }
        }
        LifeAction().invoke(.touch)
        #expect(cleared.value, "clear() on another thread waited for the dispatch (deadlock)")

        store.duringReduce.withLock { $0 = nil }
        LifeAction().invoke(.touch)
        #expect(store.touches.value == 1, "a cleared store is not reached")
        #expect(LifeStore.instantiate() !== store)
    }
}
