public import FluxCapacitor
public import Foundation

/// Records the dispatches of a dispatcher to a file, one JSON line each, keeping the last
/// ones: what a user did, for a bug report, that a test replays with `DispatchReplay`
/// (FluxCapacitorTesting).
///
/// Turn it on where you want it (a debug build, a "report a problem" switch), naming the
/// state types to record:
///
/// ```swift
/// let recorder = DispatchFileRecorder(
///     writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
///     recording: [.state(Dispatcher.Favorite.self, named: "Favorite")],
///     keepingAtMost: 5_000)
/// // … the app runs …
/// recorder.finish()  // or let it go: it finishes when it goes away
/// ```
///
/// (Let go of inside a dispatch, it finishes on its own queue, soon after.)
///
/// **The file** ([JSON Lines](https://jsonlines.org)): a header line, then one line per
/// dispatch of a recorded type, in dispatch order:
///
/// ```text
/// {"format":"FluxCapacitor dispatch recording","version":1}
/// {"seq":1,"time":"2026-11-26T05:36:16.123Z","type":"Favorite","state":{"add":{"_0":{"name":"hoverboard"}}}}
/// ```
///
/// `seq` counts the dispatches of recorded types from 1, `time` is when the store reduced
/// the state, or when it was dropped for want of a live store, which is recorded too (UTC,
/// to the millisecond), `type` the name of its ``RecordedType``, and
/// `state` the state as its `Encodable` conformance writes it with `JSONEncoder`. The file
/// is made readable by its owner only; a file already there is kept as
/// `session.previous.jsonl` (replacing an older one), so the recording of a session that
/// crashed survives the next launch.
///
/// **The last ones.** The file never holds more than `keepingAtMost` dispatches: when it
/// would, it is rewritten with the newest half (atomically, as ``FileStorage`` writes a
/// slot). So a long session stays small, and after the first `keepingAtMost` dispatches the
/// file holds the last `keepingAtMost / 2` to `keepingAtMost`.
///
/// **Off the dispatching thread.** A dispatch of a recorded type costs its dispatching
/// thread a look-up of the type, the time and an append to a buffer under a lock; the state
/// is encoded and written by the recorder's own serial queue, every `writeInterval` (or
/// sooner, once the buffer is half full). A dispatch never waits for the disk. If the
/// writer falls behind and the buffer holds `bufferCapacity` states, later dispatches are
/// not recorded until it catches up: they are counted (``Statistics/droppedWhileBehind``)
/// and their sequence numbers are skipped, so a replay names the gap. Nothing is recorded
/// with the recorder off, and a dispatcher with no recorder runs no code for one.
///
/// **What goes wrong is reported, never a crash.** Through `onError`, the path a
/// ``FileStorage`` reports through (a ``PersistenceError`` whose kind is
/// ``PersistenceError/Kind-swift.enum/writeFailed`` and whose slot is the file's name),
/// on a queue of the recorder's, and the app goes on:
///
/// - a dispatch of a type not in `recording`: counted, and reported once per type;
/// - a state whose encoding throws: counted, and reported once per type;
/// - falling behind: counted, and reported once;
/// - a file that cannot be written (a full disk, no permission): reported when writing
///   starts failing, again after it worked again; the lines are counted as not written,
///   and writing goes on with the next batch.
///
/// ``statistics`` has the counts. Use a recorder from any thread.
public final class DispatchFileRecorder: Sendable {
    /// A state type a recorder writes, and the name its lines carry.
    ///
    /// ```swift
    /// let types: [DispatchFileRecorder.RecordedType] = [
    ///     .state(Dispatcher.Favorite.self, named: "Favorite")
    /// ]
    /// ```
    public struct RecordedType: Sendable {
        /// The name written in each line's `type`: the one given, or Swift's full name of the
        /// type, `String(reflecting:)`: `(extension in MyApp):FluxCapacitor.Dispatcher.Favorite`
        /// for a state nested in `extension Dispatcher` in the module `MyApp`.
        public let name: String

        let identifier: ObjectIdentifier
        let encode: @Sendable (any DispatchState, JSONEncoder) throws -> Data

        /// Records the dispatches of `type`, encoded with its `Encodable` conformance.
        ///
        /// ```swift
        /// .state(Dispatcher.Favorite.self, named: "Favorite")
        /// ```
        ///
        /// The default name changes when the type is renamed or moved to another module,
        /// and files recorded before then no longer replay (the replay names the unknown
        /// type). Give a name of your own, and keep it, to keep old files readable.
        ///
        /// - Parameters:
        ///   - type: The state type; `Sendable`, since its states are encoded on the
        ///     recorder's queue.
        ///   - name: The name its lines carry; by default Swift's full name of the type.
        /// - Returns: The type, to pass to ``DispatchFileRecorder/init(writingTo:recording:keepingAtMost:dispatcher:bufferCapacity:writeInterval:onError:)``.
        public static func state<State: DispatchState & Encodable & Sendable>(
            _ type: State.Type, named name: String? = nil
        ) -> RecordedType {
            RecordedType(
                name: name ?? String(reflecting: type), identifier: ObjectIdentifier(type),
                encode: { state, encoder in
                    // The recorder hands each state to the type it matched by identifier.
                    try encoder.encode(state as! State)
                })
        }
    }

    /// What a recorder did so far: each dispatch it heard is counted once, in one of these.
    ///
    /// ```swift
    /// let counts = recorder.statistics
    /// print("\(counts.recorded) recorded, \(counts.droppedWhileBehind) dropped")
    /// ```
    public struct Statistics: Sendable, Hashable {
        /// Dispatches written to the file (some may have been rotated out since).
        public var recorded = 0
        /// Dispatches not recorded because the writer was behind (its buffer was full).
        public var droppedWhileBehind = 0
        /// Dispatches of a state type the recorder was not given.
        public var notRegistered = 0
        /// Dispatches whose encoding threw.
        public var notEncodable = 0
        /// Dispatches encoded but not written, because the file could not be written.
        public var notWritten = 0
        /// Dispatches in the buffer, waiting for the writer. (A batch the writer has taken is
        /// counted above once its write ends.)
        public var waiting = 0

        /// No dispatch yet.
        public init() {}
    }

    /// The file the dispatches are written to.
    public let file: URL

    private let core: RecordingCore
    private let subscription: Dust

    /// Starts recording the dispatches of `dispatcher` of the given state types to `file`.
    ///
    /// ```swift
    /// let recorder = DispatchFileRecorder(
    ///     writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
    ///     recording: [.state(Dispatcher.Favorite.self)])
    /// ```
    ///
    /// - Parameters:
    ///   - file: Where to write; made (with its folder) at the first write. A file there
    ///     already is kept as `<name>.previous.<extension>`.
    ///   - types: The state types to record; a dispatch of another type is counted and
    ///     reported once.
    ///   - limit: The most dispatches the file holds (at least 1); 10,000 by default.
    ///   - dispatcher: The dispatcher to hear; by default the current one.
    ///   - bufferCapacity: The most states waiting for the writer; past it, dispatches
    ///     are dropped and counted. 4,096 by default.
    ///   - writeInterval: How long a state may wait before it is written (100 ms by
    ///     default), unless the buffer is half full.
    ///   - onError: Hears what goes wrong; prints to standard error by default. It runs on a
    ///     queue of the recorder's, possibly while a dispatch is running: do not dispatch or
    ///     instantiate stores from it synchronously; hop to another queue or a `Task`.
    @preconcurrency
    public init(
        writingTo file: URL,
        recording types: [RecordedType],
        keepingAtMost limit: Int = 10_000,
        dispatcher: Dispatcher = .current,
        bufferCapacity: Int = 4_096,
        writeInterval: Duration = .milliseconds(100),
        onError: @escaping @Sendable (PersistenceError) -> Void = { error in
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    ) {
        precondition(
            Set(types.map(\.name)).count == types.count,
            "DispatchFileRecorder: two recorded types have one name. Give each a name of its own with "
                + ".state(_:named:).")
        self.file = file
        let core = RecordingCore(
            file: RecordingFile(path: file.path, limit: limit), types: types, bufferCapacity: max(bufferCapacity, 1),
            writeInterval: writeInterval, onError: onError)
        self.core = core
        subscription = dispatcher.observeDispatches { event in
            if event.phase != .willReduce {
                core.take(event.state)
            }
        }
    }

    deinit {
        subscription.clean()
        // Let go of inside a dispatch (a reduce, an observer, a dispatch-log handler), this
        // thread holds a dispatcher's mutex: the recorder's queue finishes the file later,
        // and nothing here waits (see RecordingCore's "Waits"). What was heard is still
        // written, unless the process ends first: call `flush()` or `finish()` before it
        // exits.
        core.finish(waiting: !Dispatcher.isDispatchingOnThisThread)
    }

    /// What the recorder did so far.
    public var statistics: Statistics {
        core.statistics
    }

    /// Writes every dispatch heard so far and flushes the file to disk (`F_FULLFSYNC` on
    /// Darwin); returns once it is written or its error reported. Call it when the app
    /// goes to the background (iOS ends apps with `SIGKILL`) or before sending the file.
    ///
    /// ```swift
    /// recorder.flush()
    /// ```
    ///
    /// Inside a dispatch (a `reduce(with:)`, a `.current` observer, a dispatch-log handler)
    /// it writes and flushes the file before it returns too, but does not wait for
    /// `onError` to hear what went wrong: `onError` may dispatch, and would wait for this
    /// thread.
    public func flush() {
        core.flush()
    }

    /// Stops recording, writes what was heard and closes the file, and returns once that is
    /// done and `onError` has heard what went wrong (inside a dispatch, once it is done:
    /// as ``flush()``). The recorder does this when it goes away (let go of inside a
    /// dispatch, later, on its own queue, waiting for nothing); calling it again does
    /// nothing.
    ///
    /// ```swift
    /// recorder.finish()
    /// ```
    public func finish() {
        subscription.clean()
        core.finish(waiting: true)
    }
}
