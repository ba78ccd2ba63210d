import FluxCapacitor
import Foundation

/// Reads a recording (`RecordingFormat`) line by line for a ``DispatchFilePlayer``: checks
/// the header and the types, decodes each line in one pass (a step's state as its type,
/// a values line's values as the player's stores' `Variable`s hold them), checks the
/// sequence, and says what is wrong with a line in words.
final class RecordingReader {
    enum Item {
        case values(Values)
        case step(DispatchFilePlayer.Step, PlayedType?)
    }

    /// A values line, decoded for the player's store of its type.
    struct Values {
        let line: Int
        let typeName: String
        let isCheckpoint: Bool
        /// By property name; `nil` when no store of the type was alive.
        let values: [String: any Sendable]?
        /// The descriptions of the values that are not `Codable`, by property name.
        let unrecorded: [String: String]
        /// What did not decode, by property name.
        let problems: [(label: String, reason: String)]
    }

    let url: URL
    private let types: [String: PlayedType]
    private let skipped: Set<String>
    private let notDecodable: [String]
    private let reader: LineReader
    private let decoder = JSONDecoder()
    /// The player's stores' `Variable`s, by type name and property name.
    var variables: [String: [String: any StoreVariable]] = [:] {
        didSet { decoder.userInfo[Self.contextKey] = context }
    }
    /// The recorded types, as the header names them.
    private(set) var recordedTypes: [String] = []
    private var lineNumber = 0
    private var lastSequence: UInt64?

    static let contextKey = CodingUserInfoKey(rawValue: "FluxCapacitorPersistence.RecordingReader")!

    /// What a line's decoding needs, in the decoder's `userInfo`.
    private struct Context {
        let types: [String: PlayedType]
        let skipped: Set<String>
        let variables: [String: [String: any StoreVariable]]
    }

    private var context: Context {
        Context(types: types, skipped: skipped, variables: variables)
    }

    init(
        path: String, types: [String: PlayedType], skipped: Set<String>, maximumLineLength: Int, notDecodable: [String]
    ) {
        url = URL(fileURLWithPath: path)
        self.types = types
        self.skipped = skipped
        self.notDecodable = notDecodable
        reader = LineReader(path: path, maximumLength: maximumLineLength)
        decoder.userInfo[Self.contextKey] = context
    }

    var peakBufferedBytes: Int {
        reader.peakBufferedBytes
    }

    /// An error about the line just read (or `line`): `reason` is prefixed with `line N: `
    /// unless it starts with the line already, or is not about a line (`aboutALine`).
    func failure(_ reason: String, line: Int? = nil, aboutALine: Bool = true) -> DispatchRecordingError {
        let number = line ?? max(lineNumber, 1)
        let text = !aboutALine || reason.hasPrefix("line ") ? reason : "line \(number): \(reason)"
        return DispatchRecordingError(file: url, line: number, reason: text)
    }

    /// The next values line or step; `nil` at the end of the file.
    func next() throws(DispatchRecordingError) -> Item? {
        while true {
            guard let read = reader.next() else {
                if lineNumber == 0 {
                    throw failure("line 1: the file is empty, not a FluxCapacitor recording")
                }
                return nil
            }
            lineNumber += 1
            let data: Data
            switch read {
            case .line(let line):
                data = line
            case .truncated:
                throw failure(
                    "line \(lineNumber) is truncated: the file ends in the middle of it (the app stopped while writing "
                        + "it)")
            case .tooLong:
                throw failure(
                    "line \(lineNumber) is longer than \(reader.maximumLength) bytes, the longest a replay reads "
                        + "(maximumLineLength): not a line of a recording")
            case .failed(let reason):
                throw failure(reason)
            }
            if lineNumber == 1 {
                try readHeader(data)
                continue
            }
            return try decode(data)
        }
    }

    // MARK: The header

    private struct Header: Decodable {
        let format: String
        let version: Int
        let types: [String]?
    }

    private func readHeader(_ data: Data) throws(DispatchRecordingError) {
        guard let header = try? decoder.decode(Header.self, from: data), header.format == RecordingFormat.name else {
            throw failure(
                "line 1 is not the header of a FluxCapacitor recording, so the file is not one a DispatchFileRecorder "
                    + "wrote; it starts: \(Self.excerpt(data))")
        }
        guard header.version == RecordingFormat.version, let recorded = header.types else {
            let why =
                header.version == 1
                ? "version 1 of the format, which does not record the values the stores started from, so a replay "
                    + "could end where the user never was; record the session again with this version"
                : "version \(header.version) of the format, which this version of FluxCapacitor does not read"
            throw failure("line 1: \(why) (this replay reads version \(RecordingFormat.version))")
        }
        recordedTypes = recorded
        if let name = notDecodable.first(where: { recorded.contains($0) && !skipped.contains($0) }) {
            throw failure(
                "line 1: the recording has states of type '\(name)', which the player was given as a type that is not "
                    + "Decodable: make it Decodable, or skip it on purpose (skipping: [\"\(name)\"])")
        }
        let unknown = recorded.filter { types[$0] == nil && !skipped.contains($0) }
        guard unknown.isEmpty else {
            let given = types.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
            let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
            let skip = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
            throw failure(
                "line 1: the recording has states of type \(names), which this replay was not given (it was given "
                    + "\(given.isEmpty ? "none" : given)): give each, .state(YourState.self, named: \"\(unknown[0])\"), "
                    + "or skip it on purpose, skipping: [\(skip)]")
        }
    }

    // MARK: Lines

    /// A line of a recording, decoded in one pass: its fields, then its state as its type
    /// (looked up in the context the decoder's `userInfo` carries), or its values as the
    /// player's store holds them.
    private struct RecordedLine: Decodable {
        /// Why a line that is JSON did not decode.
        enum Problem: Error {
            case fields(any Error)
            case unknownType(String)
            case state(type: String, any Error)
        }

        private enum CodingKeys: String, CodingKey {
            case seq, time, type, state, dropped, values, unrecorded, checkpoint
        }

        private struct Label: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        let seq: UInt64
        let time: String
        let typeName: String
        let type: PlayedType?
        /// A step's state (`nil` for a skipped type), or `nil` for a values line.
        let state: (any DispatchState)?
        let isStep: Bool
        let dropped: Bool
        let isCheckpoint: Bool
        let values: [String: any Sendable]?
        let unrecorded: [String: String]
        let problems: [(label: String, reason: String)]

        init(from decoder: any Decoder) throws {
            let context = decoder.userInfo[RecordingReader.contextKey] as! Context
            let container: KeyedDecodingContainer<CodingKeys>
            do {
                container = try decoder.container(keyedBy: CodingKeys.self)
                seq = try container.decode(UInt64.self, forKey: .seq)
                time = try container.decode(String.self, forKey: .time)
                typeName = try container.decode(String.self, forKey: .type)
                dropped = try container.decodeIfPresent(Bool.self, forKey: .dropped) ?? false
                isCheckpoint = try container.decodeIfPresent(Bool.self, forKey: .checkpoint) ?? false
                isStep = container.contains(.state)
                if !isStep, !container.contains(.values) {
                    throw DecodingError.keyNotFound(
                        CodingKeys.state,
                        DecodingError.Context(codingPath: [], debugDescription: "neither a state nor values"))
                }
            } catch {
                throw Problem.fields(error)
            }
            let skipped = context.skipped.contains(typeName)
            guard skipped || context.types[typeName] != nil else {
                throw Problem.unknownType(typeName)
            }
            type = context.types[typeName]
            var values: [String: any Sendable]?
            var unrecorded: [String: String] = [:]
            var problems: [(label: String, reason: String)] = []
            if isStep {
                do {
                    state = try type.map { try $0.decode(container.superDecoder(forKey: .state)) }
                } catch {
                    throw Problem.state(type: typeName, error)
                }
            } else {
                state = nil
                let variables = context.variables[typeName] ?? [:]
                if !skipped, !((try? container.decodeNil(forKey: .values)) ?? false) {
                    var decoded: [String: any Sendable] = [:]
                    do {
                        let nested = try container.nestedContainer(keyedBy: Label.self, forKey: .values)
                        for key in nested.allKeys {
                            guard let variable = variables[key.stringValue] else {
                                problems.append(
                                    (
                                        key.stringValue,
                                        "is in the recording, and the store has no Variable of that name now (renamed or "
                                            + "removed since the recording?)"
                                    ))
                                continue
                            }
                            do {
                                decoded[key.stringValue] = try variable.decodeValue(
                                    from: nested.superDecoder(forKey: key))
                            } catch is NotCodable {
                                problems.append(
                                    (key.stringValue, "is of type \(variable.elementTypeName), which is not Decodable"))
                            } catch {
                                problems.append(
                                    (
                                        key.stringValue,
                                        "does not decode as \(variable.elementTypeName) (a case or a field renamed or "
                                            + "changed since the recording?): \(RecordingReader.describe(error))"
                                    ))
                            }
                        }
                        unrecorded = try container.decodeIfPresent([String: String].self, forKey: .unrecorded) ?? [:]
                    } catch {
                        throw Problem.fields(error)
                    }
                    values = decoded
                }
            }
            self.values = values
            self.unrecorded = unrecorded
            self.problems = problems
        }
    }

    private func decode(_ data: Data) throws(DispatchRecordingError) -> Item {
        let line: RecordedLine
        do {
            line = try decoder.decode(RecordedLine.self, from: data)
        } catch RecordedLine.Problem.unknownType(let name) {
            let known = recordedTypes.map { "'\($0)'" }.joined(separator: ", ")
            throw failure(
                "a state of type '\(name)', which is not one of the types the header names (\(known)): the file was "
                    + "changed since it was recorded")
        } catch RecordedLine.Problem.state(let name, let error) {
            throw failure(
                "the \(name) state does not decode (a case or a field renamed or changed since the recording?): "
                    + "\(Self.describe(error)); the line: \(Self.excerpt(data))")
        } catch RecordedLine.Problem.fields(let error) {
            throw failure("line \(lineNumber) is not a recorded dispatch: \(Self.describe(error))")
        } catch {
            // Not JSON: the parser's error, before any field.
            throw failure("line \(lineNumber) is not a recorded dispatch: \(Self.describe(error))")
        }
        guard let seconds = RecordingFormat.seconds(fromTimestamp: line.time) else {
            throw failure("the time '\(line.time)' is not a UTC time")
        }
        guard line.isStep else {
            if lastSequence == nil, line.seq > 0 {
                // The values a replay starts from name the step they come before: the first
                // step must be that one, or the steps between were not recorded (a state
                // that did not encode, a drop), and the replay would go on from values that
                // are not the ones it started from.
                lastSequence = line.seq - 1
            }
            return .values(
                Values(
                    line: lineNumber, typeName: line.typeName, isCheckpoint: line.isCheckpoint, values: line.values,
                    unrecorded: line.unrecorded, problems: line.problems))
        }
        if let last = lastSequence, last == .max || line.seq != last + 1 {
            let reason =
                last != .max && line.seq > last
                ? "dispatches \(last + 1) to \(line.seq - 1) were not recorded (the sequence jumps from \(last) to "
                    + "\(line.seq): the recorder dropped them, falling behind or unable to encode or write them, and "
                    + "reported it)"
                : "the sequence goes back from \(last) to \(line.seq): not one recording"
            throw failure(reason)
        }
        lastSequence = line.seq
        let step = DispatchFilePlayer.Step(
            line: lineNumber, sequence: line.seq, time: Date(timeIntervalSince1970: seconds), typeName: line.typeName,
            state: line.state, wasDropped: line.dropped, isSkipped: skipped.contains(line.typeName))
        return .step(step, line.type)
    }

    /// The start of a line, for a message.
    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(160), as: UTF8.self)
        return data.count > 160 ? "\(text)…" : text
    }

    /// What a decoder rejected, and where.
    static func describe(_ error: any Error) -> String {
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
