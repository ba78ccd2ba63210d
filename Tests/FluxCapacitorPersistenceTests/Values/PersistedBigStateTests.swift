import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

extension Dispatcher {
    enum PersistedItems: DispatchState {
        typealias RelatedStoreType = PersistedItemsStore
        typealias RelatedActionType = PersistedItemsAction
        case write(index: Int, value: Int)
        case append(Int)
    }
}

/// A store with a persisted collection in copy-counting storage, in the default storage the
/// test binds.
final class PersistedItemsStore: Storable {
    typealias DispatchStateType = Dispatcher.PersistedItems
    let items: Constant<CopyCounting<[Int]>>
    private let _items = Variable(
        CopyCounting(Array(0..<1_000), counter: CopyCounter()), persistedAs: "items")

    required init() {
        items = Constant(_items)
    }

    func reduce(with state: Dispatcher.PersistedItems) {
        switch state {
        case .write(let index, let value): _items.value.change { $0[index] = value }
        case .append(let value): _items.value.change { $0.append(value) }
        }
    }
}

struct PersistedItemsAction: Actionable { typealias DispatchStateType = Dispatcher.PersistedItems }

/// A persisted collection changed in place: the write that waits holds a way to read the
/// value, not a copy of it, so a change costs the change, and the last value still reaches
/// the storage when the value goes.
@Suite("Persisted big state", .isolatedDispatcher)
struct PersistedBigStateTests {
    @Test func aPersistedCollectionChangedInAReduceIsNotCopiedByItsWaitingWrite() throws {
        let storage = InMemoryStorage(coalescingInterval: .seconds(3600))
        try Persistence.withDefaultStorage(storage) {
            let store = PersistedItemsStore.instantiate()
            for step in 0..<100 {
                PersistedItemsAction().invoke(.write(index: step, value: -step))
                PersistedItemsAction().invoke(.append(step))
            }
            #expect(store.items.value.counter.copies == 0)
            storage.flush()
            let written = try JSONDecoder().decode([Int].self, from: #require(storage.contents(of: "items")))
            #expect(written.count == 1_100)
            #expect(written[99] == -99)
            #expect(storage.writeCount(of: "items") == 1)
        }
    }

    @Test func aPersistedValueLetGoOfWithAWriteWaitingWritesItsLastValueThen() throws {
        let storage = InMemoryStorage(coalescingInterval: .seconds(3600))
        do {
            let items = Variable([Int](), persistedAs: "items", in: storage)
            items.value.append(1)
            items.value.append(2)
            #expect(storage.writeCount(of: "items") == 0)
        }
        let written = try JSONDecoder().decode([Int].self, from: #require(storage.contents(of: "items")))
        #expect(written == [1, 2])
        #expect(storage.writeCount(of: "items") == 1)
    }

    @Test func aPersistedValueLetGoOfWithNoChangeWritesNothing() {
        let storage = InMemoryStorage(coalescingInterval: .seconds(3600))
        storage.seed(Data("[7]".utf8), in: "items")
        do {
            let items = Variable([Int](), persistedAs: "items", in: storage)
            #expect(items.value == [7])
        }
        #expect(storage.writeCount(of: "items") == 0)
    }
}
