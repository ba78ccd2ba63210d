public import FluxCapacitor
public import Foundation

/// Records the dispatches of a dispatcher to a file, one JSON line each, with the values the
/// stores started from, keeping the last ones: what a user did, for a bug report, that an
/// app plays back with ``DispatchFilePlayer`` and a test with `DispatchReplay`
/// (FluxCapacitorTesting).
///
/// Turn it on where you want it (a "report a problem" switch, or always: a release build can
/// leave it on), naming the state types to record:
///
/// ```swift
/// let recorder = try DispatchFileRecorder(
///     writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
///     recording: [.state(Dispatcher.Favorite.self, named: "Favorite")],
///     keepingAtMost: 5_000)
/// // … the app runs …
/// recorder.stop()  // or let it go: it stops when it goes away
/// ```
///
/// (Let go of inside a dispatch, it stops on its own queue, soon after.) It throws only
/// when another recorder, in this process or another, records to the same file.
///
/// **Where the session started.** The file starts with the values of the recorded types'
/// stores when recording starts (each `Variable` they hold, by property name: what
/// persistence restored at launch, what was set before), and says what a store made while
/// recording started from. A replay restores them before its first step, so it ends where
/// the user was, not where fresh stores would.
///
/// **The file** ([JSON Lines](https://jsonlines.org)): a header line, then values lines and
/// one line per dispatch of a recorded type, in dispatch order (the long lines wrapped
/// here):
///
/// ```text
/// {"format":"FluxCapacitor dispatch recording","version":2,"types":["Favorite"]}
/// {"seq":1,"time":"2026-11-26T05:36:16.120Z","type":"Favorite","checkpoint":true,
///   "values":{"_favorites":[]}}
/// {"seq":1,"time":"2026-11-26T05:36:16.123Z","type":"Favorite",
///   "state":{"add":{"_0":{"name":"hoverboard"}}}}
/// ```
///
/// `seq` counts the dispatches of recorded types from 1, `time` is when the store was about
/// to reduce the state (UTC, to the millisecond), `type` the name of its ``RecordedType``,
/// and `state` the state as its `Encodable` conformance writes it with `JSONEncoder`; a
/// state dropped for want of a live store is recorded with `"dropped":true`. A values line
/// holds a store's values before step `seq` (`null` when no store of the type was alive).
/// The file is made readable by its owner only; a file already there is kept as
/// `session.previous.jsonl` (replacing an older one), so the recording of a session that
/// crashed survives the next launch.
///
/// **The last ones.** The file never holds more than `keepingAtMost` dispatches: every
/// `keepingAtMost / 2` dispatches the recorder writes down the stores' values (a
/// checkpoint), and when the file would pass the limit it is rewritten from its earliest
/// checkpoint that leaves at most that many (atomically, as ``FileStorage`` writes a slot).
/// So a long session stays small, holds the last `keepingAtMost / 2` to `keepingAtMost`
/// dispatches, and still replays from where its first one started.
///
/// **Cheap enough to leave on.** On the dispatching thread a recorded dispatch costs a
/// look-up of the type, the time and an append to a buffer under a lock: no allocation, and
/// less than a plain dispatch again (`Benchmarks/instructions --filter dispatchRecorder` prints the
/// figures). The recorder's own queue encodes and writes: at once when it is idle, so a
/// process killed at any moment loses only the last few states, and in batches when it is
/// busy. A dispatch never waits for the disk. If the writer falls behind and the buffer
/// holds `bufferCapacity` states, later dispatches are not recorded until it catches up:
/// they are counted (``Statistics/droppedWhileBehind``) and their sequence numbers are
/// skipped, so a replay names the gap. A dispatcher with no recorder runs no code for one.
///
/// **What goes wrong is reported, never a crash**, through `onError`, as a
/// ``DispatchRecordingError``, on a queue of the recorder's, and the app goes on:
///
/// - a dispatch of a type not in `recording`: counted, and reported once per type;
/// - a state whose encoding throws: counted, and reported once per type;
/// - falling behind: counted, and reported once;
/// - a file or folder that vanished while recording: made again, and recording goes on
///   from the stores' values then; reported once;
/// - a full disk: the oldest lines are dropped to keep the newest; reported once;
/// - a file that cannot be written (no permission): reported when writing starts failing,
///   again after it worked again; the lines are counted as not written, and writing goes
///   on with the next batch.
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

        @usableFromInline
        let identifier: ObjectIdentifier
        @usableFromInline
        let storeIdentifier: ObjectIdentifier
        /// Makes the tape's buffer of the states waiting for the writer, of this type.
        @usableFromInline
        let makeBuffer: @Sendable (Int) -> DispatchTapeBuffer
        @usableFromInline
        let liveStore: @Sendable (Dispatcher) -> AnyObject?
        /// Encodes the writer's side of the buffer, in one array, and empties it.
        @usableFromInline
        let encode: @Sendable (DispatchTapeBuffer, JSONEncoder) -> EncodedStates
        /// How a ``DispatchFilePlayer`` decodes and dispatches it; `nil` if the state is not
        /// `Decodable`.
        @usableFromInline
        let played: PlayedType?

        @usableFromInline
        init(
            name: String, identifier: ObjectIdentifier, storeIdentifier: ObjectIdentifier,
            makeBuffer: @escaping @Sendable (Int) -> DispatchTapeBuffer,
            liveStore: @escaping @Sendable (Dispatcher) -> AnyObject?,
            encode: @escaping @Sendable (DispatchTapeBuffer, JSONEncoder) -> EncodedStates, played: PlayedType?
        ) {
            self.name = name
            self.identifier = identifier
            self.storeIdentifier = storeIdentifier
            self.makeBuffer = makeBuffer
            self.liveStore = liveStore
            self.encode = encode
            self.played = played
        }

        /// Records the dispatches of `type`, encoded with its `Encodable` conformance (and,
        /// if it is `Decodable` too, plays them back with a ``DispatchFilePlayer``).
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
        /// - Returns: The type, to pass to ``DispatchFileRecorder/init(writingTo:recording:keepingAtMost:dispatcher:bufferCapacity:onError:)``.
        @inlinable
        public static func state<State: DispatchState & Encodable & Sendable>(
            _ type: State.Type, named name: String? = nil
        ) -> RecordedType {
            // Inlinable, so that the writer's encoding is specialized for `State` in the
            // caller's module.
            let name = name ?? String(reflecting: type)
            return RecordedType(
                name: name, identifier: ObjectIdentifier(type),
                storeIdentifier: ObjectIdentifier(State.RelatedStoreType.self),
                makeBuffer: { capacity in TypedDispatchTapeBuffer<State>(capacity: capacity) },
                liveStore: { dispatcher in dispatcher.liveStoreHoldingMutex(of: State.RelatedStoreType.self) },
                encode: { buffer, encoder in
                    // The recorder made this buffer with `makeBuffer`, for this type.
                    let buffer = unsafeDowncast(buffer, to: TypedDispatchTapeBuffer<State>.self)
                    guard !buffer.taken.isEmpty else { return EncodedStates() }
                    defer { buffer.taken.removeAll(keepingCapacity: true) }
                    return EncodedStates.encoding(buffer.taken, with: encoder)
                },
                played: PlayedType(decodable: type, named: name))
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
        /// Dispatches encoded but not written: the file could not be written, or was made
        /// again and starts at a later checkpoint.
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

    /// Starts recording the dispatches of `dispatcher` of the given state types to `file`,
    /// with the values their stores hold now.
    ///
    /// ```swift
    /// let recorder = try DispatchFileRecorder(
    ///     writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
    ///     recording: [.state(Dispatcher.Favorite.self)])
    /// ```
    ///
    /// - Parameters:
    ///   - file: Where to write; made (with its folder) now. A file there already is kept
    ///     as `<name>.previous.<extension>`.
    ///   - types: The state types to record; a dispatch of another type is counted and
    ///     reported once.
    ///   - limit: The most dispatches the file holds (at least 1); 10,000 by default.
    ///   - dispatcher: The dispatcher to hear; by default the current one.
    ///   - bufferCapacity: The most states waiting for the writer; past it, dispatches
    ///     are dropped and counted. 1,024 by default (room for each is reserved: two words
    ///     and the state's size, twice).
    ///   - onError: Hears what goes wrong; prints to standard error by default. It runs on a
    ///     queue of the recorder's, possibly while a dispatch is running: do not dispatch or
    ///     instantiate stores from it synchronously; hop to another queue or a `Task`.
    /// - Throws: A ``DispatchRecordingError`` if another recorder, of this process or
    ///   another, records to `file`: two would interleave two sessions in one file.
    @preconcurrency
    public init(
        writingTo file: URL,
        recording types: [RecordedType],
        keepingAtMost limit: Int = 10_000,
        dispatcher: Dispatcher = .current,
        bufferCapacity: Int = 1_024,
        onError: @escaping @Sendable (DispatchRecordingError) -> Void = { error in
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    ) throws(DispatchRecordingError) {
        guard Set(types.map(\.name)).count == types.count else {
            fatalError(
                "DispatchFileRecorder: two recorded types have one name. Give each a name of its own with "
                    + ".state(_:named:).")
        }
        self.file = file
        let core = try RecordingCore(
            url: file, limit: limit, types: types, bufferCapacity: max(bufferCapacity, 1), dispatcher: dispatcher,
            onError: onError)
        self.core = core
        subscription = core.start(hearing: dispatcher)
    }

    deinit {
        subscription.clean()
        // Let go of inside a dispatch (a reduce, an observer, a dispatch-log handler), this
        // thread holds a dispatcher's mutex: the recorder's queue finishes the file later,
        // and nothing here waits (see RecordingCore's "Waits"). What was heard is still
        // written, unless the process ends first: call `flush()` or `stop()` before it
        // exits.
        core.finish(waiting: !Dispatcher.isDispatchingOnThisThread)
    }

    /// What the recorder did so far.
    public var statistics: Statistics {
        core.statistics
    }

    /// Writes every dispatch heard so far and flushes the file to disk (`F_FULLFSYNC` on
    /// Darwin); returns once it is written or its error reported. Call it when the app
    /// goes to the background (iOS ends apps with `SIGKILL`, and a power cut loses what the
    /// disk has not flushed) or before sending the file.
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

    /// Stops recording, writes what was heard, closes the file and lets another recorder
    /// have it, and returns once that is done and `onError` has heard what went wrong
    /// (inside a dispatch, once it is done: as ``flush()``). The recorder does this when it
    /// goes away (let go of inside a dispatch, later, on its own queue, waiting for nothing);
    /// calling it again does nothing.
    ///
    /// ```swift
    /// recorder.stop()
    /// ```
    ///
    /// Every recorder stops with `stop()`, as `DispatchRecorder` and `ValueRecorder` of
    /// FluxCapacitorTesting do.
    public func stop() {
        subscription.clean()
        core.finish(waiting: true)
    }
}
