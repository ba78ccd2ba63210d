import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Dispatcher {
    /// What the recording tests dispatch and replay.
    enum Tally: DispatchState, Codable, Equatable, Sendable {
        typealias RelatedStoreType = TallyStore
        typealias RelatedActionType = TallyAction

        case add(Int)
        case note(String)
        case reset
        /// Its encoding throws (a value `JSONEncoder` refuses).
        case ratio(Double)
    }

    /// A state type the recorders of these tests are not given.
    enum Unrecorded: DispatchState, Codable, Sendable {
        typealias RelatedStoreType = UnrecordedStore
        typealias RelatedActionType = UnrecordedAction

        case ping
    }
}

extension Dispatcher {
    /// A recorded state whose encoding waits until the test lets it go on: it holds up the
    /// recorder's writer.
    enum Held: DispatchState, Codable, Sendable {
        typealias RelatedStoreType = HeldStore
        typealias RelatedActionType = HeldAction

        case held(WriterGate)
    }
}

/// What a ``Dispatcher/Held`` state's encoding waits for. One decoded from a recording does
/// not wait.
final class WriterGate: Codable, Sendable {
    /// Signalled when the writer starts encoding the state.
    let encoding = DispatchSemaphore(value: 0)
    /// Lets the encoding go on.
    let mayEncode = DispatchSemaphore(value: 0)
    private let waits: Bool

    init() {
        waits = true
    }

    init(from decoder: any Decoder) throws {
        waits = false
    }

    func encode(to encoder: any Encoder) throws {
        if waits {
            encoding.signal()
            mayEncode.wait()
        }
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

final class HeldStore: Storable {
    typealias DispatchStateType = Dispatcher.Held
    required init() {}
    func reduce(with state: Dispatcher.Held) {}
}

struct HeldAction: Actionable {
    typealias DispatchStateType = Dispatcher.Held
}

final class TallyStore: Storable {
    typealias DispatchStateType = Dispatcher.Tally

    let total: Constant<Int>
    private let _total = Variable(0)
    let notes: Constant<[String]>
    private let _notes = Variable<[String]>([])

    required init() {
        total = Constant(_total)
        notes = Constant(_notes)
    }

    func reduce(with state: Dispatcher.Tally) {
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

struct TallyAction: Actionable {
    typealias DispatchStateType = Dispatcher.Tally
}

final class UnrecordedStore: Storable {
    typealias DispatchStateType = Dispatcher.Unrecorded
    required init() {}
    func reduce(with state: Dispatcher.Unrecorded) {}
}

struct UnrecordedAction: Actionable {
    typealias DispatchStateType = Dispatcher.Unrecorded
}

/// A folder of the test's own, removed when it goes away.
final class TemporaryFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("FluxRecording-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// A reporter that keeps the failures it is told of.
final class CollectedFailures: Sendable {
    private let failed = Locked<[String]>([])

    var reporter: IssueReporter {
        IssueReporter(failure: { [failed] message, _ in failed.withLock { $0.append(message) } })
    }

    var messages: [String] { failed.value }
}

/// An error handler that keeps what it is told.
final class CollectedErrors: Sendable {
    private let errors = Locked<[DispatchRecordingError]>([])

    var handler: @Sendable (DispatchRecordingError) -> Void {
        { [errors] error in errors.withLock { $0.append(error) } }
    }

    var all: [DispatchRecordingError] { errors.value }
    var reasons: [String] { errors.value.map(\.reason) }
}

/// The lines of a recording that are steps (not the header, not values), without their time.
func steps(of file: URL) throws -> [String] {
    try lines(of: file).dropFirst().filter { $0.contains(#""state":"#) }.map { line in
        line.replacingOccurrences(of: #""time":"[^"]*""#, with: #""time":"T""#, options: .regularExpression)
    }
}

/// The sequence numbers of the steps of a recording.
func sequences(of file: URL) throws -> [Int] {
    try steps(of: file).map { Int($0.firstMatch(of: /"seq":(\d+)/)!.1)! }
}

/// The lines of a file, without the last newline.
func lines(of file: URL) throws -> [String] {
    try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        .dropLast().map(String.init)
}

extension Dispatcher {
    /// A shelf of items, persisted: what a recording must start from when a launch restores it.
    enum Shelf: DispatchState, Codable, Equatable, Sendable {
        typealias RelatedStoreType = ShelfStore
        typealias RelatedActionType = ShelfAction

        case add(String)
        case remove(String)
    }
}

/// Items persisted as `shelf` in the default storage.
final class ShelfStore: Storable {
    typealias DispatchStateType = Dispatcher.Shelf

    let items: Constant<[String]>
    private let _items = Variable<[String]>([], persistedAs: "shelf")

    required init() {
        items = Constant(_items)
    }

    func reduce(with state: Dispatcher.Shelf) {
        switch state {
        case .add(let item): _items.value.append(item)
        case .remove(let item): _items.value.removeAll { $0 == item }
        }
    }
}

struct ShelfAction: Actionable {
    typealias DispatchStateType = Dispatcher.Shelf
}

/// A value that is not `Codable`: what a recording can only describe.
struct Gadget: Sendable, Equatable, CustomStringConvertible {
    var name: String
    var description: String { "Gadget(\(name))" }
}

extension Dispatcher {
    enum Workshop: DispatchState, Codable, Sendable {
        typealias RelatedStoreType = WorkshopStore
        typealias RelatedActionType = WorkshopAction

        case count
    }
}

/// A store with a value that is not `Codable` beside one that is.
final class WorkshopStore: Storable {
    typealias DispatchStateType = Dispatcher.Workshop

    let gadget = Variable(Gadget(name: "default"))
    let counted = Variable(0)

    required init() {}

    func reduce(with state: Dispatcher.Workshop) {
        counted.value += 1
    }
}

struct WorkshopAction: Actionable {
    typealias DispatchStateType = Dispatcher.Workshop
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
final class RecordingChild: @unchecked Sendable {
    // Sendable: `output` is a `Locked`; `process` and the pipes are used by the test's
    // thread only, and by the reader thread for reading.
    let process = Process()
    private let input = Pipe()
    private let output = Locked<String>("")
    private let errors = Locked<String>("")
    private let readers = DispatchGroup()

    init(_ arguments: [String]) throws {
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
    func waitForLine(_ line: String) -> Bool {
        for _ in 0..<600_000 {
            if output.value.split(separator: "\n").contains(Substring(line)) { return true }
            if !process.isRunning { return output.value.split(separator: "\n").contains(Substring(line)) }
            usleep(1_000)
        }
        return false
    }

    /// Kills it (`SIGKILL`: no handler runs, as when iOS ends an app) and waits for it.
    func kill() -> Finished {
        _ = sendSignal(process.processIdentifier, SIGKILL)
        return finish(closingInput: false)
    }

    /// Ends its input (or not) and waits for it to end.
    func finish(closingInput: Bool = true) -> Finished {
        if closingInput {
            try? input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        readers.wait()
        return Finished(
            reason: process.terminationReason, status: process.terminationStatus, output: output.value,
            errors: errors.value)
    }

    struct Finished {
        let reason: Process.TerminationReason
        let status: Int32
        let output: String
        let errors: String

        /// The numbers it printed, one a line.
        var numbers: [Int] {
            output.split(separator: "\n").compactMap { Int($0) }
        }
    }
}

#endif
