import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

// Issue 39: one element written into a collection a store holds, at two sizes, so that
// `Benchmarks/instructions` shows whether a change costs the change or the size of the
// state (the 100,000-element row within 1.2× of the 1,000-element one).

extension Dispatcher {
    enum BigState: DispatchState {
        typealias RelatedStoreType = BigStateStore
        typealias RelatedActionType = BigStateAction
        /// Fills the array and the dictionary with `count` zeros (set-up, not measured).
        case fill(Int)
        case write(index: Int, value: Int)
        case writeByID(Int, Int)
    }
}

/// A store holding an array and a dictionary, changed in place in `reduce`, as the docs
/// show.
final class BigStateStore: Storable {
    typealias DispatchStateType = Dispatcher.BigState

    /// Where the store made next saves its collections; `nil`: it does not.
    nonisolated(unsafe) static var storage: (any PersistentStorage)?

    let items: Constant<[Int]>
    let byID: Constant<[Int: Int]>
    private let _items: Variable<[Int]>
    private let _byID: Variable<[Int: Int]>

    required init() {
        if let storage = Self.storage {
            _items = Variable([], persistedAs: "items", in: storage)
            _byID = Variable([:], persistedAs: "byID", in: storage)
        } else {
            _items = Variable([])
            _byID = Variable([:])
        }
        items = Constant(_items)
        byID = Constant(_byID)
    }

    func reduce(with state: Dispatcher.BigState) {
        switch state {
        case .fill(let count):
            _items.value = Array(repeating: 0, count: count)
            _byID.value = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 0) })
        case .write(let index, let value): _items.value[index] = value
        case .writeByID(let key, let value): _byID.value[key] = value
        }
    }
}

struct BigStateAction: Actionable {
    typealias DispatchStateType = Dispatcher.BigState
}

/// `action.invoke(.write(index:value:))` → `reduce` → `_items.value[i] = x` (or
/// `_byID.value[k] = x`) in a collection of `count` elements, with one `.current` observer
/// of the collection.
final class FluxBigStateWrite: Runner {
    private let store: BigStateStore
    private let action = BigStateAction()
    private let sink = Sink()
    private let count: Int
    private let dictionary: Bool
    private var dust: Dust?

    /// With `persisted`, the collections are saved in an `InMemoryStorage` whose writes
    /// wait an hour: what is counted is each change's own share (a write encodes the
    /// whole collection, once per coalescing interval, off the changing thread).
    init(count: Int, dictionary: Bool, persisted: Bool = false) {
        BigStateStore.storage = persisted ? InMemoryStorage(coalescingInterval: .seconds(3_600)) : nil
        store = BigStateStore.instantiate()
        BigStateStore.storage = nil
        self.count = count
        self.dictionary = dictionary
        action.invoke(.fill(count))
        let sink = self.sink
        if dictionary {
            dust = store.byID.observe(ignoreFirst: true) { sink.total &+= $0.count }
        } else {
            dust = store.items.observe(ignoreFirst: true) { sink.total &+= $0.count }
        }
    }

    deinit { dust?.clean() }

    func run(iterations: Int) {
        var index = 0
        for value in 0..<iterations {
            if dictionary {
                action.invoke(.writeByID(index, value))
            } else {
                action.invoke(.write(index: index, value: value))
            }
            index += 1
            if index == count {
                index = 0
            }
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor: a final class holding the collection and an array of closures,
/// written in place, every observer called with it.
final class BaselineBigStateWrite: Runner {
    private var items: [Int]
    private var byID: [Int: Int]
    private var observers: [([Int]) -> Void] = []
    private var dictionaryObservers: [([Int: Int]) -> Void] = []
    private let sink = Sink()
    private let count: Int
    private let dictionary: Bool

    init(count: Int, dictionary: Bool) {
        self.count = count
        self.dictionary = dictionary
        items = Array(repeating: 0, count: count)
        byID = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 0) })
        let sink = self.sink
        observers.append { sink.total &+= $0.count }
        dictionaryObservers.append { sink.total &+= $0.count }
    }

    @inline(never)
    private func write(_ index: Int, _ value: Int) {
        if dictionary {
            byID[index] = value
            for observer in dictionaryObservers {
                observer(byID)
            }
        } else {
            items[index] = value
            for observer in observers {
                observer(items)
            }
        }
    }

    func run(iterations: Int) {
        var index = 0
        for value in 0..<iterations {
            write(index, value)
            index += 1
            if index == count {
                index = 0
            }
        }
    }

    var checksum: Int { sink.total }
}

// Issue 39: one row changed among `rows` rows, each observed on its own, in a reduce
// (`_rows[id]?.count = n`): at most 2× a dispatch that sets one observed `Variable`, the
// same among 1,000 and 10,000.

struct BenchmarkRow: Identifiable, Sendable {
    let id: Int
    var count: Int
}

extension Dispatcher {
    enum Rows: DispatchState {
        typealias RelatedStoreType = RowsStore
        typealias RelatedActionType = RowsAction
        case add([BenchmarkRow])
        case count(id: Int, Int)
        case replace(BenchmarkRow)
    }
}

final class RowsStore: Storable {
    typealias DispatchStateType = Dispatcher.Rows

    let rows: ConstantDictionary<Int, BenchmarkRow>
    private let _rows = VariableDictionary<Int, BenchmarkRow>()

    required init() {
        rows = ConstantDictionary(_rows)
    }

    func reduce(with state: Dispatcher.Rows) {
        switch state {
        case .add(let rows): _rows.append(contentsOf: rows)
        case .count(let id, let count): _rows[id]?.count = count
        case .replace(let row): _rows[row.id] = row
        }
    }
}

struct RowsAction: Actionable {
    typealias DispatchStateType = Dispatcher.Rows
}

/// `action.invoke(.replace(row))` → `reduce` → `_rows[row.id] = row` (or, `inPlace`,
/// `.count(id:_:)` → `_rows[id]?.count = n`), among `rows` rows each with one `.current`
/// observer of its own.
final class FluxRowChange: Runner {
    private let store = RowsStore.instantiate()
    private let action = RowsAction()
    private let sink = Sink()
    private let rows: Int
    private let inPlace: Bool
    private var dusts: [Dust] = []

    init(rows: Int, inPlace: Bool = false) {
        self.rows = rows
        self.inPlace = inPlace
        action.invoke(.add((0..<rows).map { BenchmarkRow(id: $0, count: 0) }))
        let sink = self.sink
        for id in 0..<rows {
            if let row = store.rows.constant(for: id) {
                dusts.append(row.observe(ignoreFirst: true) { sink.total &+= $0.count })
            }
        }
    }

    deinit { dusts.forEach { $0.clean() } }

    func run(iterations: Int) {
        var id = 0
        for count in 0..<iterations {
            if inPlace {
                action.invoke(.count(id: id, count))
            } else {
                action.invoke(.replace(BenchmarkRow(id: id, count: count)))
            }
            id += 1
            if id == rows {
                id = 0
            }
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor: one object per row, each with its observers (as an
/// `@Observable` object per row), the row found by its index.
final class BaselineRowChange: Runner {
    final class Row {
        var count = 0
        var observers: [(Int) -> Void] = []
    }

    private let rows: [Row]
    private let sink = Sink()

    init(rows: Int) {
        self.rows = (0..<rows).map { _ in Row() }
        let sink = self.sink
        for row in self.rows {
            row.observers.append { sink.total &+= $0 }
        }
    }

    @inline(never)
    private func change(_ id: Int, _ count: Int) {
        let row = rows[id]
        row.count = count
        for observer in row.observers {
            observer(count)
        }
    }

    func run(iterations: Int) {
        var id = 0
        for count in 0..<iterations {
            change(id, count)
            id += 1
            if id == rows.count {
                id = 0
            }
        }
    }

    var checksum: Int { sink.total }
}
