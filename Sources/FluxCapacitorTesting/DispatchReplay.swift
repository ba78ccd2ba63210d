public import FluxCapacitor
public import Foundation

/// Dispatches, in order, the states a `DispatchFileRecorder` (FluxCapacitorPersistence)
/// wrote to a file, into a dispatcher of the test's own: what a user did, done again in a
/// test, so that it can assert what the stores hold after it, or after each step.
///
/// ```swift
/// @Test(.isolatedDispatcher) func theRecordedSessionEndsWithTwoFavorites() {
///     let store = FavoriteStore.instantiate()
///     let replay = DispatchReplay(
///         contentsOf: recording,
///         decoding: [.state(Dispatcher.Favorite.self, named: "Favorite")]
///     )
///     replay.replayAll()
///     #expect(store.favorites.value.count == 2)
/// }
/// ```
///
/// Or step by step, asserting after each:
///
/// ```swift
/// while let step = replay.next() {
///     #expect(store.favorites.value.count <= 2, "after line \(step.line)")
/// }
/// ```
///
/// Name the state types to decode, with the names the recorder gave them (the type's full
/// name by default). The states go through `Dispatcher.current` by default, which the
/// `.isolatedDispatcher` trait makes the test's own: they reach the live stores of that
/// dispatcher, as an action's `invoke` would. Only states are replayed, never side effects:
/// an action's network call is not made again; what it dispatched is.
///
/// **A line it cannot use fails the test** (through `reporter`, as ``DispatchTester`` does:
/// a Swift Testing issue, or `XCTFail`), naming the line and the reason, and the replay
/// stops there: no later state is dispatched, since it would follow one that is missing.
/// That is: a file that is not a recording, a line that is not JSON, a state type the
/// replay was not given (renamed or moved since the recording), a state that does not
/// decode (a case renamed or changed since), a gap in the sequence numbers (the recorder
/// dropped dispatches, and said so when it did), a last line cut short (the app stopped
/// while writing it), and a line longer than `maximumLineLength`. A test that expects
/// one wraps it in `withKnownIssue`.
///
/// The file is read as it is replayed, line by line, so a file of any size takes the memory
/// of one line. Use a replay from the task that made it.
public final class DispatchReplay {
    /// A state type a replay decodes, and the name its lines carry.
    ///
    /// ```swift
    /// let types: [DispatchReplay.ReplayedType] = [
    ///     .state(Dispatcher.Favorite.self, named: "Favorite")
    /// ]
    /// ```
    public struct ReplayedType: Sendable {
        /// The name the lines of this type carry.
        public let name: String

        let decode: @Sendable (any Decoder) throws -> any DispatchState
        let dispatch: @Sendable (any DispatchState) -> Void

        /// Decodes the lines named `name` as `type`, with its `Decodable` conformance.
        ///
        /// ```swift
        /// .state(Dispatcher.Favorite.self, named: "Favorite")
        /// ```
        ///
        /// - Parameters:
        ///   - type: The state type (whose metatype is `Sendable`, as every type's is unless
        ///     it is isolated to an actor).
        ///   - name: The name the recorder wrote; by default Swift's full name of the type
        ///     (`String(reflecting:)`), as the recorder's default.
        /// - Returns: The type, to pass to ``DispatchReplay/init(contentsOf:decoding:maximumLineLength:reportingTo:)``.
        public static func state<State: DispatchState & Decodable & SendableMetatype>(
            _ type: State.Type, named name: String? = nil
        ) -> ReplayedType {
            ReplayedType(
                name: name ?? String(reflecting: type),
                decode: { decoder in try State(from: decoder) },
                dispatch: { state in
                    // Decoded by `decode` above, as this type.
                    Replaying<State>().invoke(state as! State)
                })
        }
    }

    /// One replayed line.
    public struct Step {
        /// The line's number in the file, from 1 (the header).
        public let line: Int
        /// The dispatch's sequence number in the recording.
        public let sequence: UInt64
        /// When the recorded app dispatched it.
        public let time: Date
        /// The name of its type, as in the file.
        public let typeName: String
        /// The state, as dispatched again.
        public let state: any DispatchState
    }

    /// The file being replayed.
    public let file: URL

    /// How many states were dispatched so far.
    public private(set) var replayedCount = 0

    /// Why the replay stopped before the end of the file, if it did; the failure was
    /// reported.
    public private(set) var failure: String?

    private let types: [String: ReplayedType]
    private let reporter: IssueReporter
    /// The test that made the replay, which its failures name if it outlives it.
    private let madeIn: TestIdentity?
    private let reader: LineReader
    private let decoder = JSONDecoder()
    private let timeFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    private var lineNumber = 0
    private var lastSequence: UInt64?
    private var isDone = false

    /// A replay of `file` that decodes the states of `types`.
    ///
    /// ```swift
    /// let replay = DispatchReplay(
    ///     contentsOf: recording,
    ///     decoding: [.state(Dispatcher.Favorite.self)]
    /// )
    /// ```
    ///
    /// Nothing is read until ``next(into:fileID:filePath:line:column:)`` or
    /// ``replayAll(into:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - file: A file a `DispatchFileRecorder` wrote.
    ///   - types: The state types to decode; a line of another type fails the replay.
    ///   - maximumLineLength: The longest line read, in bytes (16 MiB by default): past
    ///     it the replay fails, rather than read a file that is not a recording into memory.
    ///   - reporter: Where failures go; by default Swift Testing or XCTest, whichever runs
    ///     the test.
    public init(
        contentsOf file: URL,
        decoding types: [ReplayedType],
        maximumLineLength: Int = 16 << 20,
        reportingTo reporter: IssueReporter = .automatic
    ) {
        precondition(
            Set(types.map(\.name)).count == types.count,
            "DispatchReplay: two replayed types have one name. Give each the name it was recorded with, "
                + ".state(_:named:).")
        self.file = file
        self.types = Dictionary(uniqueKeysWithValues: types.map { ($0.name, $0) })
        decoder.userInfo[RecordedLine.typesKey] = self.types
        self.reporter = reporter
        madeIn = TestIdentity.current
        reader = LineReader(path: file.path, maximumLength: maximumLineLength)
    }

    /// Dispatches the next recorded state into `dispatcher` and returns it; `nil` at the
    /// end of the file, or at a line it cannot use (reported as a failure at this call).
    ///
    /// ```swift
    /// while let step = replay.next() {
    ///     print(step.line, step.state)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Where to dispatch; by default the current one.
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: The line replayed, or `nil` when there is none left.
    @discardableResult
    public func next(
        into dispatcher: Dispatcher = .current,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Step? {
        guard !isDone else { return nil }
        switch readStep() {
        case .success((let step, let type)?):
            Dispatcher.withCurrent(dispatcher) {
                type.dispatch(step.state)
            }
            replayedCount += 1
            return step
        case .success(nil):
            isDone = true
            return nil
        case .failure(let failure):
            isDone = true
            let message =
                "\(file.lastPathComponent), \(failure.reason); \(replayedCount) state(s) before it were replayed"
            self.failure = message
            let location = CallLocation(fileID: fileID, filePath: filePath, line: line, column: column)
            reporter.fail(
                message, at: location,
                origin: TesterOrigin(test: madeIn, location: location, testerName: "DispatchReplay"))
            return nil
        }
    }

    /// Dispatches every recorded state left, in order, into `dispatcher`; stops at a line
    /// it cannot use (reported as a failure at this call).
    ///
    /// ```swift
    /// replay.replayAll()
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: Where to dispatch; by default the current one.
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: How many states this call dispatched.
    @discardableResult
    public func replayAll(
        into dispatcher: Dispatcher = .current,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Int {
        var count = 0
        while next(into: dispatcher, fileID: fileID, filePath: filePath, line: line, column: column) != nil {
            count += 1
        }
        return count
    }

    /// The most bytes the reader held at once, for the tests of memory.
    var peakBufferedBytes: Int {
        reader.peakBufferedBytes
    }

    // MARK: Reading

    private struct Failure: Error {
        let reason: String
    }

    private struct Header: Decodable {
        let format: String
        let version: Int
    }

    /// A line of a recording, decoded in one pass: its fields, its type (looked up in the
    /// replay's types, which the decoder's `userInfo` carries) and its state, as that type.
    private struct RecordedLine: Decodable {
        /// Why a line that is JSON did not decode.
        enum Problem: Error {
            case fields(any Error)
            case unknownType(String)
            case state(type: String, any Error)
        }

        private enum CodingKeys: String, CodingKey {
            case seq, time, type, state
        }

        static let typesKey = CodingUserInfoKey(rawValue: "FluxCapacitorTesting.DispatchReplay.types")!

        let seq: UInt64
        let time: String
        let typeName: String
        let type: ReplayedType
        let state: any DispatchState

        init(from decoder: any Decoder) throws {
            do {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                seq = try container.decode(UInt64.self, forKey: .seq)
                time = try container.decode(String.self, forKey: .time)
                typeName = try container.decode(String.self, forKey: .type)
            } catch {
                throw Problem.fields(error)
            }
            guard let type = (decoder.userInfo[Self.typesKey] as? [String: ReplayedType])?[typeName] else {
                throw Problem.unknownType(typeName)
            }
            self.type = type
            do {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                state = try type.decode(container.superDecoder(forKey: .state))
            } catch {
                throw Problem.state(type: typeName, error)
            }
        }
    }

    /// The next line as a step and its type, `nil` at the end, or why it cannot be used.
    private func readStep() -> Result<(Step, ReplayedType)?, Failure> {
        guard let read = reader.next() else {
            if lineNumber == 0 {
                return .failure(Failure(reason: "line 1: the file is empty, not a FluxCapacitor recording"))
            }
            return .success(nil)
        }
        lineNumber += 1
        let data: Data
        switch read {
        case .line(let line):
            data = line
        case .truncated:
            return .failure(
                Failure(
                    reason: "line \(lineNumber) is truncated: the file ends in the middle of it (the app stopped "
                        + "while writing it)"))
        case .tooLong:
            return .failure(
                Failure(
                    reason: "line \(lineNumber) is longer than \(reader.maximumLength) bytes, the longest a replay "
                        + "reads (maximumLineLength): not a line of a recording"))
        case .failed(let reason):
            return .failure(Failure(reason: "line \(lineNumber): \(reason)"))
        }
        if lineNumber == 1 {
            guard let header = try? decoder.decode(Header.self, from: data),
                header.format == "FluxCapacitor dispatch recording"
            else {
                return .failure(
                    Failure(
                        reason: "line 1 is not the header of a FluxCapacitor recording, so the file is not one a "
                            + "DispatchFileRecorder wrote; it starts: \(Self.excerpt(data))"))
            }
            guard header.version == 1 else {
                return .failure(
                    Failure(reason: "line 1: version \(header.version) of the format; this replay reads version 1"))
            }
            return readStep()
        }
        return decodeStep(data)
    }

    private func decodeStep(_ data: Data) -> Result<(Step, ReplayedType)?, Failure> {
        let line: RecordedLine
        do {
            line = try decoder.decode(RecordedLine.self, from: data)
        } catch RecordedLine.Problem.unknownType(let name) {
            let known = types.keys.sorted().joined(separator: ", ")
            return .failure(
                Failure(
                    reason: "line \(lineNumber): unknown state type '\(name)'; this replay decodes \(known). "
                        + "A type renamed or moved since the recording has another default name: pass "
                        + ".state(YourType.self, named: \"\(name)\")"))
        } catch RecordedLine.Problem.state(let name, let error) {
            return .failure(
                Failure(
                    reason: "line \(lineNumber): the \(name) state does not decode (a case or a field "
                        + "renamed or changed since the recording?): \(Self.describe(error)); the line: "
                        + Self.excerpt(data)))
        } catch RecordedLine.Problem.fields(let error) {
            return .failure(Failure(reason: "line \(lineNumber) is not a recorded dispatch: \(Self.describe(error))"))
        } catch {
            // Not JSON: the parser's error, before any field.
            return .failure(Failure(reason: "line \(lineNumber) is not a recorded dispatch: \(Self.describe(error))"))
        }
        if let last = lastSequence, line.seq != last + 1 {
            let reason =
                line.seq > last
                ? "dispatches \(last + 1) to \(line.seq - 1) were not recorded (the sequence jumps from \(last) to "
                    + "\(line.seq): the recorder dropped them, falling behind or unable to encode or write them, "
                    + "and reported it)"
                : "the sequence goes back from \(last) to \(line.seq): not one recording"
            return .failure(Failure(reason: "line \(lineNumber): \(reason)"))
        }
        guard let time = timeFormatter.date(from: line.time) else {
            return .failure(Failure(reason: "line \(lineNumber): the time '\(line.time)' is not a UTC time"))
        }
        lastSequence = line.seq
        let step = Step(line: lineNumber, sequence: line.seq, time: time, typeName: line.typeName, state: line.state)
        return .success((step, line.type))
    }

    /// The start of a line, for a message.
    private static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(160), as: UTF8.self)
        return data.count > 160 ? "\(text)…" : text
    }

    /// What a decoder rejected, and where.
    private static func describe(_ error: any Error) -> String {
        func place(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty
                ? "at the top level" : "at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        }
        switch error {
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            // The parser's words differ between platforms; Darwin's are in the underlying error.
            let words = context.underlyingError.map { "\($0.localizedDescription)" } ?? context.debugDescription
            return "not valid JSON (\(words))"
        case DecodingError.dataCorrupted(let context):
            return "\(place(context)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            return "\(place(context)): no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(place(context)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

/// Dispatches a replayed state, as the recorded app's action did.
private struct Replaying<State: DispatchState>: Actionable {
    typealias DispatchStateType = State
}

// A replay hands out the states it decoded, which need not be Sendable.
@available(*, unavailable)
extension DispatchReplay: Sendable {}

@available(*, unavailable)
extension DispatchReplay.Step: Sendable {}
