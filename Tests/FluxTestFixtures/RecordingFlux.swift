public import FluxCapacitor
public import FluxCapacitorPersistence
public import FluxCapacitorTesting
public import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Dispatcher {
    /// What the recording tests dispatch and replay.
    public enum Tally: DispatchState, Codable, Equatable, Sendable {
        public typealias RelatedStoreType = TallyStore
        public typealias RelatedActionType = TallyAction

        case add(Int)
        case note(String)
        case reset
        /// Its encoding throws (a value `JSONEncoder` refuses).
        case ratio(Double)
    }

    /// A state type the recorders of these tests are not given.
    public enum Unrecorded: DispatchState, Codable, Sendable {
        public typealias RelatedStoreType = UnrecordedStore
        public typealias RelatedActionType = UnrecordedAction

        case ping
    }
}

extension Dispatcher {
    /// A recorded state whose encoding waits until the test lets it go on: it holds up the
    /// recorder's writer.
    public enum Held: DispatchState, Codable, Sendable {
        public typealias RelatedStoreType = HeldStore
        public typealias RelatedActionType = HeldAction

        case held(WriterGate)
    }
}

/// What a ``Dispatcher/Held`` state's encoding waits for. One decoded from a recording does
/// not wait.
public final class WriterGate: Codable, Sendable {
    /// Signalled when the writer starts encoding the state.
    public let encoding = DispatchSemaphore(value: 0)
    /// Lets the encoding go on.
    public let mayEncode = DispatchSemaphore(value: 0)
    private let waits: Bool

    public init() {
        waits = true
    }

    public init(from decoder: any Decoder) throws {
        waits = false
    }

    public func encode(to encoder: any Encoder) throws {
        if waits {
            encoding.signal()
            mayEncode.wait()
        }
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

public final class HeldStore: Storable {
    public typealias DispatchStateType = Dispatcher.Held
    public required init() {}
    public func reduce(with state: Dispatcher.Held) {}
}

public struct HeldAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Held
}

public final class TallyStore: Storable {
    public typealias DispatchStateType = Dispatcher.Tally

    public let total: Constant<Int>
    private let _total = Variable(0)
    public let notes: Constant<[String]>
    private let _notes = Variable<[String]>([])

    public required init() {
        total = Constant(_total)
        notes = Constant(_notes)
    }

    public func reduce(with state: Dispatcher.Tally) {
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

public struct TallyAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Tally
}

public final class UnrecordedStore: Storable {
    public typealias DispatchStateType = Dispatcher.Unrecorded
    public required init() {}
    public func reduce(with state: Dispatcher.Unrecorded) {}
}

public struct UnrecordedAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Unrecorded
}

/// A folder of the test's own, removed when it goes away.
public final class TemporaryFolder: Sendable {
    public let url = FileManager.default.temporaryDirectory.appendingPathComponent("FluxRecording-\(UUID().uuidString)")

    public init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// A reporter that keeps the failures it is told of.
public final class CollectedFailures: Sendable {
    public init() {}

    private let failed = Locked<[String]>([])

    public var reporter: IssueReporter {
        IssueReporter(failure: { [failed] message, _ in failed.withLock { $0.append(message) } })
    }

    public var messages: [String] { failed.value }
}

/// An error handler that keeps what it is told.
public final class CollectedErrors: Sendable {
    public init() {}

    private let errors = Locked<[DispatchRecordingError]>([])

    public var handler: @Sendable (DispatchRecordingError) -> Void {
        { [errors] error in errors.withLock { $0.append(error) } }
    }

    public var all: [DispatchRecordingError] { errors.value }
    public var reasons: [String] { errors.value.map(\.reason) }
}

/// The lines of a recording that are steps (not the header, not values), without their time.
public func steps(of file: URL) throws -> [String] {
    try lines(of: file).dropFirst().filter { $0.contains(#""state":"#) }.map { line in
        line.replacingOccurrences(of: #""time":"[^"]*""#, with: #""time":"T""#, options: .regularExpression)
    }
}

/// The sequence numbers of the steps of a recording.
public func sequences(of file: URL) throws -> [Int] {
    try steps(of: file).map { Int($0.firstMatch(of: /"seq":(\d+)/)!.1)! }
}

/// The lines of a file, without the last newline.
public func lines(of file: URL) throws -> [String] {
    try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        .dropLast().map(String.init)
}

extension Dispatcher {
    /// A shelf of items, persisted: what a recording must start from when a launch restores it.
    public enum Pantry: DispatchState, Codable, Equatable, Sendable {
        public typealias RelatedStoreType = PantryStore
        public typealias RelatedActionType = PantryAction

        case add(String)
        case remove(String)
    }
}

/// Items persisted as `shelf` in the default storage.
public final class PantryStore: Storable {
    public typealias DispatchStateType = Dispatcher.Pantry

    public let items: Constant<[String]>
    private let _items = Variable<[String]>([], persistedAs: "shelf")

    public required init() {
        items = Constant(_items)
    }

    public func reduce(with state: Dispatcher.Pantry) {
        switch state {
        case .add(let item): _items.value.append(item)
        case .remove(let item): _items.value.removeAll { $0 == item }
        }
    }
}

public struct PantryAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Pantry
}

/// A value that is not `Codable`: what a recording can only describe.
public struct Gadget: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var description: String { "Gadget(\(name))" }

    public init(name: String) {
        self.name = name
    }
}

extension Dispatcher {
    public enum Workshop: DispatchState, Codable, Sendable {
        public typealias RelatedStoreType = WorkshopStore
        public typealias RelatedActionType = WorkshopAction

        case count
    }
}

/// A store with a value that is not `Codable` beside one that is.
public final class WorkshopStore: Storable {
    public typealias DispatchStateType = Dispatcher.Workshop

    public let gadget = Variable(Gadget(name: "default"))
    public let counted = Variable(0)

    public required init() {}

    public func reduce(with state: Dispatcher.Workshop) {
        counted.value += 1
    }
}

public struct WorkshopAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Workshop
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
public final class RecordingChild: @unchecked Sendable {
    // Sendable: `output` is a `Locked`; `process` and the pipes are used by the test's
    // thread only, and by the reader thread for reading.
    public let process = Process()
    private let input = Pipe()
    private let output = Locked<String>("")
    private let errors = Locked<String>("")
    private let readers = DispatchGroup()

    public init(_ arguments: [String]) throws {
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
    public func waitForLine(_ line: String) -> Bool {
        for _ in 0..<600_000 {
            if output.value.split(separator: "\n").contains(Substring(line)) { return true }
            if !process.isRunning { return output.value.split(separator: "\n").contains(Substring(line)) }
            usleep(1_000)
        }
        return false
    }

    /// Kills it (`SIGKILL`: no handler runs, as when iOS ends an app) and waits for it.
    public func kill() -> Finished {
        _ = sendSignal(process.processIdentifier, SIGKILL)
        return finish(closingInput: false)
    }

    /// Ends its input (or not) and waits for it to end.
    public func finish(closingInput: Bool = true) -> Finished {
        if closingInput {
            try? input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        readers.wait()
        return Finished(
            reason: process.terminationReason, status: process.terminationStatus, output: output.value,
            errors: errors.value)
    }

    public struct Finished {
        public let reason: Process.TerminationReason
        public let status: Int32
        public let output: String
        public let errors: String

        /// The numbers it printed, one a line.
        public var numbers: [Int] {
            output.split(separator: "\n").compactMap { Int($0) }
        }
    }
}

#endif

/// The lines of a recording file, written by hand, for the replay's tests.
public enum RecordingText {
    public static func header(types: [String] = ["Tally"]) -> String {
        #"{"format":"FluxCapacitor dispatch recording","version":2,"types":["#
            + types.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
    }

    public static func line(_ sequence: Int, _ state: String, type: String = "Tally") -> String {
        #"{"seq":\#(sequence),"time":"2026-11-26T05:36:16.123Z","type":"\#(type)","state":\#(state)}"#
    }

    /// A checkpoint line of a `TallyStore` before step `sequence`.
    public static func start(_ sequence: Int, total: Int = 0, notes: String = "[]") -> String {
        #"{"seq":\#(sequence),"time":"2026-11-26T05:36:16.120Z","type":"Tally","checkpoint":true,"#
            + #""values":{"_total":\#(total),"_notes":\#(notes)}}"#
    }

    /// A file of the header (naming `types`), a start before `lines`' first step, and `lines`,
    /// each ending in a newline.
    public static func recording(
        _ lines: [String], types: [String] = ["Tally"], startingAt first: Int = 1, in folder: TemporaryFolder
    ) throws -> URL {
        let file = folder.file("recording-\(UUID().uuidString).jsonl")
        try Data(([header(types: types), start(first)] + lines).map { $0 + "\n" }.joined().utf8).write(to: file)
        return file
    }
}
