package import FluxCapacitor
package import FluxCapacitorPersistence
package import FluxCapacitorTesting
package import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Dispatcher {
    /// What the recording tests dispatch and replay.
    package enum Tally: DispatchState, Codable, Equatable, Sendable {
        package typealias RelatedStoreType = TallyStore
        package typealias RelatedActionType = TallyAction

        case add(Int)
        case note(String)
        case reset
        /// Its encoding throws (a value `JSONEncoder` refuses).
        case ratio(Double)
    }

    /// A state type the recorders of these tests are not given.
    package enum Unrecorded: DispatchState, Codable, Sendable {
        package typealias RelatedStoreType = UnrecordedStore
        package typealias RelatedActionType = UnrecordedAction

        case ping
    }
}

extension Dispatcher {
    /// A recorded state whose encoding waits until the test lets it go on: it holds up the
    /// recorder's writer.
    package enum Held: DispatchState, Codable, Sendable {
        package typealias RelatedStoreType = HeldStore
        package typealias RelatedActionType = HeldAction

        case held(WriterGate)
    }
}

/// What a ``Dispatcher/Held`` state's encoding waits for. One decoded from a recording does
/// not wait.
package final class WriterGate: Codable, Sendable {
    /// Signalled when the writer starts encoding the state.
    package let encoding = DispatchSemaphore(value: 0)
    /// Lets the encoding go on.
    package let mayEncode = DispatchSemaphore(value: 0)
    private let waits: Bool

    package init() {
        waits = true
    }

    package init(from decoder: any Decoder) throws {
        waits = false
    }

    package func encode(to encoder: any Encoder) throws {
        if waits {
            encoding.signal()
            mayEncode.wait()
        }
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

package final class HeldStore: Storable {
    package typealias DispatchStateType = Dispatcher.Held
    package required init() {}
    package func reduce(with state: Dispatcher.Held) {}
}

package struct HeldAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Held
}

package final class TallyStore: Storable {
    package typealias DispatchStateType = Dispatcher.Tally

    package let total: Constant<Int>
    private let _total = Variable(0)
    package let notes: Constant<[String]>
    private let _notes = Variable<[String]>([])

    package required init() {
        total = Constant(_total)
        notes = Constant(_notes)
    }

    package func reduce(with state: Dispatcher.Tally) {
        switch state {
        case .add(let amount): _total.value += amount
        case .note(let text): _notes.value.append(text)
        case .reset:
            _total.value = 0
            _notes.value = []
        case .ratio: break
        }
    }
}

package struct TallyAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Tally
}

package final class UnrecordedStore: Storable {
    package typealias DispatchStateType = Dispatcher.Unrecorded
    package required init() {}
    package func reduce(with state: Dispatcher.Unrecorded) {}
}

package struct UnrecordedAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Unrecorded
}

/// A folder of the test's own, removed when it goes away.
package final class TemporaryFolder: Sendable {
    package let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "FluxRecording-\(UUID().uuidString)")

    package init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    package func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// A reporter that keeps the failures it is told of.
package final class CollectedFailures: Sendable {
    package init() {}

    private let failed = Locked<[String]>([])

    package var reporter: IssueReporter {
        IssueReporter(failure: { [failed] message, _ in failed.withLock { $0.append(message) } })
    }

    package var messages: [String] { failed.value }
}

/// An error handler that keeps what it is told.
package final class CollectedErrors: Sendable {
    package init() {}

    private let errors = Locked<[DispatchRecordingError]>([])

    package var handler: @Sendable (DispatchRecordingError) -> Void {
        { [errors] error in errors.withLock { $0.append(error) } }
    }

    package var all: [DispatchRecordingError] { errors.value }
    package var reasons: [String] { errors.value.map(\.reason) }
}

/// The lines of a recording that are steps (not the header, not values), without their time.
package func steps(of file: URL) throws -> [String] {
    try lines(of: file).dropFirst().filter { $0.contains(#""state":"#) }.map { line in
        line.replacingOccurrences(of: #""time":"[^"]*""#, with: #""time":"T""#, options: .regularExpression)
    }
}

/// The sequence numbers of the steps of a recording.
package func sequences(of file: URL) throws -> [Int] {
    try steps(of: file).map { Int($0.firstMatch(of: /"seq":(\d+)/)!.1)! }
}

/// The lines of a file, without the last newline.
package func lines(of file: URL) throws -> [String] {
    try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        .dropLast().map(String.init)
}

extension Dispatcher {
    /// A shelf of items, persisted: what a recording must start from when a launch restores it.
    package enum Pantry: DispatchState, Codable, Equatable, Sendable {
        package typealias RelatedStoreType = PantryStore
        package typealias RelatedActionType = PantryAction

        case add(String)
        case remove(String)
    }
}

/// Items persisted as `shelf` in the default storage.
package final class PantryStore: Storable {
    package typealias DispatchStateType = Dispatcher.Pantry

    package let items: Constant<[String]>
    private let _items = Variable<[String]>([], persistedAs: "shelf")

    package required init() {
        items = Constant(_items)
    }

    package func reduce(with state: Dispatcher.Pantry) {
        switch state {
        case .add(let item): _items.value.append(item)
        case .remove(let item): _items.value.removeAll { $0 == item }
        }
    }
}

package struct PantryAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Pantry
}

/// A value that is not `Codable`: what a recording can only describe.
package struct Gadget: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var description: String { "Gadget(\(name))" }

    package init(name: String) {
        self.name = name
    }
}

extension Dispatcher {
    package enum Workshop: DispatchState, Codable, Sendable {
        package typealias RelatedStoreType = WorkshopStore
        package typealias RelatedActionType = WorkshopAction

        case count
    }
}

/// A store with a value that is not `Codable` beside one that is.
package final class WorkshopStore: Storable {
    package typealias DispatchStateType = Dispatcher.Workshop

    package let gadget = Variable(Gadget(name: "default"))
    package let counted = Variable(0)

    package required init() {}

    package func reduce(with state: Dispatcher.Workshop) {
        counted.value += 1
    }
}

package struct WorkshopAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Workshop
}

// Child processes (`Process`): macOS and Linux.
#if os(Linux) || os(macOS)

#if canImport(Glibc)
private let sendSignal = Glibc.kill
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let sendSignal = Darwin.kill
private let systemRead = Darwin.read
#endif

/// `FluxCapacitorRecordingChild` (Tests/RecordingChild), run as a child process: its output
/// read line by line as it comes, so that a test can wait for a line, then kill it or end
/// its input.
package final class RecordingChild: @unchecked Sendable {
    // Sendable: `output` is a `Locked`; `process` and the pipes are used by the test's
    // thread only, and by the reader thread for reading.
    package let process = Process()
    private let input = Pipe()
    private let output = Locked<String>("")
    private let errors = Locked<String>("")
    private let readers = DispatchGroup()

    package init(_ arguments: [String]) throws {
        guard let folder = buildFolder(holding: "FluxCapacitorRecordingChild") else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSFilePathErrorKey: "FluxCapacitorRecordingChild beside the tests"])
        }
        process.executableURL = folder.appendingPathComponent("FluxCapacitorRecordingChild")
        process.arguments = arguments
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardInput = input
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        read(outputPipe.fileHandleForReading, into: output)
        read(errorPipe.fileHandleForReading, into: errors)
    }

    private func read(_ handle: FileHandle, into text: Locked<String>) {
        readers.enter()
        let descriptor = handle.fileDescriptor
        Thread { [readers] in
            // `read(2)` itself, again when interrupted (`availableData` stops the process on
            // an `EINTR`, which the child's end can cause).
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                text.withLock { $0 += String(decoding: buffer[..<count], as: UTF8.self) }
            }
            withExtendedLifetime(handle) {}
            readers.leave()
        }.start()
    }

    /// Waits (up to ten minutes: a bound for a hung child, not a measure) until a line of its
    /// output is `line`.
    package func waitForLine(_ line: String) -> Bool {
        for _ in 0..<600_000 {
            if output.value.split(separator: "\n").contains(Substring(line)) { return true }
            if !process.isRunning { return output.value.split(separator: "\n").contains(Substring(line)) }
            usleep(1_000)
        }
        return false
    }

    /// Kills it (`SIGKILL`: no handler runs, as when iOS ends an app) and waits for it.
    package func kill() -> Finished {
        _ = sendSignal(process.processIdentifier, SIGKILL)
        return finish(closingInput: false)
    }

    /// Ends its input (or not) and waits for it to end.
    package func finish(closingInput: Bool = true) -> Finished {
        if closingInput {
            try? input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        readers.wait()
        return Finished(
            reason: process.terminationReason, status: process.terminationStatus, output: output.value,
            errors: errors.value)
    }

    package struct Finished {
        package let reason: Process.TerminationReason
        package let status: Int32
        package let output: String
        package let errors: String

        /// The numbers it printed, one a line.
        package var numbers: [Int] {
            output.split(separator: "\n").compactMap { Int($0) }
        }
    }
}

#endif

/// The lines of a recording file, written by hand, for the replay's tests.
package enum RecordingText {
    package static func header(types: [String] = ["Tally"]) -> String {
        #"{"format":"FluxCapacitor dispatch recording","version":2,"types":["#
            + types.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
    }

    package static func line(_ sequence: Int, _ state: String, type: String = "Tally") -> String {
        #"{"seq":\#(sequence),"time":"2026-11-26T05:36:16.123Z","type":"\#(type)","state":\#(state)}"#
    }

    /// A checkpoint line of a `TallyStore` before step `sequence`.
    package static func start(_ sequence: Int, total: Int = 0, notes: String = "[]") -> String {
        #"{"seq":\#(sequence),"time":"2026-11-26T05:36:16.120Z","type":"Tally","checkpoint":true,"#
            + #""values":{"_total":\#(total),"_notes":\#(notes)}}"#
    }

    /// A file of the header (naming `types`), a start before `lines`' first step, and `lines`,
    /// each ending in a newline.
    package static func recording(
        _ lines: [String], types: [String] = ["Tally"], startingAt first: Int = 1, in folder: TemporaryFolder
    ) throws -> URL {
        let file = folder.file("recording-\(UUID().uuidString).jsonl")
        try Data(([header(types: types), start(first)] + lines).map { $0 + "\n" }.joined().utf8).write(to: file)
        return file
    }
}
