import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

// Two store types with the same name in different namespaces: a registry keyed by type
// names would mix them up.
enum FirstModule {
    final class Store: Storable {
        typealias DispatchStateType = State
        let received = Variable<[Int]>([])
        required init() {}
        func reduce(with state: State) {
            if case .value(let value) = state { received.value.append(value) }
        }
    }
    enum State: DispatchState {
        typealias RelatedStoreType = Store
        typealias RelatedActionType = Action
        case value(Int)
    }
    struct Action: Actionable { typealias DispatchStateType = State }
}

enum SecondModule {
    final class Store: Storable {
        typealias DispatchStateType = State
        let received = Variable<[Int]>([])
        required init() {}
        func reduce(with state: State) {
            if case .value(let value) = state { received.value.append(value) }
        }
    }
    enum State: DispatchState {
        typealias RelatedStoreType = Store
        typealias RelatedActionType = Action
        case value(Int)
    }
    struct Action: Actionable { typealias DispatchStateType = State }
}

/// A store whose init instantiates another store, as view models and stores often do.
final class DependentStore: Storable {
    typealias DispatchStateType = DependentState
    let counter: CounterStore
    required init() {
        counter = CounterStore.instantiate()
    }
    func reduce(with state: DependentState) {}
}

enum DependentState: DispatchState {
    typealias RelatedStoreType = DependentStore
    typealias RelatedActionType = DependentAction
    case nothing
}

struct DependentAction: Actionable { typealias DispatchStateType = DependentState }

/// A store that is slow to make, so that threads asking for it pile up while it is made.
final class SlowToMakeStore: Storable {
    typealias DispatchStateType = SlowToMakeState
    static let inits = CountPerDispatcher()
    required init() {
        SlowToMakeStore.inits.increment()
        Thread.sleep(forTimeInterval: 0.005)
    }
    func reduce(with state: SlowToMakeState) {}
}

enum SlowToMakeState: DispatchState {
    typealias RelatedStoreType = SlowToMakeStore
    typealias RelatedActionType = SlowToMakeAction
    case nothing
}

struct SlowToMakeAction: Actionable { typealias DispatchStateType = SlowToMakeState }

/// A store whose init instantiates its own type: a programming error.
final class SelfInstantiatingStore: Storable {
    typealias DispatchStateType = SelfInstantiatingState
    required init() {
        _ = SelfInstantiatingStore.instantiate()
    }
    func reduce(with state: SelfInstantiatingState) {}
}

enum SelfInstantiatingState: DispatchState {
    typealias RelatedStoreType = SelfInstantiatingStore
    typealias RelatedActionType = SelfInstantiatingAction
    case nothing
}

struct SelfInstantiatingAction: Actionable { typealias DispatchStateType = SelfInstantiatingState }

/// A store whose init dispatches: to itself and to the counter.
final class StartupStore: Storable {
    typealias DispatchStateType = StartupState
    let loaded = Variable(0)
    required init() {
        StartupAction().invoke(.loaded(42))
        CounterAction().invoke(.increment)
    }
    func reduce(with state: StartupState) {
        if case .loaded(let value) = state { loaded.value = value }
    }
}

enum StartupState: DispatchState {
    typealias RelatedStoreType = StartupStore
    typealias RelatedActionType = StartupAction
    case loaded(Int)
}

struct StartupAction: Actionable { typealias DispatchStateType = StartupState }

/// A store whose init dispatches, made by two threads at once in one test.
final class RacingStartupStore: Storable {
    typealias DispatchStateType = RacingStartupState
    static let initStarted = DispatchSemaphore(value: 0)
    required init() {
        RacingStartupStore.initStarted.signal()
        CounterAction().invoke(.increment)
    }
    func reduce(with state: RacingStartupState) {}
}

enum RacingStartupState: DispatchState {
    typealias RelatedStoreType = RacingStartupStore
    typealias RelatedActionType = RacingStartupAction
    case nothing
}

struct RacingStartupAction: Actionable { typealias DispatchStateType = RacingStartupState }

/// A store whose reduce instantiates `RacingStartupStore`, as a reduce or an observer that
/// makes a view model might.
final class StartupMakerStore: Storable {
    typealias DispatchStateType = StartupMakerState
    let made = Locked<[RacingStartupStore]>([])
    required init() {}
    func reduce(with state: StartupMakerState) {
        // Give another thread the chance to start making the store first (it cannot: the
        // dispatch holds the dispatcher; before, it could, and both waited forever).
        _ = RacingStartupStore.initStarted.wait(timeout: .now() + .milliseconds(200))
        let store = RacingStartupStore.instantiate()
        made.withLock { $0.append(store) }
    }
}

enum StartupMakerState: DispatchState {
    typealias RelatedStoreType = StartupMakerStore
    typealias RelatedActionType = StartupMakerAction
    case make
}

struct StartupMakerAction: Actionable { typealias DispatchStateType = StartupMakerState }

@Suite("Weak, type-keyed registry", .isolatedDispatcher)
struct RegistryTests {
    @Test func instantiateReturnsTheLiveInstanceWhileItIsHeld() {
        let store = CounterStore.instantiate()
        #expect(CounterStore.instantiate() === store)
        #expect(CounterStore.instantiate() === store)
    }

    @Test func storeIsFreedWhenTheLastOutsideReferenceGoesAndTheNextInstantiateMakesANewOne() {
        weak var weakStore: CounterStore?
        var firstSerial = 0
        do {
            let store = CounterStore.instantiate()
            store.afterReduce.withLock { $0 = { _ in } }
            firstSerial = store.serial
            weakStore = store
            CounterAction().invoke(.increment)
        }
        #expect(weakStore == nil, "the registry must not keep a store alive")

        let next = CounterStore.instantiate()
        #expect(next.serial != firstSerial)
        #expect(next.count.value == 0)
    }

    @Test func storeTypesWithTheSameNameInDifferentNamespacesAreDifferentKeys() {
        let first = FirstModule.Store.instantiate()
        let second = SecondModule.Store.instantiate()
        #expect(String(describing: FirstModule.Store.self) == String(describing: SecondModule.Store.self))

        FirstModule.Action().invoke(.value(1))
        SecondModule.Action().invoke(.value(2))

        #expect(first.received.value == [1])
        #expect(second.received.value == [2])
    }

    @Test func clearUnregistersTheStoreSoDispatchesNoLongerReachIt() {
        let store = CounterStore.instantiate()
        store.clear()
        CounterAction().invoke(.increment)
        #expect(store.count.value == 0)

        let next = CounterStore.instantiate()
        #expect(next !== store)
        CounterAction().invoke(.increment)
        #expect(next.count.value == 1)
    }

    @Test func clearOfAnInstanceThatIsNotRegisteredLeavesTheRegisteredOneAlone() {
        let old = CounterStore.instantiate()
        old.clear()
        let current = CounterStore.instantiate()
        old.clear()
        #expect(CounterStore.instantiate() === current)
    }

    @Test func unregisterAllForgetsEveryStore() {
        let counter = CounterStore.instantiate()
        let first = FirstModule.Store.instantiate()
        Dispatcher.current.unregisterAll()

        CounterAction().invoke(.increment)
        FirstModule.Action().invoke(.value(1))
        #expect(counter.count.value == 0)
        #expect(first.received.value.isEmpty)
        #expect(CounterStore.instantiate() !== counter)
    }

    @Test func storeInitMayInstantiateAnotherStore() {
        let dependent = DependentStore.instantiate()
        #expect(dependent.counter === CounterStore.instantiate())
    }

    @Test func sixtyFourThreadsInstantiatingAtOnceGetOneInstance() {
        let instances = Locked<[SlowToMakeStore]>([])
        onThreads(64) { _ in
            let store = SlowToMakeStore.instantiate()
            instances.withLock { $0.append(store) }
        }
        let all = instances.value
        #expect(all.count == 64)
        #expect(all.allSatisfy { $0 === all[0] })
        #expect(SlowToMakeStore.inits.inCurrentDispatcher == 1)
    }

    @Test func storesWhoseInitInstantiatesAnotherStoreDoNotDeadlockAcrossThreads() {
        let dependents = Locked<[DependentStore]>([])
        onThreads(16) { index in
            if index.isMultiple(of: 2) {
                dependents.withLock { $0.append(DependentStore.instantiate()) }
            } else {
                _ = CounterStore.instantiate()
                dependents.withLock { $0.append(DependentStore.instantiate()) }
            }
        }
        let all = dependents.value
        #expect(all.count == 16)
        #expect(all.allSatisfy { $0 === all[0] })
        #expect(all[0].counter === CounterStore.instantiate())
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func aStoreThatInstantiatesItselfFromInitStopsWithAMessageNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = SelfInstantiatingStore.instantiate()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("SelfInstantiatingStore.init() led to SelfInstantiatingStore.instantiate()"))
    }
    #endif

    @Test func whatAStoresInitDispatchesIsReducedOnceTheStoreIsRegistered() {
        let counter = CounterStore.instantiate()

        let store = StartupStore.instantiate()

        #expect(store.loaded.value == 42)
        #expect(counter.count.value == 1)
        #expect(StartupStore.instantiate() === store)
    }

    @Test func aDispatchThatInstantiatesAStoreDoesNotWaitForAnotherThreadsInitThatDispatches() {
        let counter = CounterStore.instantiate()
        let maker = StartupMakerStore.instantiate()
        let other = Locked<RacingStartupStore?>(nil)
        let dispatcher = Dispatcher.current
        let done = DispatchGroup()
        for index in 0..<2 {
            done.enter()
            Thread {
                Dispatcher.withCurrent(dispatcher) {
                    if index == 0 {
                        StartupMakerAction().invoke(.make)
                    } else {
                        other.withLock { $0 = RacingStartupStore.instantiate() }
                    }
                }
                done.leave()
            }.start()
        }

        #expect(done.wait(timeout: .now() + .seconds(30)) == .success, "deadlock")
        let made = maker.made.value
        #expect(made.count == 1 && made.first === other.value)
        #expect(counter.count.value == 1, "one store made, one init dispatch")
    }
}
