import FluxCapacitorTesting
import Testing

@testable import FluxCapacitor

@Suite("Lifetimes", .isolatedDispatcher)
struct LifetimeTests {
    @Test func anObserverIsReleasedWhenItsDustIsCleaned() {
        let variable = Variable(0)
        let deinits = Locked(0)
        var dust: Dust?
        do {
            let tracked = Tracked(deinits)
            dust = variable.observe { _ in _ = tracked }
        }
        #expect(deinits.value == 0)
        dust?.clean()
        #expect(deinits.value == 1)
    }

    @Test func aDroppedDustKeepsObservingAsInFluxCapacitor010() {
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        _ = variable.observe { value in seen.withLock { $0.append(value) } }
        variable.value = 10
        #expect(seen.value == [10])
    }

    @Test func aVariableIsFreedWithItsObserversEvenIfTheirDustWasNeverCleaned() {
        let deinits = Locked(0)
        weak var weakCore: ValueCore<Int>?
        var dust: Dust?
        do {
            let variable = Variable(0)
            weakCore = variable.core
            let tracked = Tracked(deinits)
            dust = variable.observe { _ in _ = tracked }
        }
        #expect(weakCore == nil)
        #expect(deinits.value == 1)
        dust?.clean()
    }

    @Test func aStoreWithObservedValuesIsFreedWhenReleased() {
        weak var weakStore: CounterStore?
        let buster = DustBuster()
        do {
            let store = CounterStore.instantiate()
            weakStore = store
            store.count.observe { _ in }.cleaned(by: buster)
            _ = store.count.observe { _ in }
            CounterAction().invoke(.increment)
        }
        #expect(weakStore == nil, "no cycle between a store, its values and the registry")
    }

    @Test func aStoreIsNotKeptAliveByDispatchesThatReachedIt() {
        weak var weakStore: ChainStore?
        do {
            let store = ChainStore.instantiate()
            weakStore = store
            ChainAction().invoke(.step(3))
        }
        #expect(weakStore == nil)
    }
}
