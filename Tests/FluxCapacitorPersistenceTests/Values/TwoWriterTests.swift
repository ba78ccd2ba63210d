import Dispatch
import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Two writers of one slot, in one process (two storages on one folder, each on its own
/// thread) and in two processes: whatever the interleaving, every version one writer
/// displaced of the other's is kept as `slot.replaced-<date>.json` and reported, and the
/// last writer's version is the file.
@Suite("Two writers of one slot", .isolatedDispatcher)
struct TwoWriterTests {
    static let rounds = 1_000
    static let slot = "shared"

    /// What one writer did in one round: the version it wrote, and the names of the files
    /// its write reported keeping (another writer's versions it displaced).
    struct Round: Equatable {
        var version: String
        var keptAs: [String]
    }

    /// What one writer did: the version its variable loaded when it was made (it saw that
    /// version), and each round.
    struct History: Equatable {
        var loaded: String
        var rounds: [Round]
    }

    /// One writer: a storage of its own on the folder and a persisted variable, which loads
    /// the slot's current version when it is made, as an app's does at launch.
    final class Writer {
        let name: String
        let storage: FileStorage
        let variable: Variable<String>
        let reports = Locked<[PersistenceError]>([])
        private(set) var history: History

        init(_ name: String, in directory: URL) {
            self.name = name
            storage = FileStorage(directory: directory, coalescingInterval: .seconds(3600)) { [reports] error in
                reports.withLock { $0.append(error) }
            }
            variable = Variable("", persistedAs: TwoWriterTests.slot, in: storage)
            history = History(loaded: variable.value, rounds: [])
        }

        /// Writes `name-round`, flushing it, and returns what the write reported.
        @discardableResult
        func write(round: Int) -> Round {
            let version = "\(name)-\(round)"
            variable.value = version
            storage.flush()
            let heard = reports.withLock { reports in
                defer { reports.removeAll() }
                return reports
            }
            var kept: [String] = []
            for report in heard {
                guard case .replacedChangedFile(let keptAs) = report.kind else {
                    Issue.record("\(name) round \(round): unexpected report \(report)")
                    continue
                }
                kept.append(keptAs)
            }
            let result = Round(version: version, keptAs: kept)
            history.rounds.append(result)
            return result
        }
    }

    /// Writes `writer-0` … `writer-(rounds-1)` through a persisted variable, flushing each
    /// one, and returns what the variable loaded and what each write reported. `onLine`
    /// hears `loaded <version>`, then each round's line (a child process prints them for
    /// the parent).
    static func write(as name: String, in directory: URL, rounds: Int, onLine: (String) -> Void = { _ in })
        -> History
    {
        let writer = Writer(name, in: directory)
        onLine("loaded \(writer.history.loaded)")
        for round in 0..<rounds {
            let result = writer.write(round: round)
            onLine("\(result.version) \(result.keptAs.joined(separator: " "))")
        }
        return writer.history
    }

    /// The versions that are neither the file nor kept, though another writer displaced
    /// them unseen, and the reports that name no kept version of another writer.
    static func lostVersions(in directory: URL, writers: [String: History]) throws -> (
        lost: [String], badReports: [String]
    ) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        func contents(_ name: String) -> String? {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                return nil
            }
            return try? JSONDecoder().decode(String.self, from: data)
        }
        let keptNames = names.filter { $0.hasPrefix("\(slot).replaced-") }
        let kept = Set(keptNames.compactMap(contents))
        let final = contents("\(slot).json")
        var lost: [String] = []
        var badReports: [String] = []
        for (writer, history) in writers {
            // A version another writer's variable loaded reached that writer, which then
            // wrote over it knowingly: the storage promises to keep only a version that
            // changed since it last read or wrote the file.
            let seenByAnother = Set(writers.filter { $0.key != writer }.map(\.value.loaded))
            let rounds = history.rounds
            for (index, round) in rounds.enumerated() {
                // A version its own writer wrote over knowingly (the file was still that
                // version: no report) is superseded, not lost. One that the writer's next
                // write found displaced, and the writer's last, must be kept, be the file,
                // or have been loaded by the other writer.
                let isLast = index == rounds.count - 1
                let wasDisplaced = isLast || !rounds[index + 1].keptAs.isEmpty
                if wasDisplaced, round.version != final, !kept.contains(round.version),
                    !seenByAnother.contains(round.version)
                {
                    lost.append(round.version)
                }
                for name in round.keptAs {
                    let version = contents(name)
                    if version == nil || version!.hasPrefix("\(writer)-") {
                        badReports.append("\(round.version) kept \(name): \(version ?? "no such file")")
                    }
                }
            }
        }
        let reported = writers.values.map(\.rounds).joined().map(\.keptAs.count).reduce(0, +)
        if reported != keptNames.count {
            badReports.append("\(reported) reports for \(keptNames.count) kept files")
        }
        return (lost, badReports)
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FluxCapacitorTwoWriterTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func twoStoragesOnOneFolderOnTwoThreadsLoseNoVersion() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = Locked<[String: History]>([:])
        let start = DispatchGroup()
        let done = DispatchSemaphore(value: 0)
        start.enter()
        for writer in ["a", "b"] {
            Thread {
                start.wait()
                let rounds = Self.write(as: writer, in: directory, rounds: Self.rounds)
                results.withLock { $0[writer] = rounds }
                done.signal()
            }.start()
        }
        start.leave()
        done.wait()
        done.wait()

        let (lost, badReports) = try Self.lostVersions(in: directory, writers: results.value)
        #expect(lost.isEmpty, "\(lost.count) versions lost: \(lost.prefix(10))")
        #expect(badReports.isEmpty, "\(badReports.prefix(10))")
        let final = try JSONDecoder().decode(
            String.self, from: Data(contentsOf: directory.appendingPathComponent("\(Self.slot).json")))
        #expect(final == "a-\(Self.rounds - 1)" || final == "b-\(Self.rounds - 1)", "the last writer wins")
    }

    /// The interleaving of a writer that starts late (a loaded machine delays its thread):
    /// its variable loads the other writer's version, so writing over it is no loss and
    /// nothing is kept; the other writer's next write keeps the version it never saw.
    @Test func aWriterThatLoadedTheOtherWritersVersionWritesOverItKnowingly() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = Writer("a", in: directory)
        for round in 0..<3 {
            #expect(a.write(round: round).keptAs.isEmpty, "a is the only writer yet")
        }
        let b = Writer("b", in: directory)
        #expect(b.history.loaded == "a-2")

        #expect(b.write(round: 0).keptAs.isEmpty, "b saw a-2: nothing changed since it read the file")
        let kept = a.write(round: 3).keptAs
        #expect(kept.count == 1, "a never saw b-0, so it keeps it")

        let (lost, badReports) = try Self.lostVersions(
            in: directory, writers: ["a": a.history, "b": b.history])
        #expect(lost.isEmpty, "a-2 reached b's variable: superseded, not lost (\(lost))")
        #expect(badReports.isEmpty, "\(badReports)")
        #expect(
            kept.first.flatMap { FileManager.default.contents(atPath: directory.appendingPathComponent($0).path) }
                == Data(#""b-0""#.utf8))
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func twoProcessesWritingOneFolderLoseNoVersion() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path
        let rounds = Self.rounds
        func child(_ writer: String) async -> ExitTest.Result? {
            await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                [path = path as String, writer = writer as String, rounds = rounds as Int] in
                let directory = URL(fileURLWithPath: path)
                // Both start together: each says it is ready and waits for the other.
                _ = FileManager.default.createFile(
                    atPath: directory.appendingPathComponent("ready-\(writer)").path, contents: nil)
                while (try? FileManager.default.contentsOfDirectory(atPath: path))?.filter({ $0.hasPrefix("ready-") })
                    .count != 2
                {
                    usleep(1_000)
                }
                _ = TwoWriterTests.write(as: writer, in: directory, rounds: rounds) { line in
                    print(line)
                }
            }
        }
        async let a = child("a")
        async let b = child("b")
        let outputs = await [("a", a), ("b", b)]
        var writers: [String: History] = [:]
        for (writer, result) in outputs {
            let lines = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false)
            let loadedLine = lines.first { $0.hasPrefix("loaded ") }
            #expect(loadedLine != nil, "\(writer) says what it loaded")
            let written = lines.filter { !$0.isEmpty && !$0.hasPrefix("loaded ") }.map { line in
                let words = line.split(separator: " ").map(String.init)
                return Round(version: words[0], keptAs: Array(words.dropFirst()))
            }
            writers[writer] = History(loaded: String(loadedLine?.dropFirst("loaded ".count) ?? ""), rounds: written)
            #expect(written.count == rounds, "\(writer) wrote every round")
        }
        let (lost, badReports) = try Self.lostVersions(in: directory, writers: writers)
        #expect(lost.isEmpty, "\(lost.count) versions lost: \(lost.prefix(10))")
        #expect(badReports.isEmpty, "\(badReports.prefix(10))")
    }
    #endif

    @Test func removingAFileAnotherWriterChangedKeepsItFirst() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = FileStorage(directory: directory)
        let other = FileStorage(directory: directory)
        #expect(try storage.read(Self.slot) == nil)
        try other.write(Data(#""theirs""#.utf8), to: Self.slot)

        try storage.remove(Self.slot)

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let kept = names.filter { $0.hasPrefix("\(Self.slot).replaced-") }
        #expect(!names.contains("\(Self.slot).json"))
        #expect(kept.count == 1)
        #expect(
            kept.first.flatMap { FileManager.default.contents(atPath: directory.appendingPathComponent($0).path) }
                == Data(#""theirs""#.utf8))
    }

    @Test func removingFromAFolderThatIsNotThereIsNoError() throws {
        let storage = FileStorage(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString)"))
        try storage.remove(Self.slot)
        #expect(try storage.read(Self.slot) == nil)
    }
}
