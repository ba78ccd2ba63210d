/// One contender of a workload.
public enum Contender: String, CaseIterable, Sendable {
    case fluxCapacitor = "FluxCapacitor"
    /// Hand-written code doing the same work: a final class holding the value and an array
    /// (or a dictionary) of closures, with no locks unless the workload is multi-threaded.
    case baseline
    case openCombine = "OpenCombine"
}

/// Something the benchmark suite measures, and how to read its numbers.
public struct Workload: Sendable {
    /// The benchmark names are `"\(id)/\(contender)"`.
    public let id: String
    /// The name shown in the report.
    public let title: String
    /// What one operation is, for the report's column header ("dispatch", "observer", …).
    public let operation: String
    /// How many times one sample runs the workload's body (package-benchmark's scaling).
    public let iterationsPerSample: Int
    /// How many operations one run of the body does.
    public let operationsPerIteration: Int
    /// Who runs this workload.
    public let contenders: [Contender]
    /// The target this workload is checked against, in words, for the report.
    public let target: String
    /// Whether `Benchmarks/instructions` counts every thread of the process, from start to
    /// end (what a recorder's queue does beside the dispatching thread included), rather
    /// than the measured thread inside `run(iterations:)`.
    public let countsWholeProcess: Bool

    init(
        id: String, title: String, operation: String, iterationsPerSample: Int, operationsPerIteration: Int,
        contenders: [Contender], target: String, countsWholeProcess: Bool = false,
        fluxCapacitor: @escaping @Sendable () -> any Runner, baseline: @escaping @Sendable () -> any Runner
    ) {
        self.id = id
        self.title = title
        self.operation = operation
        self.iterationsPerSample = iterationsPerSample
        self.operationsPerIteration = operationsPerIteration
        self.contenders = contenders
        self.target = target
        self.countsWholeProcess = countsWholeProcess
        self.makeFluxCapacitor = fluxCapacitor
        self.makeBaseline = baseline
    }

    /// How many operations one sample does: what the report divides medians by.
    public var operationsPerSample: Int { iterationsPerSample * operationsPerIteration }

    /// The package-benchmark name of `contender`'s run of this workload.
    public func benchmarkName(_ contender: Contender) -> String {
        "\(id)/\(contender.rawValue)"
    }

    /// Makes a ready-to-run contender; the benchmark calls `run(iterations:)` per sample.
    /// Peers (OpenCombine) are made by the wall-clock suite (`PeerWorkloads` in WallClock/),
    /// so that this package depends on FluxCapacitor alone.
    public func makeRunner(_ contender: Contender) -> any Runner {
        switch contender {
        case .fluxCapacitor: makeFluxCapacitor()
        case .baseline: makeBaseline()
        case .openCombine:
            preconditionFailure("Workload.makeRunner: the benchmarks package makes no peer; use PeerWorkloads")
        }
    }

    let makeFluxCapacitor: @Sendable () -> any Runner
    let makeBaseline: @Sendable () -> any Runner
}

/// A contender set up for a workload. `run(iterations:)` does `iterations` runs of the
/// workload's body and is the only thing measured.
public protocol Runner: AnyObject {
    func run(iterations: Int)
    /// A value derived from the work done, so that the optimizer cannot drop it.
    var checksum: Int { get }
    /// Waits for what the workload left to a thread of the library's (a recorder's queue
    /// writes what it was given), and stops the program if that work was not all done (a
    /// recorder that dropped a state): the figure would not be of what it says.
    func settle()
}

extension Runner {
    /// Nothing to wait for: most workloads leave no work to another thread.
    public func settle() {}
}

/// The workloads, in the order the report lists them.
public enum Catalog {
    /// Every workload the suite measures.
    public static let workloads: [Workload] = [
        Workload(
            id: "dispatch", title: "dispatch, 1 observer", operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "≤ 3.8× baseline, 0 mallocs, faster than OpenCombine",
            fluxCapacitor: { FluxDispatch() },
            baseline: { BaselineDispatch() }),
        Workload(
            id: "dispatchLogged", title: "dispatch, 1 observer, a no-op dispatch log subscriber",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(context: the dispatch log's path, which a recorder hears through)",
            fluxCapacitor: { FluxDispatch(logging: true) },
            baseline: { BaselineDispatch() }),
        Workload(
            id: "dispatchRecorderOn", title: "dispatch, 1 observer, recorder on: the dispatching thread",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "≤ 2× a plain dispatch, 0 mallocs (encoding and writing are off this thread)",
            fluxCapacitor: { FluxDispatch(recording: true) },
            baseline: { BaselineDispatch() }),
        Workload(
            id: "dispatchRecorderOnWholeProcess",
            title: "dispatch, 1 observer, recorder on: the whole process (baseline: JSONEncoder and a locked append)",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "≤ the baseline: a dispatch, the state encoded with JSONEncoder and its line appended under a lock",
            countsWholeProcess: true,
            fluxCapacitor: { FluxDispatch(recording: true) },
            baseline: { BaselineRecordedDispatch() }),
        Workload(
            id: "set", title: "Variable set, 1 observer", operation: "set",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "≤ 1.4× baseline, 0 mallocs",
            fluxCapacitor: { FluxSet() },
            baseline: { BaselineSet() }),
        Workload(
            id: "dispatchOfReadValue", title: "dispatch, 1 observer, value read via .value",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "(context for set of a read value)",
            fluxCapacitor: { FluxDispatch(readThroughValue: true) },
            baseline: { BaselineDispatch() }),
        Workload(
            id: "setOfReadValue", title: "Variable set, 1 observer, value read via .value",
            operation: "set",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "≤ 6× baseline, 0 mallocs",
            fluxCapacitor: { FluxSet(readThroughValue: true) },
            baseline: { BaselineSet() }),
        Workload(
            id: "notify3000", title: "notify 3,000 observers", operation: "round",
            iterationsPerSample: 10, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "≤ 1.5× baseline, 0 mallocs",
            fluxCapacitor: { FluxNotify(observers: 3_000) },
            baseline: { BaselineNotify(observers: 3_000) }),
        Workload(
            id: "send", title: "send, 1 observer", operation: "send",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "≤ 1.2× Variable set, 0 mallocs",
            fluxCapacitor: { FluxSend(observers: 1) },
            baseline: { BaselineSend(observers: 1) }),
        Workload(
            id: "send3000", title: "send, 3,000 observers", operation: "round",
            iterationsPerSample: 10, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "≤ 1.2× notify 3,000, 0 mallocs",
            fluxCapacitor: { FluxSend(observers: 3_000) },
            baseline: { BaselineSend(observers: 3_000) }),
        Workload(
            id: "observeClean3000", title: "observe + clean 3,000", operation: "observer",
            iterationsPerSample: 1, operationsPerIteration: 3_000,
            contenders: Contender.allCases,
            target: "≤ 3× dictionary baseline per observer",
            fluxCapacitor: { FluxObserveClean(observers: 3_000) },
            baseline: { BaselineObserveClean(observers: 3_000) }),
        Workload(
            id: "observeClean30000", title: "observe + clean 30,000", operation: "observer",
            iterationsPerSample: 1, operationsPerIteration: 30_000,
            contenders: Contender.allCases,
            target: "30,000 ≤ 12× the cost of 3,000",
            fluxCapacitor: { FluxObserveClean(observers: 30_000) },
            baseline: { BaselineObserveClean(observers: 30_000) }),
        Workload(
            id: "instantiate", title: "instantiate() of a live store", operation: "call",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "≤ 60 ns, 0 mallocs",
            fluxCapacitor: { FluxInstantiate() },
            baseline: { BaselineInstantiate() }),
        Workload(
            id: "map", title: "map, 1 observer of the mapped value", operation: "set",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(context for Constant(combining:))",
            fluxCapacitor: { FluxDerivedValue.mapped() },
            baseline: { BaselineDerivedSet() }),
        Workload(
            id: "combiningOneSource", title: "Constant(combining:) of 1 source, 1 observer", operation: "set",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "≤ 1.5× map",
            fluxCapacitor: { FluxDerivedValue.combined() },
            baseline: { BaselineDerivedSet() }),
        Workload(
            id: "combiningTwoSourcesDispatch", title: "dispatch changing 2 sources of Constant(combining:), 1 observer",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "≤ 1,200 instructions, 0 mallocs (issue 34)",
            fluxCapacitor: { FluxCombinedDispatch() },
            baseline: { BaselineCombinedDispatch() }),
        Workload(
            id: "bigArrayWrite1000", title: "dispatch writing 1 element of an array of 1,000, 1 observer",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_items.value[i] = x` in a reduce; 100,000 within 1.2× of 1,000)",
            fluxCapacitor: { FluxBigStateWrite(count: 1_000, dictionary: false) },
            baseline: { BaselineBigStateWrite(count: 1_000, dictionary: false) }),
        Workload(
            id: "bigArrayWrite100000", title: "dispatch writing 1 element of an array of 100,000, 1 observer",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_items.value[i] = x` in a reduce; 100,000 within 1.2× of 1,000)",
            fluxCapacitor: { FluxBigStateWrite(count: 100_000, dictionary: false) },
            baseline: { BaselineBigStateWrite(count: 100_000, dictionary: false) }),
        Workload(
            id: "bigDictionaryWrite1000", title: "dispatch writing 1 element of a dictionary of 1,000, 1 observer",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_byID.value[k] = x` in a reduce; 100,000 within 1.2× of 1,000)",
            fluxCapacitor: { FluxBigStateWrite(count: 1_000, dictionary: true) },
            baseline: { BaselineBigStateWrite(count: 1_000, dictionary: true) }),
        Workload(
            id: "bigDictionaryWrite100000", title: "dispatch writing 1 element of a dictionary of 100,000, 1 observer",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_byID.value[k] = x` in a reduce; 100,000 within 1.2× of 1,000)",
            fluxCapacitor: { FluxBigStateWrite(count: 100_000, dictionary: true) },
            baseline: { BaselineBigStateWrite(count: 100_000, dictionary: true) }),
        Workload(
            id: "bigArrayWritePersisted100000",
            title: "dispatch writing 1 element of a persisted array of 100,000, 1 observer", operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: the change's own share; the write is coalesced, off the changing thread)",
            fluxCapacitor: { FluxBigStateWrite(count: 100_000, dictionary: false, persisted: true) },
            baseline: { BaselineBigStateWrite(count: 100_000, dictionary: false) }),
        Workload(
            id: "rowChange1000", title: "dispatch setting 1 row among 1,000, each observed",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_rows[row.id] = row` in a reduce; ≤ 2× dispatch, 10,000 within 1.2× of 1,000)",
            fluxCapacitor: { FluxRowChange(rows: 1_000) },
            baseline: { BaselineRowChange(rows: 1_000) }),
        Workload(
            id: "rowChange10000", title: "dispatch setting 1 row among 10,000, each observed",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_rows[row.id] = row` in a reduce; ≤ 2× dispatch, 10,000 within 1.2× of 1,000)",
            fluxCapacitor: { FluxRowChange(rows: 10_000) },
            baseline: { BaselineRowChange(rows: 10_000) }),
        Workload(
            id: "rowChangeInPlace10000", title: "dispatch changing 1 row in place among 10,000, each observed",
            operation: "dispatch",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 39: `_rows[id]?.count = n` in a reduce)",
            fluxCapacitor: { FluxRowChange(rows: 10_000, inPlace: true) },
            baseline: { BaselineRowChange(rows: 10_000) }),
        Workload(
            id: "combiningFanOut2000", title: "dispatch recomputing 2,000 combined values, 1 observer each",
            operation: "combined value",
            iterationsPerSample: 1, operationsPerIteration: 2_000,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 40: linear in the number of combined values: 20,000 within 1.2× of 2,000 per value)",
            fluxCapacitor: { FluxCombinedFanOut(count: 2_000) },
            baseline: { BaselineCombinedFanOut(count: 2_000) }),
        Workload(
            id: "combiningFanOut20000", title: "dispatch recomputing 20,000 combined values, 1 observer each",
            operation: "combined value",
            iterationsPerSample: 1, operationsPerIteration: 20_000,
            contenders: [.fluxCapacitor, .baseline],
            target: "(issue 40: linear in the number of combined values: 20,000 within 1.2× of 2,000 per value)",
            fluxCapacitor: { FluxCombinedFanOut(count: 20_000) },
            baseline: { BaselineCombinedFanOut(count: 20_000) }),
        Workload(
            id: "handOverSet", title: "Variable set from its own observer: the hand-over, 1 observer",
            operation: "outer set",
            iterationsPerSample: 1_000, operationsPerIteration: 1,
            contenders: [.fluxCapacitor, .baseline],
            target: "(context: the path of a set that finds a round running)",
            fluxCapacitor: { FluxHandOverSet() },
            baseline: { BaselineHandOverSet() }),
        Workload(
            id: "dispatch2Threads", title: "dispatch, 2 threads, 1 store", operation: "dispatch",
            iterationsPerSample: 10_000, operationsPerIteration: 1,
            contenders: Contender.allCases,
            target: "(contention; baseline takes a mutex)",
            fluxCapacitor: { FluxContendedDispatch() },
            baseline: { BaselineContendedDispatch() }),
    ]
}
