import FluxCapacitor
import Foundation
import Observation

/// A contender set up for a memory workload: what one object (an observer, a live store)
/// keeps on the heap. `MemoryCounts` reads the heap before and after `add(count:)`.
public protocol MemoryRunner: AnyObject {
    /// Does once what is not paid per object (metadata, the first buffers, the registry,
    /// an object made and let go), and reserves room to keep `count` objects.
    func prepare(count: Int)
    /// Makes `count` objects and keeps them alive.
    func add(count: Int)
    /// Waits for what a thread of the library's does beside the measured one (a recorder's
    /// writer), after the mallocs are counted and before the heap is read.
    func settle()
}

extension MemoryRunner {
    /// Nothing to wait for: most workloads leave no work to another thread.
    public func settle() {}
}

/// A workload measured in bytes and mallocs per object rather than instructions.
public struct MemoryWorkload: Sendable {
    /// The name `--filter` matches.
    public let id: String
    /// The name shown in the report.
    public let title: String
    /// What one object is ("observer", "live store").
    public let unit: String
    /// How many objects one measurement makes (bytes are averaged over them).
    public let count: Int
    /// The most bytes per object FluxCapacitor may keep, if that is budgeted.
    public let bytesBudget: Int?
    /// The most mallocs per object FluxCapacitor may make, if that is budgeted too.
    public var mallocsBudget: Double? = nil
    /// Whether the mallocs counted are the measured thread's only (a recorder encodes and
    /// writes on a queue of its own, beside it).
    public var countsThisThreadOnly = false
    /// Whether the figures move from run to run (the concurrency runtime's task allocator
    /// decides some allocations): `--check` then holds the budget only, and does not
    /// compare the figures with `Benchmarks/figures.json`, which keeps the last recorded.
    public var figuresVary = false

    let makeFluxCapacitor: @Sendable () -> any MemoryRunner
    let makeBaseline: @Sendable () -> any MemoryRunner

    /// A contender set up for this workload (FluxCapacitor or the baseline).
    public func makeRunner(_ contender: Contender) -> any MemoryRunner {
        switch contender {
        case .fluxCapacitor: makeFluxCapacitor()
        case .baseline: makeBaseline()
        case .openCombine: preconditionFailure("MemoryWorkload.makeRunner: no peer is measured for memory")
        }
    }
}

/// The memory workloads, in the order the report lists them.
public enum MemoryCatalog {
    /// Every memory workload.
    public static let workloads: [MemoryWorkload] = [
        MemoryWorkload(
            id: "observerMemory", title: "memory per observer", unit: "observer", count: 1_000,
            bytesBudget: 88,
            makeFluxCapacitor: { FluxObserverMemory() }, makeBaseline: { BaselineObserverMemory() }),
        MemoryWorkload(
            id: "storeMemory", title: "memory per live store (one Variable)", unit: "live store", count: 1,
            bytesBudget: 300,
            makeFluxCapacitor: { FluxStoreMemory() }, makeBaseline: { BaselineStoreMemory() }),
        MemoryWorkload(
            id: "dispatchLoggedMemory", title: "memory per dispatch, a no-op dispatch log subscriber",
            unit: "dispatch", count: 1_000, bytesBudget: 0,
            makeFluxCapacitor: { DispatchesMemory(FluxDispatch(logging: true)) },
            makeBaseline: { DispatchesMemory(FluxDispatch()) }),
        MemoryWorkload(
            id: "dispatchRecorderOnMemory", title: "memory per dispatch, recorder on (the dispatching thread)",
            unit: "dispatch", count: 1_000, bytesBudget: 0, mallocsBudget: 0, countsThisThreadOnly: true,
            makeFluxCapacitor: { DispatchesMemory(FluxDispatch(recording: true)) },
            makeBaseline: { DispatchesMemory(FluxDispatch()) }),
        MemoryWorkload(
            id: "combiningTwoSourcesDispatchMemory",
            title: "memory per dispatch changing 2 sources of a combined value",
            unit: "dispatch", count: 1_000, bytesBudget: 0, mallocsBudget: 0,
            makeFluxCapacitor: { DispatchesMemory(FluxCombinedDispatch()) },
            makeBaseline: { DispatchesMemory(BaselineCombinedDispatch()) }),
        MemoryWorkload(
            id: "inFlightStartMemory", title: "memory per InFlightTasks.start replacing a running task",
            unit: "start", count: 200, bytesBudget: nil, mallocsBudget: 8, figuresVary: true,
            makeFluxCapacitor: { FluxInFlightStarts() }, makeBaseline: { BaselineTaskStarts() }),
        MemoryWorkload(
            id: "dictionaryElementMemory",
            title: "memory per element of a VariableDictionary (baseline: an @Observable object per element)",
            unit: "element", count: 1_000, bytesBudget: nil,
            makeFluxCapacitor: { FluxDictionaryElementMemory() },
            makeBaseline: { BaselineObservableElementMemory() }),
    ]
}

/// `.current` observers of one `Variable`, each with a closure that captures a sink (as
/// users write); their dusts are kept in an array reserved beforehand, so it is not counted.
final class FluxObserverMemory: MemoryRunner {
    private let variable = Variable(0)
    private let sink = Sink()
    private var dusts: [Dust] = []

    func prepare(count: Int) {
        dusts.reserveCapacity(count + 1)
        observe()
    }

    func add(count: Int) {
        for _ in 0..<count {
            observe()
        }
    }

    private func observe() {
        let sink = self.sink
        dusts.append(variable.observe(ignoreFirst: true) { sink.total &+= $0 })
    }

    deinit { dusts.forEach { $0.clean() } }
}

/// The floor: a closure capturing a sink, appended to an array of closures.
final class BaselineObserverMemory: MemoryRunner {
    private let store = BaselineStore()
    private let sink = Sink()

    func prepare(count: Int) {
        observe()
    }

    func add(count: Int) {
        for _ in 0..<count {
            observe()
        }
    }

    private func observe() {
        let sink = self.sink
        store.observe { sink.total &+= $0 }
    }
}

/// One live `CounterStore` (one `Variable` and its `Constant`), registered. Prepared by
/// making one, clearing it and letting it go, then dispatching once (so the registry holds
/// nothing of it), so that only a store and its registration are counted.
final class FluxStoreMemory: MemoryRunner {
    private var stores: [CounterStore] = []

    func prepare(count: Int) {
        stores.reserveCapacity(count)
        do {
            let first = CounterStore.instantiate()
            first.clear()
        }
        CounterAction().invoke(.increment)
    }

    func add(count: Int) {
        precondition(count == 1, "FluxStoreMemory: one store per type")
        stores.append(CounterStore.instantiate())
    }
}

/// The floor: a final class holding an `Int` and an (empty) array of observers, registered
/// in a dictionary of weak boxes keyed by type, under a lock.
final class BaselineStoreMemory: MemoryRunner {
    private let registry = BaselineRegistry()
    private var stores: [BaselineStore] = []

    func prepare(count: Int) {
        stores.reserveCapacity(count)
        _ = registry.instantiate()
        registry.clear()
    }

    func add(count: Int) {
        precondition(count == 1, "BaselineStoreMemory: one store per type")
        stores.append(registry.instantiate())
    }
}

/// Dispatches to a store with one observer (`FluxDispatch`, with a dispatch-log subscriber
/// or a recorder): what each keeps on the heap, and the mallocs it makes. The warm-up makes
/// as many dispatches first, so that buffers that grow once (a recorder's) have grown; a
/// recorder's writer encodes and writes beside the measured thread, so its row counts that
/// thread's mallocs, and reads the heap once the writer is done. The baseline is a plain
/// dispatch.
final class DispatchesMemory: MemoryRunner {
    private let dispatch: any Runner

    init(_ dispatch: any Runner) {
        self.dispatch = dispatch
    }

    func prepare(count: Int) {
        dispatch.run(iterations: count)
        dispatch.settle()
    }

    func add(count: Int) {
        dispatch.run(iterations: count)
    }

    func settle() {
        dispatch.settle()
    }
}

/// Elements of a `VariableDictionary` (a `RowsStore`'s rows, each set by a dispatch), with
/// nobody observing them: what one element keeps, its value and lock, its entry in the
/// dictionary and its key in the keys, as the docs quote it beside an `@Observable` object
/// per element.
final class FluxDictionaryElementMemory: MemoryRunner {
    private let store = RowsStore.instantiate()
    private let action = RowsAction()
    private var next = 0

    func prepare(count: Int) {
        add(count: 1)
    }

    func add(count: Int) {
        for _ in 0..<count {
            action.invoke(.replace(BenchmarkRow(id: next, count: 0)))
            next += 1
        }
    }
}

/// What the docs compare an element with: an `@Observable` object per element, kept in a
/// dictionary by its id.
final class BaselineObservableElementMemory: MemoryRunner {
    @Observable
    final class Row {
        let id: Int
        var count = 0

        init(id: Int) {
            self.id = id
        }
    }

    private var rows: [Int: Row] = [:]

    func prepare(count: Int) {
        add(count: 1)
    }

    func add(count: Int) {
        for _ in 0..<count {
            let id = rows.count
            rows[id] = Row(id: id)
        }
    }
}
