public import FluxCapacitor
public import Foundation

/// Plays back a recording a ``DispatchFileRecorder`` wrote, into the stores of a
/// dispatcher: first the values the recorded stores started from, then the recorded states,
/// in order, each dispatched again as its action's `invoke` did.
///
/// Into an app's own stores (to see a user's session where it ended, or go on from there):
///
/// ```swift
/// let player = DispatchFilePlayer(
///     contentsOf: URL(fileURLWithPath: "/tmp/session.jsonl"),
///     playing: [.state(Dispatcher.Favorite.self, named: "Favorite")])
/// try player.play(through: 12)  // the stores, as after step 12
/// ```
///
/// In a test, `DispatchReplay` (FluxCapacitorTesting) wraps a player and fails the test
/// where a player throws.
///
/// **Where the session started.** The player holds the live store of each type it plays
/// (made in its dispatcher if there is none) and, before the first step, sets each
/// `Variable` of it to the value the recording started from: what persistence restored in
/// the recorded app, what was set before recording started. A store the app made while
/// recording gets the values it started with before the step that followed. So the stores
/// end where the user's did, or the player throws naming what it cannot restore: a value
/// whose type is not `Codable` that differs from the player's store's, a property the
/// recording has and the store has not (or the reverse), a recording whose start was cut
/// off.
///
/// **Only states are played, never side effects**: an action's network call is not made
/// again; what it dispatched is. A state that no live store received in the app
/// (`"dropped"`) is not dispatched again, and the states of a type named in `skipping` are
/// not decoded nor dispatched: both come back as steps that say so.
///
/// **A line it cannot use throws** a ``DispatchRecordingError`` that names the line and the
/// reason, and the player stops there: no later state is dispatched, since it would follow
/// one that is missing. That is: a file that is not a recording, or of another version of
/// the format; a line that is not JSON; a type the player was not given (nor told to skip);
/// a state or value that does not decode (a case or a field renamed or changed since); a
/// gap in the sequence numbers (the recorder dropped dispatches, and said so when it did);
/// a last line cut short (the app stopped while writing it); a line longer than
/// `maximumLineLength`; a step past the end.
///
/// The file is read as it is played, line by line, so a file of any size takes the memory
/// of one line. Use a player from the task that made it.
public final class DispatchFilePlayer {
    /// One recorded step.
    public struct Step {
        /// The line's number in the file, from 1 (the header).
        public let line: Int
        /// The dispatch's sequence number in the recording, from 1.
        public let sequence: UInt64
        /// When the recorded app dispatched it.
        public let time: Date
        /// The name of its type, as in the file.
        public let typeName: String
        /// The state, as dispatched again; `nil` for a type skipped on purpose.
        public let state: (any DispatchState)?
        /// Whether no store of its type was alive in the recorded app, so that it was
        /// dropped there: it is not dispatched again.
        public let wasDropped: Bool
        /// Whether its type is one the player skips (`skipping:`): not decoded, not
        /// dispatched.
        public let isSkipped: Bool
    }

    /// The file being played.
    public let file: URL

    /// How many states were dispatched again so far (steps skipped or dropped are not).
    public private(set) var playedCount = 0

    private let types: [String: PlayedType]
    private let skipped: Set<String>
    private let dispatcher: Dispatcher
    private let reader: RecordingReader
    /// The live store of each type played, held so that it lives as long as the player.
    private var stores: [String: (store: AnyObject, variables: [(label: String, variable: any StoreVariable)])] = [:]
    /// The recording's first values of each type, until its first step.
    private var start: [String: RecordingReader.Values] = [:]
    /// Stores made before the first step, whose values come after the start's.
    private var madeBeforeStart: [RecordingReader.Values] = []
    private var hasStarted = false
    private var lastStep: Step?
    private var lookahead: (step: Step, type: PlayedType?)?
    private var isDone = false

    /// A player of `file`, into `dispatcher`'s stores, of the states of `types`.
    ///
    /// ```swift
    /// let player = DispatchFilePlayer(
    ///     contentsOf: URL(fileURLWithPath: "/tmp/session.jsonl"),
    ///     playing: [.state(Dispatcher.Favorite.self, named: "Favorite")],
    ///     skipping: ["Analytics"])
    /// ```
    ///
    /// It makes (or finds) the live store of each type now; nothing is read until ``next()``,
    /// ``play(through:)`` or ``playAll()``.
    ///
    /// - Parameters:
    ///   - file: A file a ``DispatchFileRecorder`` wrote.
    ///   - types: The state types to play (`Decodable` ones), with the names the recorder
    ///     gave them: the recorder's list does.
    ///   - skipped: The names of recorded types to skip on purpose: their steps are read and
    ///     returned, not decoded, not dispatched, and their stores are not restored.
    ///   - dispatcher: Where to play; by default the current one.
    ///   - maximumLineLength: The longest line read, in bytes (16 MiB by default): past
    ///     it the player throws, rather than read a file that is not a recording into memory.
    public convenience init(
        contentsOf file: URL,
        playing types: [DispatchFileRecorder.RecordedType],
        skipping skipped: Set<String> = [],
        into dispatcher: Dispatcher = .current,
        maximumLineLength: Int = 16 << 20
    ) {
        var played: [PlayedType] = []
        var notDecodable: [String] = []
        for type in types {
            if let type = type.played {
                played.append(type)
            } else {
                notDecodable.append(type.name)
            }
        }
        self.init(
            contentsOf: file, types: played, skipping: skipped, into: dispatcher,
            maximumLineLength: maximumLineLength, notDecodable: notDecodable)
    }

    /// A player of `types` given as a replay (FluxCapacitorTesting) gives them.
    package init(
        contentsOf file: URL,
        types: [PlayedType],
        skipping skipped: Set<String>,
        into dispatcher: Dispatcher,
        maximumLineLength: Int,
        notDecodable: [String] = []
    ) {
        guard Set(types.map(\.name)).count == types.count else {
            fatalError(
                "DispatchFilePlayer: two played types have one name. Give each the name it was recorded with, "
                    + ".state(_:named:).")
        }
        self.file = file
        self.types = Dictionary(uniqueKeysWithValues: types.map { ($0.name, $0) })
        self.skipped = skipped
        self.dispatcher = dispatcher
        reader = RecordingReader(
            path: file.path, types: self.types, skipped: skipped, maximumLineLength: maximumLineLength,
            notDecodable: notDecodable)
        Dispatcher.withCurrent(dispatcher) {
            for type in types where !skipped.contains(type.name) {
                let store = type.instantiateStore()
                stores[type.name] = (store, StoreVariables.of(store))
            }
        }
        reader.variables = stores.mapValues {
            Dictionary($0.variables.map { ($0.label, $0.variable) }) { first, _ in first }
        }
    }

    /// Plays the next recorded step and returns it; `nil` at the end of the file. Before the
    /// first step it restores the values the recording started from (at the end of a file
    /// with no step too).
    ///
    /// ```swift
    /// while let step = try player.next() {
    ///     print(step.sequence, step.typeName)
    /// }
    /// ```
    ///
    /// - Returns: The step played, or `nil` when there is none left.
    /// - Throws: A ``DispatchRecordingError`` naming the line the player cannot use; then
    ///   it stops, and later calls return `nil`.
    @discardableResult
    public func next() throws(DispatchRecordingError) -> Step? {
        guard let (step, type) = try peek() else { return nil }
        lookahead = nil
        if let state = step.state, let type, !step.wasDropped {
            Dispatcher.withCurrent(dispatcher) {
                type.dispatch(state)
            }
            playedCount += 1
        }
        lastStep = step
        return step
    }

    /// Plays up to and including step `sequence`, and returns it: the stores are then as
    /// they were after that step in the recorded app. The step before the recording's
    /// first (step 0 of a recording that starts at 1) is its start: the values restored,
    /// nothing dispatched, `nil` returned.
    ///
    /// ```swift
    /// let step = try player.play(through: 12)
    /// ```
    ///
    /// - Parameter sequence: The step to stop after.
    /// - Returns: That step; `nil` for the start.
    /// - Throws: A ``DispatchRecordingError`` for a step not in the recording (past its end,
    ///   before its first step, played already), or a line the player cannot use.
    @discardableResult
    public func play(through sequence: UInt64) throws(DispatchRecordingError) -> Step? {
        try play(through: sequence, beforeItsStep: {})
    }

    /// ``play(through:)``, calling `beforeItsStep` right before step `sequence` is
    /// dispatched (a replay reads the stores' values then).
    package func play(
        through sequence: UInt64, beforeItsStep: () -> Void
    ) throws(DispatchRecordingError) -> Step? {
        if let lastStep, sequence <= lastStep.sequence {
            guard sequence == lastStep.sequence else {
                throw reader.failure(
                    "step \(sequence) was played already: the player is at step \(lastStep.sequence) (a player goes "
                        + "forward only; make a new one to go back)", aboutALine: false)
            }
            return lastStep
        }
        while true {
            guard let (step, _) = try peek() else {
                guard let lastStep else {
                    if sequence == 0 { return nil }
                    throw reader.failure(
                        "step \(sequence) is past the end: the recording has no steps", aboutALine: false)
                }
                throw reader.failure(
                    "step \(sequence) is past the end: the recording's last step is \(lastStep.sequence)",
                    aboutALine: false)
            }
            if lastStep == nil, sequence < step.sequence {
                guard sequence == step.sequence - 1 else {
                    throw reader.failure(
                        "step \(sequence) is not in the recording: it keeps the steps from \(step.sequence) on (the "
                            + "recorder's ring let go of the earlier ones); step \(step.sequence - 1) is its start",
                        aboutALine: false)
                }
                return nil
            }
            if step.sequence == sequence {
                beforeItsStep()
            }
            let played = try next()
            if played?.sequence == sequence {
                return played
            }
        }
    }

    /// Plays every step left, in order.
    ///
    /// ```swift
    /// try player.playAll()
    /// ```
    ///
    /// - Returns: How many steps this call played (skipped and dropped ones included).
    /// - Throws: A ``DispatchRecordingError`` at the first line the player cannot use.
    @discardableResult
    public func playAll() throws(DispatchRecordingError) -> Int {
        var count = 0
        while try next() != nil {
            count += 1
        }
        return count
    }

    /// The next step, read but not yet played; before the first step, the start is
    /// restored. `nil` at the end.
    package func upcoming() throws(DispatchRecordingError) -> Step? {
        try peek()?.0
    }

    /// The most bytes the reader held at once, for the tests of memory.
    package var peakBufferedBytes: Int {
        reader.peakBufferedBytes
    }

    /// The live stores the player holds, by the name of their state type.
    package var playedStores: [(typeName: String, store: AnyObject)] {
        stores.sorted { $0.key < $1.key }.map { ($0.key, $0.value.store) }
    }

    // MARK: Reading

    /// The next step, read (and, if it is the first, the start restored) but not yet
    /// dispatched; `nil` at the end.
    private func peek() throws(DispatchRecordingError) -> (Step, PlayedType?)? {
        if let lookahead { return lookahead }
        guard !isDone else { return nil }
        do throws(DispatchRecordingError) {
            while true {
                switch try reader.next() {
                case nil:
                    isDone = true
                    if !hasStarted {
                        try restoreStart(firstStepLine: nil)
                    }
                    return nil
                case .values(let values):
                    try take(values)
                case .step(let step, let type):
                    if !hasStarted {
                        try restoreStart(firstStepLine: step.line)
                    }
                    lookahead = (step, type)
                    return lookahead
                }
            }
        } catch {
            isDone = true
            throw error
        }
    }

    /// A values line: the start's, or a store made while recording (restored at once).
    /// Later checkpoints are what the recorder's ring cuts at, and are not restored: the
    /// stores already hold them.
    private func take(_ values: RecordingReader.Values) throws(DispatchRecordingError) {
        guard stores[values.typeName] != nil else { return }
        if hasStarted {
            if !values.isCheckpoint {
                try restore(values)
            }
        } else if values.isCheckpoint {
            start[values.typeName] = values
        } else {
            madeBeforeStart.append(values)
        }
    }

    /// Restores the values the recording starts from, before its first step (at
    /// `firstStepLine`, or none).
    private func restoreStart(firstStepLine: Int?) throws(DispatchRecordingError) {
        hasStarted = true
        let missing = reader.recordedTypes.filter { stores[$0] != nil && start[$0] == nil }
        if !missing.isEmpty {
            let names = missing.map { "'\($0)'" }.joined(separator: ", ")
            let place = firstStepLine.map { "before its first step, at line \($0)" } ?? "at all"
            throw reader.failure(
                "the start is missing: the recording has no values of the \(names) store(s) \(place), so a replay "
                    + "would start from the stores' defaults, not from where the session did (the file was cut, or "
                    + "written by hand); record the session again",
                line: firstStepLine ?? 1)
        }
        for name in reader.recordedTypes {
            if let values = start[name] {
                try restore(values)
            }
        }
        for values in madeBeforeStart {
            try restore(values)
        }
        start = [:]
        madeBeforeStart = []
    }

    /// Sets the store's `Variable`s to `values`, or throws naming what it cannot restore.
    private func restore(_ values: RecordingReader.Values) throws(DispatchRecordingError) {
        guard let recorded = values.values, let (store, variables) = stores[values.typeName] else {
            // No store of the type was alive in the recorded app: nothing to restore.
            return
        }
        let storeName = String(describing: type(of: store))
        func name(_ label: String) -> String { "\(storeName).\(StoreVariables.displayName(label))" }
        if let problem = values.problems.first {
            throw reader.failure("\(name(problem.label)) \(problem.reason)", line: values.line)
        }
        var decoded: [(any StoreVariable, any Sendable)] = []
        for (label, variable) in variables {
            if let value = recorded[label] {
                decoded.append((variable, value))
            } else if let text = values.unrecorded[label] {
                let current = variable.currentValue.map { RecordingFormat.describe($0.value) } ?? "nil"
                guard current == text else {
                    throw reader.failure(
                        "cannot restore \(name(label)): its type, \(variable.elementTypeName), is not Codable, so the "
                            + "recording has only its description, \(text), and the store has \(current)",
                        line: values.line)
                }
            } else {
                throw reader.failure(
                    "the recording has no value of \(name(label)) (a property added since the recording?), so the "
                        + "replay cannot say what it started from",
                    line: values.line)
            }
        }
        Dispatcher.withCurrent(dispatcher) {
            for (variable, value) in decoded {
                variable.restore(value)
            }
        }
    }
}

/// A state type a player decodes and dispatches, and the store it restores.
@usableFromInline
package struct PlayedType: Sendable {
    package let name: String
    let decode: @Sendable (any Decoder) throws -> any DispatchState
    let dispatch: @Sendable (any DispatchState) -> Void
    /// The live store of the state's store type in the current dispatcher, or a new one.
    let instantiateStore: @Sendable () -> AnyObject

    /// Decodes the lines named `name` as `type`, with its `Decodable` conformance.
    package init<State: DispatchState & Decodable & SendableMetatype>(_ type: State.Type, named name: String) {
        self.name = name
        decode = { decoder in try State(from: decoder) }
        dispatch = { state in
            // Decoded by `decode` above, as this type.
            Replaying<State>().invoke(state as! State)
        }
        instantiateStore = { State.RelatedStoreType.instantiate() }
    }

    /// `type` as a player decodes it, if it is `Decodable`.
    @usableFromInline
    init?<State: DispatchState & SendableMetatype>(decodable type: State.Type, named name: String) {
        guard type is any Decodable.Type else { return nil }
        self.name = name
        decode = { decoder in
            // `State` is `Decodable`, checked above.
            try (State.self as! any Decodable.Type).init(from: decoder) as! State
        }
        dispatch = { state in Replaying<State>().invoke(state as! State) }
        instantiateStore = { State.RelatedStoreType.instantiate() }
    }
}

/// Dispatches a played state, as the recorded app's action did.
private struct Replaying<State: DispatchState>: Actionable {
    typealias DispatchStateType = State
}

// A player hands out the states it decoded, which need not be Sendable.
@available(*, unavailable)
extension DispatchFilePlayer: Sendable {}

@available(*, unavailable)
extension DispatchFilePlayer.Step: Sendable {}
