import DocumentationSamples
import Foundation
import Testing

extension DriftTests {
    /// The figures the docs quote are `Benchmarks/figures.json`'s (issue 43), which
    /// `Benchmarks/instructions --check` keeps within 1% of a run: the "Latest results" table
    /// of Benchmarks/README.md cell for cell, and every figure quoted in prose, listed in
    /// `quotes` with the row it comes from. A figure of instructions that no quote covers
    /// fails too, and `Sources/` quotes none: its comments name the row.
    @Suite("Figures")
    struct Figures {
        // MARK: The recorded figures

        /// `Benchmarks/figures.json`, as `Benchmarks/instructions --record` writes it.
        struct Recorded: Decodable {
            struct Row: Decodable {
                let title: String
                let fluxCapacitor: Double
                let baseline: Double
                let budget: String
            }
            struct Heap: Decodable {
                let bytes: Double
                let mallocs: Double
            }
            struct MemoryRow: Decodable {
                let title: String
                let fluxCapacitor: Heap
                let baseline: Heap
                let budget: String
            }
            let measuredWith: String
            let instructions: [String: Row]
            let memory: [String: MemoryRow]
        }

        static func recorded() throws -> Recorded {
            try JSONDecoder().decode(Recorded.self, from: Data(CodeSamples.text(of: "Benchmarks/figures.json").utf8))
        }

        /// A figure as the report prints it: to a tenth (none if whole), in groups of three.
        static func format(_ value: Double) -> String {
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

        // MARK: The table of Benchmarks/README.md

        /// The rows (cells) of the first table after the line `heading` in `text`.
        static func table(in text: String, under heading: String) -> [[String]] {
            let lines = text.components(separatedBy: "\n")
            guard let start = lines.firstIndex(of: heading) else { return [] }
            let table = lines[(start + 1)...].drop { !$0.hasPrefix("| ") }.prefix { $0.hasPrefix("| ") }
            // The header and the separator line.
            return table.dropFirst(2).map { line in
                line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
            }
        }

        /// The cells `Benchmarks/instructions --markdown` prints for each recorded row, by
        /// title; the ratio as a number, since the report divides the unrounded figures.
        static func expectedRows(_ recorded: Recorded) -> [String: (cells: [String], ratio: Double?)] {
            var rows: [String: (cells: [String], ratio: Double?)] = [:]
            for row in recorded.instructions.values {
                rows[row.title] = (
                    [row.title, format(row.fluxCapacitor), format(row.baseline), "", row.budget],
                    row.fluxCapacitor / row.baseline
                )
            }
            for row in recorded.memory.values {
                let heap = { (heap: Recorded.Heap) in "\(format(heap.bytes)) B · \(format(heap.mallocs))" }
                rows[row.title] = (
                    [row.title, heap(row.fluxCapacitor), heap(row.baseline), "–", row.budget],
                    row.baseline.bytes > 0 ? row.fluxCapacitor.bytes / row.baseline.bytes : nil
                )
            }
            return rows
        }

        @Test func theLatestResultsAreTheRecordedFigures() throws {
            let recorded = try Self.recorded()
            let text = try CodeSamples.text(of: "Benchmarks/README.md")
            let table = Self.table(in: text, under: "### Latest results")
            let expected = Self.expectedRows(recorded)
            let update = "Benchmarks/README.md, \"The figures file\", says how to update the table"
            #expect(text.contains("Toolchain: \(recorded.measuredWith)."), "the table's toolchain line: \(update)")
            #expect(table.count == expected.count, "one row per row of Benchmarks/figures.json: \(update)")
            for cells in table {
                guard let (want, ratio) = expected[cells[0]], cells.count == want.count else {
                    Issue.record(
                        "Benchmarks/README.md, Latest results: no row \"\(cells[0])\" in figures.json; \(update)")
                    continue
                }
                for column in [1, 2, 4] where cells[column] != want[column] {
                    Issue.record(
                        """
                        Benchmarks/README.md, Latest results, "\(cells[0])": "\(cells[column])" where \
                        Benchmarks/figures.json has "\(want[column])"; \(update).
                        """)
                }
                // Two decimals of a ratio of figures rounded to a tenth: within a hundredth.
                let quoted = Double(cells[3].replacing("×", with: ""))
                let holds = ratio.map { ratio in quoted.map { abs($0 - ratio) <= 0.01 } ?? false } ?? (cells[3] == "–")
                #expect(holds, "Benchmarks/README.md, Latest results, \"\(cells[0])\": the ratio \(cells[3])")
            }
        }

        // MARK: Figures quoted in prose

        /// A figure a doc quotes in prose: the text around it as the doc says it, with each
        /// figure written as the row it comes from (Benchmarks/figures.json's key):
        /// - `{dispatch}`: FluxCapacitor's instructions, as the report prints them;
        ///   `{dispatch:whole}` to the whole instruction; `{dispatch.baseline}` the baseline's.
        /// - `{storeMemory.bytes}`, `{storeMemory.mallocs}`, `{storeMemory.baseline.bytes}`.
        /// - `{setOfReadValue/set:about}`: how many times the one the other is, in words, to
        ///   the nearest half ("four", "two and a half").
        ///
        /// Other numbers are quoted as the doc says them: figures of the code as it was
        /// before a change, which no run of today's code can check.
        struct Quote: Sendable, CustomStringConvertible {
            let file: String
            let text: String

            init(_ file: String, _ text: String) {
                self.file = file
                self.text = text
            }

            var description: String { "\(file): \(text)" }
        }

        static let changelog = "CHANGELOG.md"
        static let benchmarks = "Benchmarks/README.md"
        static let docc = "Sources/FluxCapacitor/FluxCapacitor.docc/"

        static let quotes: [Quote] = [
            Quote("README.md", "in about {setOfReadValue/set:about} times the instructions of a set"),
            Quote(
                docc + "SwiftUIAndObservation.md",
                """
                a set of a value read through `.value` costs about {setOfReadValue/set:about} times a \
                set of one never read, and a dispatch that changes it about \
                {dispatchOfReadValue/dispatch:about} times.
                """),
            Quote(
                docc + "BigState.md",
                """
                Setting one row among 10,000 observed ones costs about {rowChange10000/dispatch:about} \
                dispatches of a `Variable`
                """),
            Quote(
                docc + "BigState.md",
                """
                A `VariableDictionary` keeps a value per element ({dictionaryElementMemory.bytes:whole} \
                bytes each; an `@Observable` object per row takes {dictionaryElementMemory.baseline.bytes:whole})
                """),
            Quote(
                docc + "RecordingAndReplaying.md",
                """
                recorded dispatch costs {dispatchRecorderOn:whole} instructions on the dispatching \
                thread against {dispatch:whole} for a plain one, and allocates nothing there; across the \
                whole process, encoding and writing included, {dispatchRecorderOnWholeProcess:whole} \
                instructions, less than the hand-written floor of encoding the state with `JSONEncoder` \
                and appending its line under a lock ({dispatchRecorderOnWholeProcess.baseline:whole})
                """),
            Quote(
                changelog,
                """
                Setting one row among 1,000 or 10,000 observed ones costs {rowChange1000} or \
                {rowChange10000} instructions per dispatch
                """),
            Quote(
                changelog,
                """
                a recorded dispatch costs {dispatchRecorderOn:whole} instructions on the dispatching \
                thread (a plain one {dispatch:whole}) and allocates nothing there; \
                {dispatchRecorderOnWholeProcess:whole} across the process, less than encoding the state \
                with `JSONEncoder` and appending its line under a lock \
                ({dispatchRecorderOnWholeProcess.baseline:whole})
                """),
            Quote(
                changelog,
                """
                compares it with `map` ({combiningOneSource} against {map} instructions per change), and \
                a dispatch that changes two of its sources costs {combiningTwoSourcesDispatch} \
                instructions and no malloc.
                """),
            Quote(
                changelog,
                """
                in instructions per dispatch, an array 1,948.5 at 1,000 elements and 801,057 at 100,000, \
                a dictionary 18,667.5 and 1,768,064; now {bigArrayWrite1000} and {bigArrayWrite100000}, \
                {bigDictionaryWrite1000} and {bigDictionaryWrite100000}
                """),
            Quote(
                changelog,
                """
                14.9× an `@Observable` class; 806,612 instructions per dispatch): it reads the value when \
                it writes, and a change only notes itself to its slot ({bigArrayWritePersisted100000} \
                instructions per dispatch, against {bigArrayWrite100000} unpersisted
                """),
            Quote(changelog, "costs {dispatchLogged} instructions instead of 2,352"),
            Quote(
                changelog,
                """
                a set 162 → {set}, notifying 3,000 observers 240,078 → {notify3000}, a send 163 → \
                {send}, observe + clean (30,000) 1,519.3 → {observeClean30000}, a set through `map` \
                1,291 → {map}; 104.2 → {observerMemory.bytes} bytes per observer and 464 → \
                {storeMemory.bytes} bytes (7 → {storeMemory.mallocs} allocations) per live store
                """),
            Quote(
                benchmarks,
                "- **Memory per observer** ({observerMemory.bytes} B, floor {observerMemory.baseline.bytes}): one"),
            Quote(
                benchmarks,
                """
                - **Memory per live store** ({storeMemory.bytes} B in {storeMemory.mallocs} mallocs; floor \
                {storeMemory.baseline.bytes} B in {storeMemory.baseline.mallocs}): the requested sizes
                """),
        ]

        enum ExpansionError: Error, CustomStringConvertible {
            case unknown(String)
            var description: String {
                switch self {
                case .unknown(let placeholder): "no such row or figure in Benchmarks/figures.json: {\(placeholder)}"
                }
            }
        }

        /// The figure a placeholder names (see `Quote`), as the doc must say it.
        static func figure(_ placeholder: String, in recorded: Recorded) throws -> String {
            if let ratio = placeholder.wholeMatch(of: /(\w+)\/(\w+):about/) {
                guard let one = recorded.instructions[String(ratio.1)],
                    let other = recorded.instructions[String(ratio.2)]
                else { throw ExpansionError.unknown(placeholder) }
                return inWords((one.fluxCapacitor / other.fluxCapacitor * 2).rounded() / 2)
            }
            guard let parts = placeholder.wholeMatch(of: /(\w+)((?:\.\w+)*)(:whole)?/) else {
                throw ExpansionError.unknown(placeholder)
            }
            let (id, path, whole) = (String(parts.1), String(parts.2), parts.3 != nil)
            let value: Double?
            if let row = recorded.instructions[id] {
                value = ["": row.fluxCapacitor, ".baseline": row.baseline][path]
            } else if let row = recorded.memory[id] {
                let heap = path.hasPrefix(".baseline") ? row.baseline : row.fluxCapacitor
                value = [".bytes": heap.bytes, ".mallocs": heap.mallocs][path.replacing(".baseline", with: "")]
            } else {
                value = nil
            }
            guard let value else { throw ExpansionError.unknown(placeholder) }
            return format(whole ? value.rounded() : value)
        }

        /// A number of halves in words: 2.5 is "two and a half".
        static func inWords(_ value: Double) -> String {
            let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
            let whole = Int(value)
            guard whole < words.count else { return format(value) }
            return words[whole] + (value > Double(whole) ? " and a half" : "")
        }

        /// `quote`'s text with its figures put in, and its runs of white space made one space.
        static func expanded(_ quote: Quote, _ recorded: Recorded) throws -> String {
            var text = ""
            var rest = Substring(quote.text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                text += rest[..<open]
                text += try figure(String(rest[rest.index(after: open)..<close]), in: recorded)
                rest = rest[rest.index(after: close)...]
            }
            return flat(text + rest)
        }

        static func flat(_ text: String) -> String {
            text.replacing(/\s+/, with: " ")
        }

        @Test func everyFigureQuotedInProseIsTheRecordedOne() throws {
            let recorded = try Self.recorded()
            for quote in Self.quotes {
                let text = Self.flat(try CodeSamples.text(of: quote.file))
                let expected = try Self.expanded(quote, recorded)
                let saysIt = text.contains(expected)
                #expect(
                    saysIt,
                    """
                    \(quote.file) should say "\(expected)", with the figures of Benchmarks/figures.json: \
                    make it say so, or if the sentence changed, change its quote in \
                    DriftTests+Figures.swift (Benchmarks/README.md, "The figures file").
                    """)
            }
        }

        @Test func aQuoteReadsItsFiguresFromTheRightPlaces() throws {
            let recorded = try Self.recorded()
            let dispatch = try #require(recorded.instructions["dispatch"])
            #expect(try Self.figure("dispatch", in: recorded) == Self.format(dispatch.fluxCapacitor))
            #expect(try Self.figure("dispatch.baseline", in: recorded) == Self.format(dispatch.baseline))
            #expect(Self.format(19_154.5) == "19,154.5" && Self.format(1_000) == "1,000")
            #expect(Self.inWords(2.5) == "two and a half" && Self.inWords(4) == "four")
            #expect(throws: ExpansionError.self) { try Self.figure("noSuchRow", in: recorded) }
            #expect(throws: ExpansionError.self) { try Self.figure("storeMemory.joules", in: recorded) }
        }

        // MARK: No other figure

        /// The figures of instructions `text` quotes ("1,148 instructions"), budgets aside: a
        /// budget ("≤ 1,200 instructions") is main.swift's promise, not a measurement, and the
        /// table's budget column (checked above) shows it.
        static func figuresOfInstructions(in text: String) -> [Range<String.Index>] {
            text.matches(of: /(≤ )?\d[\d,.]*\s+instructions/).filter { $0.output.1 == nil }.map(\.range)
        }

        /// The prose that may quote figures of today's code: each document, or the part of
        /// it that is not history (CHANGELOG.md's unreleased changes, Benchmarks/README.md
        /// above "History").
        static func prose() throws -> [(file: String, text: String)] {
            var documents = ["README.md", "MIGRATION.md", "CONTRIBUTING.md"]
            documents += try CodeSamples.files(under: "Sources").filter { $0.hasSuffix(".md") }
            var prose = try documents.map { ($0, try CodeSamples.text(of: $0)) }
            let changelog = try CodeSamples.text(of: changelog)
            let unreleased = try #require(changelog.firstRange(of: "\n## [Unreleased]"))
            let next = changelog[unreleased.upperBound...].firstRange(of: "\n## [")?.lowerBound ?? changelog.endIndex
            prose.append((Self.changelog, String(changelog[unreleased.lowerBound..<next])))
            let benchmarks = try CodeSamples.text(of: Self.benchmarks)
            let history = try #require(benchmarks.firstRange(of: "\n## History\n"))
            prose.append((Self.benchmarks, String(benchmarks[..<history.lowerBound])))
            return prose
        }

        @Test func noFigureOfInstructionsIsQuotedUnchecked() throws {
            let recorded = try Self.recorded()
            for (file, text) in try Self.prose() {
                let text = Self.flat(text)
                let covered = try Self.quotes.filter { $0.file == file }.flatMap { quote in
                    let quoted: String = try Self.expanded(quote, recorded)
                    return text.ranges(of: quoted)
                }
                for range in Self.figuresOfInstructions(in: text) where !covered.contains(where: { $0.overlaps(range) })
                {
                    Issue.record(
                        """
                        \(file): "\(text[range])" is a figure no test reads from Benchmarks/figures.json: \
                        add the sentence to `quotes` in DriftTests+Figures.swift with the row it comes from, \
                        or name the row instead (Benchmarks/README.md, "The figures file").
                        """)
                }
            }
            let code = try CodeSamples.files(under: "Sources").filter { path in
                [".swift", ".h", ".c"].contains { path.hasSuffix($0) }
            }
            #expect(code.count > 100)
            for file in code {
                let text = try CodeSamples.text(of: file)
                for range in Self.figuresOfInstructions(in: text) {
                    Issue.record(
                        """
                        \(file): "\(text[range])": a comment names the row of `Benchmarks/instructions` \
                        that shows what it says (as "the row `dispatch` of `Benchmarks/instructions`"), \
                        not its figure, which Benchmarks/figures.json keeps.
                        """)
                }
            }
        }
    }
}
