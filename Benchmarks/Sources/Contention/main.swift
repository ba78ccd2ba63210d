// `Benchmarks/contention`: several threads on one target, wall clock.
//
// T threads each do N operations on one shared target, started together; the program prints
// nanoseconds per operation (the run's wall time divided by T × N) for FluxCapacitor and for
// a hand-written baseline of the same shape (a mutex around the value and its observer), the
// median of several runs, their ratio, and whether every value arrived at the observer, in
// the order each thread made them. The thread counts are 1, 2, 4 and twice the core count.
// Then the crowded rows: CPU time per set with 32 threads per core, and with setters behind
// a slow observer (`--filter crowded`, `--filter slowObserver`).
//
//   Benchmarks/contention                       # every workload
//   Benchmarks/contention --filter set          # the workloads whose id contains "set"
//   Benchmarks/contention --markdown            # the table as Markdown
//   Benchmarks/contention --check               # exit 1 if a budget does not hold
//   Benchmarks/contention --runs 9 --operations 50000

import Dispatch
import FluxCapacitor
import Foundation

#if canImport(Synchronization)
import Synchronization
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Options

struct Options {
    var filters: [String] = []
    var markdown = false
    var check = false
    var runs = 5
    var operations = 100_000

    init(arguments: [String]) {
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--filter": filters.append(arguments.popFirst() ?? "")
            case "--markdown": markdown = true
            case "--check": check = true
            case "--runs": runs = Int(arguments.popFirst() ?? "") ?? runs
            case "--operations": operations = Int(arguments.popFirst() ?? "") ?? operations
            default:
                FileHandle.standardError.write(Data("error: unknown option '\(argument)'\n".utf8))
                exit(2)
            }
        }
    }
}

// MARK: - Threads started together

/// Runs `body(thread)` on `count` threads of their own, released together once all are up;
/// returns the wall time from the release to the end of the last one, in nanoseconds.
func timeThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> UInt64 {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for thread in 0..<count {
        done.enter()
        let worker = Thread {
            ready.signal()
            go.wait()
            body(thread)
            done.leave()
        }
        worker.stackSize = 1 << 20
        worker.start()
    }
    for _ in 0..<count { ready.wait() }
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count { go.signal() }
    done.wait()
    return DispatchTime.now().uptimeNanoseconds - start
}

// MARK: - What an observer checks

/// Counts the values an observer hears and checks that each thread's values come in the
/// order it made them. Values are `thread << 32 | sequence`. Touched by one call at a time:
/// the contender under test promises it (and `concurrentCalls` counts a breach). Kept cheap
/// (no array, no exclusivity checks), since it is part of every operation measured.
final class Arrivals: @unchecked Sendable {
    // Sendable: called by one observer at a time (the promise under test); `inCall` catches
    // two calls at once, and the counts are read after the threads have ended.
    private let next: UnsafeMutablePointer<Int>
    private let threads: Int
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private(set) var outOfOrder = 0
    @exclusivity(unchecked) private(set) var concurrentCalls = 0
    @exclusivity(unchecked) private var inCall = false

    init(threads: Int) {
        self.threads = threads
        next = .allocate(capacity: threads)
        next.initialize(repeating: 0, count: threads)
    }

    deinit { next.deallocate() }

    func hear(_ value: Int) {
        if inCall { concurrentCalls &+= 1 }
        inCall = true
        let thread = value >> 32
        let sequence = value & 0xFFFF_FFFF
        if thread < threads {
            if sequence != next[thread] { outOfOrder &+= 1 }
            next[thread] = sequence &+ 1
        }
        count &+= 1
        inCall = false
    }

    /// Whether `expected` values came, each thread's in order, one call at a time.
    func allArrived(_ expected: Int) -> Bool {
        count == expected && outOfOrder == 0 && concurrentCalls == 0
    }
}

/// The plain lock the baseline takes: `Synchronization.Mutex` (a futex lock that spins a
/// little before sleeping, as the library's own does), or a pthread mutex where `Mutex` is
/// not available (macOS 14).
final class PlainMutex: @unchecked Sendable {
    // Sendable: a mutex, made to be shared.
    private let lock: any PlainLock

    init() {
        #if canImport(Synchronization)
        if #available(macOS 15, *) {
            lock = SynchronizationMutex()
            return
        }
        #endif
        lock = PthreadMutex()
    }

    @inline(__always)
    func withLock<Result>(_ body: () -> Result) -> Result {
        lock.withLock(body)
    }
}

protocol PlainLock: Sendable {
    func withLock<Result>(_ body: () -> Result) -> Result
}

#if canImport(Synchronization)
@available(macOS 15, *)
final class SynchronizationMutex: PlainLock {
    private let mutex = Mutex(())

    func withLock<Result>(_ body: () -> Result) -> Result {
        mutex.withLock { _ in body() }
    }
}
#endif

final class PthreadMutex: PlainLock, @unchecked Sendable {
    // Sendable: a mutex, made to be shared.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// The baseline's target: a value and its observer behind one mutex.
final class LockedValue: @unchecked Sendable {
    // Sendable: `mutex` guards `value`, and the observer is called with it held.
    private let mutex = PlainMutex()
    @exclusivity(unchecked) private var value = 0
    private let observer: (Int) -> Void

    init(observer: @escaping (Int) -> Void) { self.observer = observer }

    func set(_ newValue: Int) {
        mutex.withLock {
            value = newValue
            observer(newValue)
        }
    }

    func update(_ change: (inout Int) -> Void) {
        mutex.withLock {
            change(&value)
            observer(value)
        }
    }
}

// MARK: - Workloads

/// One run of a workload by one contender: `threads` threads × `operations` each. Returns
/// the wall time and whether every value arrived.
typealias Run = (_ threads: Int, _ operations: Int) -> (nanoseconds: UInt64, allArrived: Bool)

struct Workload {
    let id: String
    let title: String
    let fluxCapacitor: Run
    let baseline: Run
}

extension Dispatcher {
    enum Contended: DispatchState {
        typealias RelatedStoreType = ContendedStore
        typealias RelatedActionType = ContendedAction
        case set(Int)
    }
}

final class ContendedStore: Storable {
    typealias DispatchStateType = Dispatcher.Contended
    let value: Constant<Int>
    private let _value = Variable(0)

    required init() { value = Constant(_value) }

    func reduce(with state: Dispatcher.Contended) {
        switch state {
        case .set(let value): _value.value = value
        }
    }
}

struct ContendedAction: Actionable {
    typealias DispatchStateType = Dispatcher.Contended
}

/// Each thread sets the target to its values in order; the observer checks them.
func baselineSetting(threads: Int, operations: Int) -> (nanoseconds: UInt64, allArrived: Bool) {
    let arrivals = Arrivals(threads: threads)
    let target = LockedValue(observer: arrivals.hear)
    let time = timeThreads(threads) { thread in
        for sequence in 0..<operations { target.set(thread << 32 | sequence) }
    }
    return (time, arrivals.allArrived(threads * operations))
}

let workloads: [Workload] = [
    Workload(
        id: "set", title: "Variable set, 1 observer",
        fluxCapacitor: { threads, operations in
            let arrivals = Arrivals(threads: threads)
            let variable = Variable(0)
            let dust = variable.observe(ignoreFirst: true) { arrivals.hear($0) }
            let time = timeThreads(threads) { thread in
                for sequence in 0..<operations { variable.value = thread << 32 | sequence }
            }
            dust.clean()
            return (time, arrivals.allArrived(threads * operations))
        },
        baseline: baselineSetting),
    Workload(
        id: "update", title: "Variable.update, 1 observer",
        fluxCapacitor: { threads, operations in
            let arrivals = Arrivals(threads: 1)
            let variable = Variable(0)
            let dust = variable.observe(ignoreFirst: true) { arrivals.hear($0 - 1) }
            let time = timeThreads(threads) { _ in
                for _ in 0..<operations { variable.update { $0 += 1 } }
            }
            dust.clean()
            // One sequence, 1…T×N, in order: no update lost, none heard twice.
            return (time, arrivals.allArrived(threads * operations) && variable.value == threads * operations)
        },
        baseline: { threads, operations in
            let arrivals = Arrivals(threads: 1)
            let target = LockedValue { arrivals.hear($0 - 1) }
            let time = timeThreads(threads) { _ in
                for _ in 0..<operations { target.update { $0 += 1 } }
            }
            return (time, arrivals.allArrived(threads * operations))
        }),
    Workload(
        id: "send", title: "Sink.send, 1 observer",
        fluxCapacitor: { threads, operations in
            let arrivals = Arrivals(threads: threads)
            let sink = FluxCapacitor.Sink<Int>()
            let dust = sink.signal.observe { arrivals.hear($0) }
            let time = timeThreads(threads) { thread in
                for sequence in 0..<operations { sink.send(thread << 32 | sequence) }
            }
            dust.clean()
            return (time, arrivals.allArrived(threads * operations))
        },
        baseline: baselineSetting),
    Workload(
        id: "dispatch", title: "dispatch to one store, 1 observer",
        fluxCapacitor: { threads, operations in
            let arrivals = Arrivals(threads: threads)
            let dispatcher = Dispatcher()
            return Dispatcher.withCurrent(dispatcher) {
                let store = ContendedStore.instantiate()
                let dust = store.value.observe(ignoreFirst: true) { arrivals.hear($0) }
                let time = timeThreads(threads) { thread in
                    Dispatcher.withCurrent(dispatcher) {
                        let action = ContendedAction()
                        for sequence in 0..<operations { action.invoke(.set(thread << 32 | sequence)) }
                    }
                }
                dust.clean()
                return (time, arrivals.allArrived(threads * operations))
            }
        },
        baseline: baselineSetting),
    Workload(
        id: "mix", title: "dispatches and sets, half each",
        fluxCapacitor: { threads, operations in
            let dispatched = Arrivals(threads: threads)
            let set = Arrivals(threads: threads)
            let dispatcher = Dispatcher()
            return Dispatcher.withCurrent(dispatcher) {
                let store = ContendedStore.instantiate()
                let variable = Variable(0)
                let dusts = [
                    store.value.observe(ignoreFirst: true) { dispatched.hear($0) },
                    variable.observe(ignoreFirst: true) { set.hear($0) },
                ]
                let time = timeThreads(threads) { thread in
                    Dispatcher.withCurrent(dispatcher) {
                        let action = ContendedAction()
                        for sequence in 0..<operations / 2 {
                            action.invoke(.set(thread << 32 | sequence))
                            variable.value = thread << 32 | sequence
                        }
                    }
                }
                dusts.forEach { $0.clean() }
                let each = threads * (operations / 2)
                return (time, dispatched.allArrived(each) && set.allArrived(each))
            }
        },
        baseline: { threads, operations in
            let dispatched = Arrivals(threads: threads)
            let set = Arrivals(threads: threads)
            let store = LockedValue(observer: dispatched.hear)
            let variable = LockedValue(observer: set.hear)
            let time = timeThreads(threads) { thread in
                for sequence in 0..<operations / 2 {
                    store.set(thread << 32 | sequence)
                    variable.set(thread << 32 | sequence)
                }
            }
            let each = threads * (operations / 2)
            return (time, dispatched.allArrived(each) && set.allArrived(each))
        }),
]

// MARK: - Report

let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
let cores = ProcessInfo.processInfo.activeProcessorCount
let threadCounts = Array(Set([1, 2, 4, 2 * cores])).sorted()
/// The budget: at 4 threads, FluxCapacitor at most this many times the baseline (issue 34).
let budgetAtFourThreads = 3.0

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func measure(_ run: Run, threads: Int) -> (nanosecondsPerOperation: Double, allArrived: Bool) {
    var times: [Double] = []
    var allArrived = true
    for _ in 0..<options.runs {
        let (time, arrived) = run(threads, options.operations)
        times.append(Double(time) / Double(threads * options.operations))
        allArrived = allArrived && arrived
    }
    return (median(times), allArrived)
}

func format(_ value: Double) -> String {
    String(format: value < 10 ? "%.1f" : "%.0f", value)
}

print(
    "\(cores) cores; \(options.operations) operations per thread; median of \(options.runs) runs; "
        + "ns per operation (wall time / all operations), release build.")
print("")
var header = ["workload", "threads", "FluxCapacitor", "baseline (mutex)", "ratio", "every value arrived", "budget"]
if options.markdown {
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + String(repeating: " --- |", count: header.count))
} else {
    print(header.joined(separator: "\t"))
}
var failed = false
for workload in workloads
where options.filters.isEmpty || options.filters.contains(where: { workload.id.contains($0) }) {
    for threads in threadCounts {
        let flux = measure(workload.fluxCapacitor, threads: threads)
        let base = measure(workload.baseline, threads: threads)
        let ratio = flux.nanosecondsPerOperation / base.nanosecondsPerOperation
        var budget = "–"
        if threads == 4 {
            let holds = ratio <= budgetAtFourThreads
            budget = "≤ \(format(budgetAtFourThreads))× baseline: \(holds ? "holds" : "DOES NOT HOLD")"
            failed = failed || !holds
        }
        failed = failed || !flux.allArrived || !base.allArrived
        let row = [
            workload.title, "\(threads)", format(flux.nanosecondsPerOperation), format(base.nanosecondsPerOperation),
            format(ratio) + "×", flux.allArrived && base.allArrived ? "yes" : "NO", budget,
        ]
        if options.markdown {
            print("| " + row.joined(separator: " | ") + " |")
        } else {
            print(row.joined(separator: "\t"))
        }
    }
}
// MARK: - A deep graph of combined values (issue 32)

extension Dispatcher {
    enum Graph: DispatchState {
        typealias RelatedStoreType = GraphStore
        typealias RelatedActionType = GraphAction
        case set(Int, Int)
    }
}

final class GraphStore: Storable {
    typealias DispatchStateType = Dispatcher.Graph
    let first = Variable(0)
    let second = Variable(0)

    required init() {}

    func reduce(with state: Dispatcher.Graph) {
        switch state {
        case .set(let one, let two):
            first.value = one
            second.value = two
        }
    }
}

struct GraphAction: Actionable {
    typealias DispatchStateType = Dispatcher.Graph
}

/// One dispatch setting both roots of `c[k] = c[k-1] + c[k-2]`, `depth` values deep: the
/// median wall time per dispatch, and whether the top heard one value per dispatch, right.
func deepGraph(depth: Int, dispatches: Int) -> (microseconds: Double, right: Bool) {
    let dispatcher = Dispatcher()
    return Dispatcher.withCurrent(dispatcher) {
        let store = GraphStore.instantiate()
        var values: [Constant<Int>] = [Constant(store.first), Constant(store.second)]
        for k in 2..<depth {
            values.append(Constant(combining: values[k - 1], values[k - 2]) { $0 &+ $1 })
        }
        let heard = Arrivals(threads: 1)
        let top = values[depth - 1]
        let dust = top.observe(ignoreFirst: true) { _ in heard.hear(0) }
        var times: [Double] = []
        var right = true
        for run in 0..<options.runs {
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<dispatches {
                GraphAction().invoke(.set(run, index))
            }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(dispatches) / 1_000)
            var expected = [run, dispatches - 1]
            for k in 2..<depth { expected.append(expected[k - 1] &+ expected[k - 2]) }
            right = right && top.value == expected[depth - 1]
        }
        dust.clean()
        return (median(times), right && heard.count == options.runs * dispatches)
    }
}

if options.filters.isEmpty || options.filters.contains(where: { "graph".contains($0) }) {
    let (microseconds, right) = deepGraph(depth: 24, dispatches: 1_000)
    let holds = microseconds < 2_000
    failed = failed || !holds || !right
    print("")
    print(
        "graph: one dispatch through 24 combined values (c[k] = c[k-1] + c[k-2]): "
            + "\(format(microseconds)) µs per dispatch (median of \(options.runs) runs of 1,000), "
            + "one value per dispatch at the top, right: \(right ? "yes" : "NO"); "
            + "≤ 2 ms (issue 32): \(holds ? "holds" : "DOES NOT HOLD")")
}

// MARK: - Many more threads than cores, and a slow observer: CPU time (issue 40)

/// The CPU time this process has used so far (user and system, every thread), in
/// nanoseconds.
func processCPUNanoseconds() -> UInt64 {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)  // Glibc imports the constant as an enum
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    let seconds = UInt64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    let microseconds = UInt64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    return seconds * 1_000_000_000 + microseconds * 1_000
}

/// One contender's run of `setters` threads each setting a value `sets` times, its
/// observer spending `observerMicroseconds` per value: CPU and wall nanoseconds per set
/// (the median of the runs), and whether every value arrived, each thread's in order,
/// one call at a time.
func crowdedSetting(
    setters: Int, sets: Int, observerMicroseconds: UInt32, fluxCapacitor: Bool
) -> (cpu: Double, wall: Double, allArrived: Bool) {
    var cpu: [Double] = []
    var wall: [Double] = []
    var allArrived = true
    for _ in 0..<options.runs {
        let arrivals = Arrivals(threads: setters)
        let observer: @Sendable (Int) -> Void = { value in
            arrivals.hear(value)
            if observerMicroseconds > 0 { usleep(observerMicroseconds) }
        }
        let cpuBefore = processCPUNanoseconds()
        let time: UInt64
        if fluxCapacitor {
            let variable = Variable(0)
            let dust = variable.observe(ignoreFirst: true) { observer($0) }
            time = timeThreads(setters) { thread in
                for sequence in 0..<sets { variable.value = thread << 32 | sequence }
            }
            dust.clean()
        } else {
            let target = LockedValue(observer: observer)
            time = timeThreads(setters) { thread in
                for sequence in 0..<sets { target.set(thread << 32 | sequence) }
            }
        }
        let total = Double(setters * sets)
        cpu.append(Double(processCPUNanoseconds() - cpuBefore) / total)
        wall.append(Double(time) / total)
        allArrived = allArrived && arrivals.allArrived(setters * sets)
    }
    return (median(cpu), median(wall), allArrived)
}

/// The crowded rows: how much CPU a set costs when many more threads than cores set one
/// value (a trivial observer), and when setters queue behind a slow observer (1 ms per
/// value). A waiting setter spins a few looks, then parks (Internal/README.md, "Waiting
/// its turn"). Each row's budget is FluxCapacitor's CPU per set at most that many times
/// the mutex's. Behind a slow observer a mutex wakes one waiter per turn; the end of a
/// round wakes every setter parked on the value's parking slot (slots are shared by
/// address, so waking one could wake the wrong one), and each looks and parks again:
/// the budget allows for that, and Benchmarks/README.md says what it costs.
let crowdedRows: [(id: String, title: String, setters: Int, sets: Int, observerMicroseconds: UInt32, budget: Double)] =
    [
        ("crowdedSet", "Variable set, \(32 * cores) threads on \(cores) cores, 1 observer", 32 * cores, 20_000, 0, 1.0),
        ("slowObserver", "Variable set, 8 threads behind a 1 ms observer", 8, 40, 1_000, 5.0),
    ]

let crowded = crowdedRows.filter { row in
    options.filters.isEmpty || options.filters.contains(where: { row.id.contains($0) })
}
if !crowded.isEmpty {
    print("")
    let header = [
        "crowded", "FluxCapacitor CPU (ns/set)", "mutex CPU (ns/set)", "ratio", "FluxCapacitor wall (ns/set)",
        "mutex wall (ns/set)", "every value arrived", "budget",
    ]
    if options.markdown {
        print("| " + header.joined(separator: " | ") + " |")
        print("|" + String(repeating: " --- |", count: header.count))
    } else {
        print(header.joined(separator: "\t"))
    }
    for row in crowded {
        let flux = crowdedSetting(
            setters: row.setters, sets: row.sets, observerMicroseconds: row.observerMicroseconds,
            fluxCapacitor: true)
        let base = crowdedSetting(
            setters: row.setters, sets: row.sets, observerMicroseconds: row.observerMicroseconds,
            fluxCapacitor: false)
        let ratio = flux.cpu / base.cpu
        let holds = ratio <= row.budget
        failed = failed || !holds || !flux.allArrived || !base.allArrived
        let cells = [
            row.title, format(flux.cpu), format(base.cpu), String(format: "%.2f×", ratio), format(flux.wall),
            format(base.wall),
            flux.allArrived && base.allArrived ? "yes" : "NO",
            "CPU ≤ \(format(row.budget))× mutex: \(holds ? "holds" : "DOES NOT HOLD")",
        ]
        print(options.markdown ? "| " + cells.joined(separator: " | ") + " |" : cells.joined(separator: "\t"))
    }
}

if options.check && failed {
    FileHandle.standardError.write(Data("error: a budget does not hold, or a value did not arrive (see above)\n".utf8))
    exit(1)
}
