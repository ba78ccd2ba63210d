// `Benchmarks/figures.json`: the last recorded figure of every row of the report, the one
// place the docs quote figures from (Benchmarks/README.md, "The figures file").
//
// `Benchmarks/instructions --check` compares each row it measured with its record (1%; 3% for
// the whole-process row, main.swift's `tolerance(of:)`);
// `--record` writes the rows it measured into the file; Tests/DocumentationTests checks the
// figures the docs quote against it. Rows a filtered run did not measure are neither
// checked nor rewritten.

import Foundation

/// The figures of the report's rows, by workload id, as `Benchmarks/figures.json` holds them.
struct Figures: Codable, Equatable {
    /// What the file is, for a reader who opens it.
    var about = Figures.about
    /// The machine line of the run that recorded the figures (cores, toolchain, valgrind).
    var measuredWith: String
    /// The instruction rows: instructions per operation.
    var instructions: [String: InstructionRow]
    /// The memory rows: heap bytes and mallocs per object.
    var memory: [String: MemoryRow]

    /// One instruction row as the report prints it.
    struct InstructionRow: Codable, Equatable {
        /// The report's first column ("dispatch, 1 observer (per dispatch)").
        var title: String
        /// FluxCapacitor's instructions per operation, to a tenth.
        var fluxCapacitor: Double
        /// The hand-written baseline's instructions per operation, to a tenth.
        var baseline: Double
        /// The report's budget column ("≤ 2.3× baseline: holds"), or "–".
        var budget: String
    }

    /// Heap bytes and mallocs per object of one contender.
    struct Heap: Codable, Equatable {
        /// Bytes per object, to a tenth (glibc's chunks, headers included).
        var bytes: Double
        /// Mallocs per object, to a tenth.
        var mallocs: Double
    }

    /// One memory row as the report prints it.
    struct MemoryRow: Codable, Equatable {
        /// The report's first column ("memory per observer (bytes · mallocs per observer)").
        var title: String
        /// FluxCapacitor's bytes and mallocs per object.
        var fluxCapacitor: Heap
        /// The baseline's bytes and mallocs per object.
        var baseline: Heap
        /// The report's budget column ("≤ 88 B: holds").
        var budget: String
    }

    static let about =
        "The figures of Benchmarks/instructions, per row (workload id), as last recorded by "
        + "`Benchmarks/instructions --record`; `--check` fails if a measured row is more than 1% "
        + "away (3% for the whole-process row), and Tests/DocumentationTests checks the figures the "
        + "docs quote against this file. "
        + "Benchmarks/README.md, \"The figures file\", says more."

    /// How far a measured figure may be from its record, as a fraction of it: instruction
    /// counts repeat to well within it on one toolchain (main.swift's `tolerance(of:)` names
    /// the rows that are allowed more).
    static let tolerance = 0.01

    static let empty = Figures(measuredWith: "", instructions: [:], memory: [:])

    /// The file's place: `Benchmarks/figures.json`, beside this package's manifest.
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("figures.json")

    /// The recorded figures; empty if there is no file yet.
    static func load() throws -> Figures {
        guard FileManager.default.fileExists(atPath: url.path) else { return .empty }
        return try JSONDecoder().decode(Figures.self, from: Data(contentsOf: url))
    }

    /// Rounds as the report prints: to a tenth.
    static func tenths(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }

    // MARK: Checking

    /// What differs between this run (`self`, the rows it measured) and `recorded`: one line
    /// per figure further from its record than its row's `tolerance` (a fraction of the
    /// record; `nil`: the row's figures are not compared), per title or budget that reads
    /// differently (numbers in parentheses aside: they are other rows' figures), per row
    /// with no record, and per recorded row that is no workload any more (`knownIDs`).
    func drifts(from recorded: Figures, knownIDs: Set<String>, tolerance: (String) -> Double?) -> [String] {
        var lines: [String] = []
        for (id, row) in instructions.sorted(by: { $0.key < $1.key }) {
            guard let old = recorded.instructions[id] else {
                lines.append("\(id): no figure recorded")
                continue
            }
            if let tolerance = tolerance(id) {
                let compare = { (contender: String, measured: Double, recorded: Double) in
                    Self.compare(id, contender, measured, recorded, unit: "instructions", tolerance: tolerance)
                }
                lines += compare("FluxCapacitor", row.fluxCapacitor, old.fluxCapacitor)
                lines += compare("baseline", row.baseline, old.baseline)
            }
            lines += Self.compareText(id, row.title, old.title, row.budget, old.budget)
        }
        for (id, row) in memory.sorted(by: { $0.key < $1.key }) {
            guard let old = recorded.memory[id] else {
                lines.append("\(id): no figure recorded")
                continue
            }
            if let tolerance = tolerance(id) {
                let compare = { (contender: String, measured: Heap, recorded: Heap) in
                    Self.compare(id, contender, measured.bytes, recorded.bytes, unit: "B", tolerance: tolerance)
                        + Self.compare(
                            id, contender, measured.mallocs, recorded.mallocs, unit: "mallocs", tolerance: tolerance)
                }
                lines += compare("FluxCapacitor", row.fluxCapacitor, old.fluxCapacitor)
                lines += compare("baseline", row.baseline, old.baseline)
            }
            lines += Self.compareText(id, row.title, old.title, row.budget, old.budget)
        }
        for id in Set(recorded.instructions.keys).union(recorded.memory.keys).subtracting(knownIDs).sorted() {
            lines.append("\(id): recorded, but no workload has this id any more")
        }
        return lines
    }

    static func compare(
        _ id: String, _ contender: String, _ measured: Double, _ recorded: Double, unit: String, tolerance: Double
    ) -> [String] {
        let measured = tenths(measured)
        let within =
            recorded == 0 ? measured == 0 : abs(measured - recorded) <= tolerance * abs(recorded)
        guard !within else { return [] }
        let change = recorded == 0 ? "" : String(format: " (%+.1f%%)", (measured - recorded) / recorded * 100)
        return [
            "\(id): \(contender) \(number(measured)) \(unit), recorded \(number(recorded))\(change)"
        ]
    }

    static func compareText(_ id: String, _ title: String, _ oldTitle: String, _ budget: String, _ oldBudget: String)
        -> [String]
    {
        var lines: [String] = []
        if title != oldTitle {
            lines.append("\(id): title \"\(title)\", recorded \"\(oldTitle)\"")
        }
        // "≤ 2.0× dispatch, 1 observer (588): holds": the bound in parentheses is twice the
        // other row's figure, which is checked in its own row.
        let derived = /\([0-9][0-9,.]*\)/
        if budget.replacing(derived, with: "(…)") != oldBudget.replacing(derived, with: "(…)") {
            lines.append("\(id): budget \"\(budget)\", recorded \"\(oldBudget)\"")
        }
        return lines
    }

    // MARK: Writing

    /// `recorded` with the rows of this run put in (the others kept), written to `url`:
    /// one row per line, in the report's order (`order`), so that a new record reads as a
    /// diff of the rows that moved.
    func write(over recorded: Figures, order: [String]) throws {
        var merged = recorded
        merged.about = Self.about
        merged.measuredWith = measuredWith
        merged.instructions.merge(instructions) { $1 }
        merged.memory.merge(memory) { $1 }
        func position(_ id: String) -> Int { order.firstIndex(of: id) ?? order.count }
        func sorted<Row>(_ rows: [String: Row]) -> [(key: String, value: Row)] {
            rows.sorted { (position($0.key), $0.key) < (position($1.key), $1.key) }
        }
        let instructionLines = sorted(merged.instructions).map { id, row in
            "    \(Self.string(id)): {\"title\": \(Self.string(row.title)), "
                + "\"fluxCapacitor\": \(Self.number(row.fluxCapacitor)), \"baseline\": \(Self.number(row.baseline)), "
                + "\"budget\": \(Self.string(row.budget))}"
        }
        let memoryLines = sorted(merged.memory).map { id, row in
            "    \(Self.string(id)): {\"title\": \(Self.string(row.title)), "
                + "\"fluxCapacitor\": \(Self.heap(row.fluxCapacitor)), \"baseline\": \(Self.heap(row.baseline)), "
                + "\"budget\": \(Self.string(row.budget))}"
        }
        let text = """
            {
              "about": \(Self.string(merged.about)),
              "measuredWith": \(Self.string(merged.measuredWith)),
              "instructions": {
            \(instructionLines.joined(separator: ",\n"))
              },
              "memory": {
            \(memoryLines.joined(separator: ",\n"))
              }
            }

            """
        // Read back before writing: what is written must be what `load()` reads.
        guard try JSONDecoder().decode(Figures.self, from: Data(text.utf8)) == merged else {
            throw CocoaError(.fileWriteInapplicableStringEncoding)
        }
        try Data(text.utf8).write(to: Self.url, options: .atomic)
    }

    /// A figure as JSON: to a tenth, with no trailing ".0".
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(format: "%.1f", Double(tenths) / 10)
    }

    static func heap(_ heap: Heap) -> String {
        "{\"bytes\": \(number(heap.bytes)), \"mallocs\": \(number(heap.mallocs))}"
    }

    /// A string as JSON, escaped by `JSONEncoder`.
    static func string(_ value: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: (try? encoder.encode(value)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
