// `Benchmarks/big-state`: what one change costs when a store holds a big collection, beside
// an `@Observable` class holding the same, in one release executable (issue 39). Wall
// clock, nanoseconds per change, the median of several runs.
//
//     Benchmarks/big-state [--check] [--quick]
//
// `--check` exits 1 unless each store row at 100,000 elements (array and dictionary; plain,
// observed and persisted) is within 2× the same write into the `@Observable` class, and one
// row set among 10,000 observed ones is within 2× among 1,000. `--quick` measures 100,000
// elements and the rows only.

import FluxCapacitor
import FluxCapacitorPersistence
import Foundation
import Observation

// MARK: What is measured

@Observable
final class ObservableCollections {
    var items: [Int]
    var byID: [Int: Int]

    init(count: Int) {
        items = Array(repeating: 0, count: count)
        byID = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 0) })
    }
}

@Observable
final class ObservableRow {
    var count = 0
}

extension Dispatcher {
    enum Collections: DispatchState {
        typealias RelatedStoreType = CollectionsStore
        typealias RelatedActionType = CollectionsAction
        case fill(Int)
        case write(index: Int, value: Int)
        case writeByID(Int, Int)
        case append(Int)
    }
}

/// A store as the docs show one: its collections changed in place in `reduce`.
final class CollectionsStore: Storable {
    typealias DispatchStateType = Dispatcher.Collections

    /// Where a persisted store saves (set before it is made).
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

    func reduce(with state: Dispatcher.Collections) {
        switch state {
        case .fill(let count):
            _items.value = Array(repeating: 0, count: count)
            _byID.value = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 0) })
        case .write(let index, let value): _items.value[index] = value
        case .writeByID(let key, let value): _byID.value[key] = value
        case .append(let value): _items.value.append(value)
        }
    }
}

struct CollectionsAction: Actionable {
    typealias DispatchStateType = Dispatcher.Collections
}

struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var count: Int
}

extension Dispatcher {
    enum Rows: DispatchState {
        typealias RelatedStoreType = RowsStore
        typealias RelatedActionType = RowsAction
        case add([Row])
        case replace(Row)
        case count(id: Int, Int)
    }
}

final class RowsStore: Storable {
    typealias DispatchStateType = Dispatcher.Rows

    let rows: ConstantDictionary<Int, Row>
    private let _rows = VariableDictionary<Int, Row>()

    required init() {
        rows = ConstantDictionary(_rows)
    }

    func reduce(with state: Dispatcher.Rows) {
        switch state {
        case .add(let rows): _rows.append(contentsOf: rows)
        case .replace(let row): _rows[row.id] = row
        case .count(let id, let count): _rows[id]?.count = count
        }
    }
}

struct RowsAction: Actionable {
    typealias DispatchStateType = Dispatcher.Rows
}

/// Where observers put what they see, so that no work is optimized away.
final class Sink: @unchecked Sendable {
    // Sendable: written by observers on the measuring thread only.
    var total = 0
}

// MARK: Timing

/// Nanoseconds per change of `body`, which makes `changes` changes: the median of `runs`.
func nanoseconds(changes: Int, runs: Int = 7, _ body: (Int) -> Void) -> Double {
    var samples: [Double] = []
    for run in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        body(run)
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        samples.append(Double(elapsed) / Double(changes))
    }
    return samples.sorted()[samples.count / 2]
}

struct Measured {
    var title: String
    var size: Int
    var ns: Double
    var against: String?
}

var results: [Measured] = []
let arguments = Set(CommandLine.arguments.dropFirst())
let check = arguments.contains("--check")
let quick = arguments.contains("--quick")
let changes = 200_000

@MainActor func measureCollections(size: Int) {
    let model = ObservableCollections(count: size)
    let sink = Sink()
    let observableArray = nanoseconds(changes: changes) { run in
        for step in 0..<changes {
            model.items[(step &* 7 &+ run) % size] = step
        }
    }
    let observableDictionary = nanoseconds(changes: changes) { run in
        for step in 0..<changes {
            model.byID[(step &* 7 &+ run) % size] = step
        }
    }
    sink.total &+= model.items[0] &+ (model.byID[0] ?? 0)
    results.append(Measured(title: "@Observable class, items[i] = x", size: size, ns: observableArray))
    results.append(Measured(title: "@Observable class, byID[k] = x", size: size, ns: observableDictionary))

    for (name, observed, persisted) in [("plain", false, false), ("observed", true, false), ("persisted", false, true)]
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("big-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = persisted ? FileStorage(directory: directory) : nil
        CollectionsStore.storage = storage
        let store = CollectionsStore.instantiate()
        let action = CollectionsAction()
        action.invoke(.fill(size))
        var dusts: [Dust] = []
        if observed {
            dusts.append(store.items.observe(ignoreFirst: true) { sink.total &+= $0.count })
            dusts.append(store.byID.observe(ignoreFirst: true) { sink.total &+= $0.count })
        }
        let array = nanoseconds(changes: changes) { run in
            for step in 0..<changes {
                action.invoke(.write(index: (step &* 7 &+ run) % size, value: step))
            }
        }
        let dictionary = nanoseconds(changes: changes) { run in
            for step in 0..<changes {
                action.invoke(.writeByID((step &* 7 &+ run) % size, step))
            }
        }
        results.append(
            Measured(
                title: "store's reduce, items.value[i] = x (\(name))", size: size, ns: array,
                against: "@Observable class, items[i] = x"))
        results.append(
            Measured(
                title: "store's reduce, byID.value[k] = x (\(name))", size: size, ns: dictionary,
                against: "@Observable class, byID[k] = x"))
        dusts.forEach { $0.clean() }
        storage?.flush()
        store.clear()
        CollectionsStore.storage = nil
    }

    let variable = Variable(Array(repeating: 0, count: size))
    let update = nanoseconds(changes: changes) { run in
        for step in 0..<changes {
            variable.update { $0[(step &* 7 &+ run) % size] = step }
        }
    }
    results.append(Measured(title: "Variable.update { $0[i] = x }", size: size, ns: update))
}

@MainActor func measureAppend(size: Int) {
    let store = CollectionsStore.instantiate()
    let action = CollectionsAction()
    action.invoke(.fill(size))
    let appends = 20_000
    let append = nanoseconds(changes: appends, runs: 3) { _ in
        for step in 0..<appends {
            action.invoke(.append(step))
        }
    }
    results.append(Measured(title: "store's reduce, items.value.append(x)", size: size, ns: append))
    store.clear()
}

@MainActor func measureRows(count: Int) {
    let sink = Sink()
    let models = (0..<count).map { _ in ObservableRow() }
    let observable = nanoseconds(changes: changes) { run in
        for step in 0..<changes {
            models[(step &* 7 &+ run) % count].count = step
        }
    }
    results.append(Measured(title: "rows: @Observable row objects, rows[i].count = x", size: count, ns: observable))

    let store = RowsStore.instantiate()
    let action = RowsAction()
    action.invoke(.add((0..<count).map { Row(id: $0, count: 0) }))
    let dusts = (0..<count).compactMap { id in
        store.rows.constant(for: id)?.observe(ignoreFirst: true) { sink.total &+= $0.count }
    }
    let set = nanoseconds(changes: changes) { run in
        for step in 0..<changes {
            let id = (step &* 7 &+ run) % count
            action.invoke(.replace(Row(id: id, count: step)))
        }
    }
    results.append(
        Measured(
            title: "rows: VariableDictionary, each row observed, _rows[id] = row", size: count, ns: set,
            against: "rows: @Observable row objects, rows[i].count = x"))
    let inPlace = nanoseconds(changes: changes) { run in
        for step in 0..<changes {
            action.invoke(.count(id: (step &* 7 &+ run) % count, step))
        }
    }
    results.append(
        Measured(
            title: "rows: VariableDictionary, each row observed, _rows[id]?.count = x", size: count, ns: inPlace,
            against: "rows: @Observable row objects, rows[i].count = x"))
    dusts.forEach { $0.clean() }
    store.clear()

    // What the docs taught before: one `map` per row over the whole collection.
    let items = Variable(Array(repeating: 0, count: count))
    let mapped = (0..<count).map { id in items.map { $0[id] }.removeDuplicates() }
    let rowDusts = mapped.map { $0.observe(ignoreFirst: true) { sink.total &+= $0 } }
    let perRowMaps = 200
    let old = nanoseconds(changes: perRowMaps, runs: 3) { run in
        for step in 0..<perRowMaps {
            items.update { $0[(step &* 7 &+ run) % count] = step + 1 }
        }
    }
    results.append(Measured(title: "rows: items.map { $0[id] }.removeDuplicates() per row", size: count, ns: old))
    rowDusts.forEach { $0.clean() }
    if sink.total == Int.min { print("!") }
}

// MARK: Report

for size in quick ? [100_000] : [1_000, 100_000, 1_000_000] {
    FileHandle.standardError.write(Data("measuring collections of \(size)…\n".utf8))
    measureCollections(size: size)
}
if !quick {
    measureAppend(size: 1_000_000)
}
for count in [1_000, 10_000] {
    FileHandle.standardError.write(Data("measuring \(count) rows…\n".utf8))
    measureRows(count: count)
}

func format(_ ns: Double) -> String {
    ns >= 100 ? String(Int(ns.rounded())) : String(format: "%.1f", ns)
}

print(
    "ns per change (wall clock, median of several runs, release build; \(ProcessInfo.processInfo.activeProcessorCount) cores)\n"
)
let header = ["change", "elements", "ns", "× the @Observable write"]
var rows = [header]
var failures: [String] = []
for result in results {
    var ratio = "–"
    if let against = result.against, let base = results.first(where: { $0.title == against && $0.size == result.size })
    {
        let factor = result.ns / base.ns
        ratio = String(format: "%.2f×", factor)
        if result.size == 100_000 && factor > 2 {
            failures.append("\(result.title) at 100,000: \(ratio) the @Observable write (budget 2×)")
        }
    }
    rows.append([result.title, result.size.formatted(), format(result.ns), ratio])
}
let setAmong1000 = results.first { $0.title.hasSuffix("_rows[id] = row") && $0.size == 1_000 }
let setAmong10000 = results.first { $0.title.hasSuffix("_rows[id] = row") && $0.size == 10_000 }
if let setAmong1000, let setAmong10000, setAmong10000.ns > 2 * setAmong1000.ns {
    failures.append("a row set among 10,000 costs \(format(setAmong10000.ns)) ns, over 2× among 1,000")
}
let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
for row in rows {
    print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
}
if check {
    if failures.isEmpty {
        print("\nbudgets: hold")
    } else {
        print("\nbudgets: FAIL\n" + failures.joined(separator: "\n"))
        exit(1)
    }
}
