// `Benchmarks/instructions`: instructions per operation of each workload, for FluxCapacitor
// and the hand-written baseline, counted by valgrind's callgrind, with the budgets.
//
//     Benchmarks/instructions [--filter NAME]... [--markdown] [--check] [--record]
//
// Each workload runs in a process of its own under `valgrind --tool=callgrind`, counting
// inside `Runner.run(iterations:)` only, twice, at two loop lengths; the difference of the
// two counts, divided by the difference in operations, is what one operation costs (the
// first operation's one-time costs cancel). The
// counts repeat to the instruction from run to run on one machine and toolchain, unlike
// wall-clock times (all but the whole-process row's: when callgrind switches to the
// recorder's writer thread moves it by up to 2%). The memory workloads run natively (`MemoryCounts`): heap bytes and
// mallocs per object. `--filter` keeps the workloads whose id contains NAME (any of them);
// `--check` exits 1 if a budget of a measured workload does not hold, or if a measured row's
// figures are more than 1% away (3% for the whole-process row) from those
// `Benchmarks/figures.json` records (the figures the docs quote: Figures.swift); `--record`
// writes the measured rows' figures into that file.
//
// Internally, `InstructionCounts run <workload id> <contender> <iterations>` is the program
// that valgrind runs.

import Foundation
import Workloads

// MARK: The measured program

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "run" {
    guard arguments.count == 4,
        let workload = Catalog.workloads.first(where: { $0.id == arguments[1] }),
        let contender = Contender(rawValue: arguments[2]),
        let iterations = Int(arguments[3])
    else {
        FileHandle.standardError.write(Data("usage: InstructionCounts run <workload> <contender> <iterations>\n".utf8))
        exit(2)
    }
    let runner = workload.makeRunner(contender)
    runner.run(iterations: iterations)
    // Outside `run(iterations:)`: counted only by the whole-process workloads.
    runner.settle()
    // Printed so the work cannot be optimized away; the same in both runs.
    print(runner.checksum == Int.min ? "!" : "")
    exit(0)
}

// MARK: What is measured, and the budgets

/// The two loop lengths (`run(iterations:)`) of a workload, by id. Workloads not listed
/// (the two-thread one) are not counted: their counts depend on the scheduler.
let loopLengths: [String: (short: Int, long: Int)] = [
    "dispatch": (10_000, 60_000),
    "dispatchLogged": (10_000, 60_000),
    "dispatchRecorderOn": (10_000, 60_000),
    "dispatchRecorderOnWholeProcess": (10_000, 60_000),
    "set": (10_000, 60_000),
    "dispatchOfReadValue": (10_000, 60_000),
    "setOfReadValue": (10_000, 60_000),
    "notify3000": (5, 25),
    "send": (10_000, 60_000),
    "send3000": (5, 25),
    "observeClean3000": (2, 7),
    "observeClean30000": (1, 3),
    "instantiate": (10_000, 60_000),
    "map": (10_000, 60_000),
    "combiningOneSource": (10_000, 60_000),
    "combiningTwoSourcesDispatch": (10_000, 60_000),
    "handOverSet": (10_000, 60_000),
    "bigArrayWrite1000": (10_000, 60_000),
    "bigArrayWrite100000": (10_000, 60_000),
    "bigDictionaryWrite1000": (10_000, 60_000),
    "bigDictionaryWrite100000": (10_000, 60_000),
    "bigArrayWritePersisted100000": (10_000, 60_000),
    "rowChange1000": (10_000, 60_000),
    "rowChange10000": (10_000, 60_000),
    "rowChangeInPlace10000": (10_000, 60_000),
    "combiningFanOut2000": (2, 7),
    "combiningFanOut20000": (1, 3),
]

enum Budget {
    /// FluxCapacitor at most `factor` × the baseline of the same run.
    case timesBaseline(Double)
    /// FluxCapacitor at most this many instructions per operation; the reason, for the
    /// report (by default: no worse than before issue 23).
    case atMost(Double, because: String = "before issue 23")
    /// FluxCapacitor at most `factor` × FluxCapacitor's figure of another workload.
    case timesWorkload(String, Double)
    /// FluxCapacitor at most FluxCapacitor's figure of another workload plus this many.
    case plusWorkload(String, Double)
}

/// The budgets, from issue 23; `.atMost` figures are the counts before that issue's work
/// (main at 988e605), so that those paths get no worse.
let budgets: [String: [Budget]] = [
    "dispatch": [.timesBaseline(2.3)],
    // Issue 41: a recorder to leave on. On the dispatching thread at most twice a plain
    // dispatch (the rest, encoding and writing, is on its own queue); in the whole process
    // no more than the hand-written floor of encoding the state with `JSONEncoder` and
    // appending its line under a lock. And the dispatch log's path no dearer than before.
    "dispatchRecorderOn": [.timesWorkload("dispatch", 2)],
    "dispatchRecorderOnWholeProcess": [.timesBaseline(1)],
    "dispatchLogged": [.atMost(2_352, because: "before issue 41")],
    "set": [.atMost(162)],
    "notify3000": [.atMost(240_078)],
    "send": [.timesWorkload("set", 1)],
    "observeClean30000": [.timesBaseline(1.5), .timesWorkload("observeClean3000", 1.2)],
    "instantiate": [.atMost(224)],
    "combiningOneSource": [.timesWorkload("map", 1.5)],
    // Issue 34: a dispatch that changes two sources of a combined value, with no allocation.
    "combiningTwoSourcesDispatch": [.atMost(1_200, because: "issue 34")],
    // Issue 39: a change costs the change, whatever the size of the state.
    "bigArrayWrite100000": [.timesWorkload("bigArrayWrite1000", 1.2)],
    "bigDictionaryWrite100000": [.timesWorkload("bigDictionaryWrite1000", 1.2)],
    // Issue 39: setting one row among many, each observed, at most 2× a dispatch that sets
    // one observed Variable, whatever the number of rows. (Changed in place through the
    // optional, `rows[id]?.count = n`, the subscript's accessor is a call of its own, since
    // Swift inlines no accessor whose value an optional chain reads: the row below it.)
    "rowChange1000": [.timesWorkload("dispatch", 2)],
    "rowChange10000": [.timesWorkload("dispatch", 2), .timesWorkload("rowChange1000", 1.2)],
    // Issue 40: recomputations linear in the number of combined values a dispatch changes.
    "combiningFanOut20000": [.timesWorkload("combiningFanOut2000", 1.2)],
]

// MARK: Options

var filters: [String] = []
var markdown = false
var check = false
var record = false
var index = 0
while index < arguments.count {
    switch arguments[index] {
    case "--filter" where index + 1 < arguments.count:
        filters.append(arguments[index + 1].lowercased())
        index += 1
    case "--markdown": markdown = true
    case "--check": check = true
    case "--record": record = true
    default:
        print("usage: Benchmarks/instructions [--filter NAME]... [--markdown] [--check] [--record]")
        exit(2)
    }
    index += 1
}

@MainActor func selected(_ id: String) -> Bool {
    filters.isEmpty || filters.contains { id.lowercased().contains($0) }
}

// MARK: Running

let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

func execute(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> (String, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    do {
        try process.run()
    } catch {
        FileHandle.standardError.write(Data("error: cannot run \(executable): \(error)\n".utf8))
        exit(1)
    }
    // Read stderr to its end first: callgrind writes little to stdout, so neither pipe fills.
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let outputText = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        FileHandle.standardError.write(
            Data("error: \(executable) \(arguments.joined(separator: " ")) failed:\n\(errorText)\n".utf8))
        exit(1)
    }
    return (outputText, errorText)
}

let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}
guard let valgrind else {
    FileHandle.standardError.write(Data("error: valgrind is not installed (apt-get install valgrind)\n".utf8))
    exit(1)
}

/// The instructions callgrind counted in one run of `workload` by `contender`.
func instructions(_ workload: Workload, _ contender: Contender, _ iterations: Int) -> Int {
    let program = directory.appendingPathComponent("InstructionCounts").path
    // Count only inside `Runner.run(iterations:)` (its protocol witness, through which the
    // program calls it), on the thread that calls it: process start-up varies by a few
    // dozen instructions from run to run (the loader, Foundation), the workload does not.
    // A whole-process workload counts every thread from start to end (start-up cancels in
    // the difference of the two loop lengths).
    let toggle = workload.countsWholeProcess ? [] : ["--toggle-collect=*6RunnerA2aDP3run10iterationsySi_tFTW"]
    let (_, log) = execute(
        valgrind,
        ["--tool=callgrind", "--callgrind-out-file=/dev/null"] + toggle + [
            program, "run", workload.id,
            contender.rawValue, String(iterations),
        ],
        // Swift seeds its hashing per process; a fixed seed makes Dictionary's probes repeat.
        environment: ["SWIFT_DETERMINISTIC_HASHING": "1"])
    // "==1234== Collected : 123456789"
    guard let line = log.split(separator: "\n").first(where: { $0.contains("Collected :") }),
        let count = line.split(separator: " ").last.flatMap({ Int($0) }), count > 0
    else {
        FileHandle.standardError.write(Data("error: no instruction count in callgrind's output:\n\(log)\n".utf8))
        exit(1)
    }
    return count
}

/// Instructions per operation: the difference of the two loop lengths.
func perOperation(_ workload: Workload, _ contender: Contender) -> Double {
    let lengths = loopLengths[workload.id]!
    let short = instructions(workload, contender, lengths.short)
    let long = instructions(workload, contender, lengths.long)
    return Double(long - short) / Double((lengths.long - lengths.short) * workload.operationsPerIteration)
}

// MARK: Measuring

var perOp: [String: (flux: Double, baseline: Double)] = [:]
let measured = Catalog.workloads.filter { loopLengths[$0.id] != nil && selected($0.id) }
for workload in measured {
    FileHandle.standardError.write(Data("measuring \(workload.id)…\n".utf8))
    perOp[workload.id] = (perOperation(workload, .fluxCapacitor), perOperation(workload, .baseline))
}

var memory: [String: (flux: (bytes: Double, mallocs: Double), baseline: (bytes: Double, mallocs: Double))] = [:]
let memoryMeasured = MemoryCatalog.workloads.filter { selected($0.id) }
func heap(_ workload: MemoryWorkload, _ contender: Contender) -> (bytes: Double, mallocs: Double) {
    let (output, _) = execute(
        directory.appendingPathComponent("MemoryCounts").path, [workload.id, contender.rawValue],
        // glibc's per-thread cache keeps freed chunks counted as in use (mallinfo2 does not
        // see it), so a chunk freed in `prepare` and reused would count as no bytes.
        environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"])
    let numbers = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    guard numbers.count == 2 else {
        FileHandle.standardError.write(Data("error: MemoryCounts printed '\(output)'\n".utf8))
        exit(1)
    }
    return (numbers[0], numbers[1])
}
for workload in memoryMeasured {
    FileHandle.standardError.write(Data("measuring \(workload.id)…\n".utf8))
    memory[workload.id] = (heap(workload, .fluxCapacitor), heap(workload, .baseline))
}

// MARK: Report

func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    var digits = String(abs(tenths / 10))
    var grouped = ""
    while digits.count > 3 {
        grouped = "," + digits.suffix(3) + grouped
        digits.removeLast(3)
    }
    grouped = (tenths < 0 ? "-" : "") + digits + grouped
    return tenths % 10 == 0 ? grouped : grouped + ".\(abs(tenths % 10))"
}

var failures = 0
@MainActor func verdict(_ holds: Bool?) -> String {
    guard let holds else { return "not measured" }
    if !holds { failures += 1 }
    return holds ? "holds" : "FAILS"
}

var rows: [[String]] = []
/// This run's rows, as `Benchmarks/figures.json` holds them.
var figures = Figures.empty
for workload in measured {
    let (flux, baseline) = perOp[workload.id]!
    let checks = (budgets[workload.id] ?? []).map { budget -> String in
        switch budget {
        case .timesBaseline(let factor):
            return "≤ \(factor)× baseline: \(verdict(flux <= factor * baseline))"
        case .atMost(let limit, let reason):
            // Compared as printed (to a tenth): the figures are exact, the tenths are amortized setup.
            return "≤ \(format(limit)) (\(reason)): \(verdict((flux * 10).rounded() <= limit * 10))"
        case .timesWorkload(let other, let factor):
            let title = Catalog.workloads.first { $0.id == other }?.title ?? other
            let bound = perOp[other].map { factor * $0.flux }
            return "≤ \(factor == 1 ? "" : "\(factor)× ")\(title)"
                + (bound.map { " (\(format($0)))" } ?? "") + ": \(verdict(bound.map { flux <= $0 }))"
        case .plusWorkload(let other, let extra):
            let title = Catalog.workloads.first { $0.id == other }?.title ?? other
            let bound = perOp[other].map { $0.flux + extra }
            return "≤ \(title) + \(format(extra))" + (bound.map { " (\(format($0)))" } ?? "")
                + ": \(verdict(bound.map { flux <= $0 }))"
        }
    }
    rows.append([
        "\(workload.title) (per \(workload.operation))", format(flux), format(baseline),
        String(format: "%.2f×", flux / baseline), checks.isEmpty ? "–" : checks.joined(separator: "; "),
    ])
    figures.instructions[workload.id] = Figures.InstructionRow(
        title: rows.last![0], fluxCapacitor: Figures.tenths(flux), baseline: Figures.tenths(baseline),
        budget: rows.last![4])
}
for workload in memoryMeasured {
    let (flux, baseline) = memory[workload.id]!
    let budget =
        ((workload.bytesBudget.map { ["≤ \($0) B: \(verdict(flux.bytes <= Double($0)))"] } ?? [])
        + (workload.mallocsBudget.map { ["≤ \(format($0)) mallocs: \(verdict(flux.mallocs <= $0))"] } ?? []))
        .joined(separator: "; ")
    rows.append([
        "\(workload.title) (bytes · mallocs per \(workload.unit))",
        "\(format(flux.bytes)) B · \(format(flux.mallocs))",
        "\(format(baseline.bytes)) B · \(format(baseline.mallocs))",
        baseline.bytes > 0 ? String(format: "%.2f×", flux.bytes / baseline.bytes) : "–",
        budget.isEmpty ? "–" : budget,
    ])
    figures.memory[workload.id] = Figures.MemoryRow(
        title: rows.last![0],
        fluxCapacitor: Figures.Heap(bytes: Figures.tenths(flux.bytes), mallocs: Figures.tenths(flux.mallocs)),
        baseline: Figures.Heap(bytes: Figures.tenths(baseline.bytes), mallocs: Figures.tenths(baseline.mallocs)),
        budget: rows.last![4])
}

let toolchain = execute("/usr/bin/env", ["swift", "--version"]).0.split(separator: "\n").first.map(String.init) ?? "?"
let machine =
    "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(toolchain), "
    + execute(valgrind, ["--version"]).0.trimmingCharacters(in: .whitespacesAndNewlines)
let header = ["workload", "FluxCapacitor", "baseline", "Flux / baseline", "budget"]

if markdown {
    print("Toolchain: \(machine). Instructions per operation (callgrind), release build.\n")
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { _ in " --- " }.joined(separator: "|") + "|")
    for row in rows {
        print("| " + row.joined(separator: " | ") + " |")
    }
} else {
    print("Toolchain: \(machine)")
    print("Instructions per operation (callgrind, release build; the difference of two loop lengths).\n")
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
        zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
    }
    print(line(header))
    print(line(widths.map { String(repeating: "-", count: $0) }))
    rows.forEach { print(line($0)) }
}

// MARK: The recorded figures

/// Set by `Benchmarks/instructions` for a build whose figures are not the library's own
/// (`--pthread-self`, `FLUXCAPACITOR_INTERNAL_CHECKS=1`): nothing to compare them with.
let variant = ProcessInfo.processInfo.environment["FLUXCAPACITOR_BENCHMARK_VARIANT"] ?? ""
figures.measuredWith = machine
var drifts: [String] = []

/// How far the figures of a row may be from their record (a fraction of it), or `nil` if
/// they are not compared.
func tolerance(of id: String) -> Double? {
    // The concurrency runtime's allocator moves these from run to run: the budget holds them.
    if MemoryCatalog.workloads.contains(where: { $0.id == id && $0.figuresVary }) { return nil }
    // A whole-process row counts the recorder's writer too, whose batches depend on when
    // callgrind switches threads: 18,814.5 to 19,177.8 in eight runs (1.9%).
    if Catalog.workloads.contains(where: { $0.id == id && $0.countsWholeProcess }) { return 0.03 }
    return Figures.tolerance
}

func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

if !variant.isEmpty {
    note("\nNot compared with Benchmarks/figures.json: a build with \(variant).")
    if record {
        note("error: --record records the library's own build only (no --pthread-self, no internal checks)")
        exit(2)
    }
} else {
    let recorded: Figures
    do {
        recorded = try Figures.load()
    } catch {
        note("error: cannot read \(Figures.url.path): \(error)")
        exit(1)
    }
    let knownIDs = Set(Catalog.workloads.map(\.id)).union(MemoryCatalog.workloads.map(\.id))
    let again =
        "Benchmarks/instructions" + filters.map { " --filter \($0)" }.joined() + " --record"
    if record {
        do {
            try figures.write(
                over: recorded, order: Catalog.workloads.map(\.id) + MemoryCatalog.workloads.map(\.id))
        } catch {
            note("error: cannot write \(Figures.url.path): \(error)")
            exit(1)
        }
        note("\nRecorded the \(measured.count + memoryMeasured.count) measured rows in Benchmarks/figures.json.")
    } else {
        drifts = figures.drifts(from: recorded, knownIDs: knownIDs, tolerance: tolerance(of:))
        if drifts.isEmpty {
            note(
                "\nThe \(measured.count + memoryMeasured.count) measured rows are as Benchmarks/figures.json "
                    + "records them (within 1%; 3% for the whole-process row).")
        } else {
            note("\nNot as Benchmarks/figures.json records (over 1% away, 3% for the whole-process row):")
            drifts.forEach { note("  " + $0) }
            note(
                """
                Recorded with: \(recorded.measuredWith)
                This run:      \(machine)
                After a deliberate change, record this run's figures (then make the docs that quote \
                them say the same: swift test --filter Figures names each one):
                  \(again)
                """)
        }
    }
}

if check && (failures > 0 || !drifts.isEmpty) {
    if failures > 0 {
        FileHandle.standardError.write(Data("error: \(failures) budget(s) do not hold\n".utf8))
    }
    if !drifts.isEmpty {
        FileHandle.standardError.write(
            Data("error: \(drifts.count) figure(s) are not as Benchmarks/figures.json records\n".utf8))
    }
    exit(1)
}
