import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
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

    @Test func aDroppedDustKeepsObservingAsInFluxCapacitor011() {
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        _ = variable.observe { value in seen.withLock { $0.append(value) } }
        variable.value = 10
        #expect(seen.value == [0, 10])
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

    @Test func aReplacedValueIsReleasedAfterTheVariableLetGoOfItsLock() {
        // The old value's deinit reads, observes and sets the same variable, and cleans
        // one of its observers, as a child view model held in a Variable might.
        let variable = Variable<ReleaseProbe?>(nil)
        let seenInDeinit = Locked<[String]>([])
        do {
            let probe = ReleaseProbe { [variable] in
                seenInDeinit.withLock { $0.append("read \(variable.value == nil)") }
                variable.observe { _ in }.clean()
                variable.value = nil
            }
            probe.dust = variable.observe { _ in }
            variable.value = probe
        }

        variable.value = nil

        #expect(seenInDeinit.value == ["read true"])
        #expect(variable.core.observerCount == 0)
    }

    @Test func valuesQueuedDuringARoundAreReleasedAfterTheVariableLetGoOfItsLock() {
        let variable = Variable<ReleaseProbe?>(nil)
        let reads = Locked(0)
        // An observer that sets the value again queues it: the queued values go when the
        // round ends.
        let dust = variable.observe(ignoreFirst: true) { value in
            if value?.tag == 1 {
                variable.value = ReleaseProbe(tag: 2) { reads.withLock { $0 += variable.value == nil ? 1 : 0 } }
            }
        }
        variable.value = ReleaseProbe(tag: 1) { _ = variable.value }
        variable.value = nil

        #expect(reads.value == 1)
        dust.clean()
    }
}

/// Runs `onDeinit` when released; holds an observation of whatever it is stored in.
final class ReleaseProbe: @unchecked Sendable {
    // Sendable: `dust` is set once before the probe is shared.
    let tag: Int
    var dust: Dust?
    private let onDeinit: @Sendable () -> Void

    init(tag: Int = 0, onDeinit: @escaping @Sendable () -> Void) {
        self.tag = tag
        self.onDeinit = onDeinit
    }

    deinit {
        dust?.clean()
        onDeinit()
    }
}
