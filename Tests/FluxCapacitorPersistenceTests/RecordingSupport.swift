import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

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
