// Reads the histograms that `swift package benchmark --format histogramEncoded` exported
// and prints, per workload, the median time and mallocs per operation of each contender,
// the ratios of FluxCapacitor to the baseline and to OpenCombine, and the targets.
//
// Usage: BenchmarkReport <directory> [--markdown]

import Foundation
import Histogram
import Workloads

struct Measurement {
    /// Median nanoseconds per operation.
    let nanoseconds: Double
    /// Median mallocs per operation.
    let mallocs: Double
}

let arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.first(where: { !$0.hasPrefix("--") }) else {
    print("usage: BenchmarkReport <directory with exported histograms> [--markdown]")
    exit(2)
}
let markdown = arguments.contains("--markdown")

func histogram(_ name: String, _ metric: String) -> Histogram<UInt64>? {
    let suffix = ".\(name.replacingOccurrences(of: "/", with: "_")).\(metric).histogram.json"
    guard
        let file = try? FileManager.default.contentsOfDirectory(atPath: directory)
            .first(where: { $0.hasSuffix(suffix) }),
        let data = FileManager.default.contents(atPath: "\(directory)/\(file)")
    else { return nil }
    return try? JSONDecoder().decode(Histogram<UInt64>.self, from: data)
}

func measurement(_ workload: Workload, _ contender: Contender) -> Measurement? {
    let name = workload.benchmarkName(contender)
    guard let time = histogram(name, "wallClock") else { return nil }
    let mallocs = histogram(name, "mallocCountTotal")
    let operations = Double(workload.operationsPerSample)
    return Measurement(
        nanoseconds: Double(time.valueAtPercentile(50)) / operations,
        mallocs: Double(mallocs?.valueAtPercentile(50) ?? 0) / operations)
}

func formatTime(_ nanoseconds: Double) -> String {
    switch nanoseconds {
    case ..<10: String(format: "%.2f ns", nanoseconds)
    case ..<1_000: String(format: "%.1f ns", nanoseconds)
    case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1_000)
    default: String(format: "%.2f ms", nanoseconds / 1_000_000)
    }
}

func formatCount(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
}

func ratio(_ numerator: Measurement?, _ denominator: Measurement?) -> String {
    guard let numerator, let denominator, denominator.nanoseconds > 0 else { return "–" }
    return String(format: "%.2f×", numerator.nanoseconds / denominator.nanoseconds)
}

// MARK: Machine

func shell(_ command: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try? process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

let cpu = shell(
    "grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- || sysctl -n machdep.cpu.brand_string")
let machine = [
    cpu.isEmpty ? nil : cpu,
    "\(ProcessInfo.processInfo.activeProcessorCount) cores",
    shell("uname -sr"),
    shell("swift --version 2>/dev/null | head -1"),
].compactMap { $0 }.joined(separator: ", ")

// MARK: Table

var rows: [[String]] = []
var verdicts: [String] = []
var results: [String: [Contender: Measurement]] = [:]

for workload in Catalog.workloads {
    var byContender: [Contender: Measurement] = [:]
    for contender in workload.contenders {
        byContender[contender] = measurement(workload, contender)
    }
    results[workload.id] = byContender
    let flux = byContender[.fluxCapacitor]
    let cell: (Contender) -> String = { contender in
        guard workload.contenders.contains(contender) else { return "–" }
        return byContender[contender].map { formatTime($0.nanoseconds) } ?? "not run"
    }
    let mallocs = workload.contenders
        .map { contender in byContender[contender].map { formatCount($0.mallocs) } ?? "?" }
        .joined(separator: " / ")
    rows.append([
        "\(workload.title) (per \(workload.operation))",
        cell(.fluxCapacitor), cell(.baseline), cell(.openCombine),
        ratio(flux, byContender[.baseline]),
        workload.contenders.contains(.openCombine) ? ratio(flux, byContender[.openCombine]) : "–",
        mallocs,
    ])
}

@MainActor func check(_ label: String, _ met: Bool?, _ detail: String) {
    let mark = met.map { $0 ? "met" : "NOT met" } ?? "not measured"
    verdicts.append("\(label): \(mark) (\(detail))")
}

if let dispatch = results["dispatch"], let flux = dispatch[.fluxCapacitor], let base = dispatch[.baseline] {
    let combine = dispatch[.openCombine]
    check(
        "dispatch ≤ 3.8× baseline, 0 mallocs, faster than OpenCombine",
        flux.nanoseconds <= 3.8 * base.nanoseconds && flux.mallocs == 0
            && (combine.map { flux.nanoseconds < $0.nanoseconds } ?? false),
        "\(ratio(flux, base)) baseline, \(formatCount(flux.mallocs)) mallocs, \(ratio(flux, combine)) OpenCombine")
}
if let set = results["set"], let flux = set[.fluxCapacitor], let base = set[.baseline] {
    check(
        "set of a value never read via .value ≤ 1.4× baseline, 0 mallocs",
        flux.nanoseconds <= 1.4 * base.nanoseconds && flux.mallocs == 0,
        "\(ratio(flux, base)) baseline, \(formatCount(flux.mallocs)) mallocs")
}
if let set = results["setOfReadValue"], let flux = set[.fluxCapacitor], let base = set[.baseline] {
    check(
        "set of a value read via .value (Observation registrar told) ≤ 6× baseline, 0 mallocs",
        flux.nanoseconds <= 6 * base.nanoseconds && flux.mallocs == 0,
        "\(ratio(flux, base)) baseline, \(formatCount(flux.mallocs)) mallocs")
}
if let notify = results["notify3000"], let flux = notify[.fluxCapacitor], let base = notify[.baseline] {
    check(
        "notify 3,000 ≤ 1.5× baseline, 0 mallocs",
        flux.nanoseconds <= 1.5 * base.nanoseconds && flux.mallocs == 0,
        "\(ratio(flux, base)) baseline, \(formatCount(flux.mallocs)) mallocs")
}
for (send, change, label) in [
    ("send", "set", "send, 1 observer ≤ 1.2× Variable set, 0 mallocs"),
    ("send3000", "notify3000", "send, 3,000 observers ≤ 1.2× notify 3,000, 0 mallocs"),
] {
    if let flux = results[send]?[.fluxCapacitor], let variable = results[change]?[.fluxCapacitor] {
        check(
            label, flux.nanoseconds <= 1.2 * variable.nanoseconds && flux.mallocs == 0,
            "\(ratio(flux, variable)) the Variable figure, \(formatCount(flux.mallocs)) mallocs")
    }
}
if let small = results["observeClean3000"]?[.fluxCapacitor], let large = results["observeClean30000"]?[.fluxCapacitor],
    let base = results["observeClean3000"]?[.baseline]
{
    let growth = large.nanoseconds * 30_000 / (small.nanoseconds * 3_000)
    check(
        "observe + clean linear (30,000 ≤ 12× 3,000) and ≤ 3× dictionary baseline",
        growth <= 12 && small.nanoseconds <= 3 * base.nanoseconds,
        String(format: "30,000 cost %.1f× 3,000; ", growth) + "\(ratio(small, base)) baseline per observer")
}
if let flux = results["instantiate"]?[.fluxCapacitor] {
    check(
        "instantiate() of a live store ≤ 60 ns, 0 mallocs",
        flux.nanoseconds <= 60 && flux.mallocs == 0,
        "\(formatTime(flux.nanoseconds)), \(formatCount(flux.mallocs)) mallocs")
}

let header = [
    "workload", "FluxCapacitor", "baseline", "OpenCombine", "Flux / baseline", "Flux / OpenCombine",
    "mallocs per op (F / B / O)",
]

if markdown {
    print("Machine: \(machine)\n")
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { _ in " --- " }.joined(separator: "|") + "|")
    for row in rows {
        print("| " + row.joined(separator: " | ") + " |")
    }
    print("")
    for verdict in verdicts {
        print("- \(verdict)")
    }
} else {
    let widths = header.indices.map { column in
        ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
        zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
    }
    print("Machine: \(machine)")
    print("Medians per operation (package-benchmark wall clock and malloc counters).\n")
    print(line(header))
    print(line(widths.map { String(repeating: "-", count: $0) }))
    for row in rows {
        print(line(row))
    }
    print("\nTargets:")
    for verdict in verdicts {
        print("  \(verdict)")
    }
}
