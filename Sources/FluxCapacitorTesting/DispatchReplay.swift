public import FluxCapacitor
import FluxCapacitorPersistence
public import Foundation
import Testing

/// Replays, in a test, a session a `DispatchFileRecorder` (FluxCapacitorPersistence)
/// recorded: restores the values the recorded stores started from, then dispatches the
/// recorded states in order into a dispatcher of the test's own, so that the test can
/// assert what the stores hold after it, or after any step, and see what each step changed.
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
/// Step by step, each step with the stores' values after it and what it changed, printed
/// as ``DispatchTester`` prints values (`−` before, `+` after):
///
/// ```swift
/// while let step = replay.next() {
///     print(step.sequence, step.changes)
/// }
/// ```
///
/// Or straight to a step, and a page to look at (attached to the test):
///
/// ```swift
/// let step = replay.replay(through: 2)
/// print(step?.values ?? "the start")
/// replay.attachTimeline()
/// ```
///
/// Name the state types to decode, with the names the recorder gave them (the type's full
/// name by default), and the ones to skip on purpose (`skipping:`: their steps are
/// returned, marked skipped, not dispatched). The states go through `Dispatcher.current`
/// by default, which the `.isolatedDispatcher` trait makes the test's own. The replay holds
/// the live store of each type it decodes (made if there is none), restores it to what
/// the recording started from, and dispatches each state as the recorded app's `invoke`
/// did; a state that no store received in the app is not dispatched again. Only states are
/// replayed, never side effects: an action's network call is not made again; what it
/// dispatched is.
///
/// **Anything it cannot do fails the test** (through `reporter`, as ``DispatchTester``
/// does: a Swift Testing issue, or `XCTFail`), naming the line and the reason, and the
/// replay stops there: no later state is dispatched, since it would follow one that is
/// missing. That is: a file that is not a recording or is of another version of the
/// format, a recorded type the replay was not given nor told to skip, a start it cannot
/// restore (a value that does not decode, a property renamed since), a state that does not
/// decode, a gap in the sequence numbers, a last line cut short, a line longer than
/// `maximumLineLength`, a step past the end. A test that expects one wraps it in
/// `withKnownIssue`.
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

        let played: PlayedType

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
        /// - Returns: The type, to pass to ``DispatchReplay/init(contentsOf:decoding:skipping:into:maximumLineLength:reportingTo:)``.
        public static func state<State: DispatchState & Decodable & SendableMetatype>(
            _ type: State.Type, named name: String? = nil
        ) -> ReplayedType {
            let name = name ?? String(reflecting: type)
            return ReplayedType(name: name, played: PlayedType(type, named: name))
        }
    }

    /// One replayed step: the recorded state, and what the stores hold after it.
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
        /// Whether no store of its type was alive when it was recorded: it is not
        /// dispatched again.
        public let wasDropped: Bool
        /// Whether its type is one the replay skips (`skipping:`): not decoded, not
        /// dispatched.
        public let isSkipped: Bool

        let before: StoreValues
        let after: StoreValues

        /// The replayed stores' values after this step, one store after the other, printed
        /// as ``DispatchTester`` prints values:
        ///
        /// ```text
        /// FavoriteStore(
        ///   favorites: [
        ///     [0]: GitHub.Repository(
        ///       name: "flux-capacitor"
        ///     )
        ///   ]
        /// )
        /// ```
        public var values: String {
            after.dumps.map(\.text).joined(separator: "\n")
        }

        /// What this step changed, as a diff of the stores' values before and after it
        /// (`−` before, `+` after; the unchanged values of a changed store folded to a line
        /// each): empty when it changed nothing.
        ///
        /// ```text
        ///   FavoriteStore(
        ///     favorites: [
        ///       … (1 unchanged),
        /// +     [1]: GitHub.Repository(
        /// +       name: "hoverboard"
        /// +     )
        ///     ]
        ///   )
        /// ```
        public var changes: String {
            StoreValues.changes(from: before, to: after)
        }
    }

    /// The file being replayed.
    public let file: URL

    /// How many states were dispatched so far (steps skipped or dropped are not).
    public var replayedCount: Int {
        player.playedCount
    }

    /// Why the replay stopped before the end of the file, if it did; the failure was
    /// reported.
    public private(set) var failure: String?

    private let player: DispatchFilePlayer
    private let types: [ReplayedType]
    private let skipped: Set<String>
    private let maximumLineLength: Int
    private let reporter: IssueReporter
    /// The test that made the replay, which its failures name if it outlives it.
    private let madeIn: TestIdentity?
    private lazy var reading = StoreValues.Reading(stores: player.playedStores)

    /// A replay of `file` that decodes the states of `types`, into `dispatcher`.
    ///
    /// ```swift
    /// let replay = DispatchReplay(
    ///     contentsOf: recording,
    ///     decoding: [.state(Dispatcher.Favorite.self)]
    /// )
    /// ```
    ///
    /// It makes (or finds) the live store of each type now; nothing is read until
    /// ``next(fileID:filePath:line:column:)``, ``replay(through:fileID:filePath:line:column:)``
    /// or ``replayAll(fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - file: A file a `DispatchFileRecorder` wrote.
    ///   - types: The state types to decode; a recorded type neither given nor skipped
    ///     fails the replay at its first line.
    ///   - skipped: The names of recorded types to skip on purpose: their steps are
    ///     returned, marked ``Step/isSkipped``, not decoded, not dispatched.
    ///   - dispatcher: Where to replay; by default the current one.
    ///   - maximumLineLength: The longest line read, in bytes (16 MiB by default): past
    ///     it the replay fails, rather than read a file that is not a recording into memory.
    ///   - reporter: Where failures go; by default Swift Testing or XCTest, whichever runs
    ///     the test.
    public init(
        contentsOf file: URL,
        decoding types: [ReplayedType],
        skipping skipped: Set<String> = [],
        into dispatcher: Dispatcher = .current,
        maximumLineLength: Int = 16 << 20,
        reportingTo reporter: IssueReporter = .automatic
    ) {
        guard Set(types.map(\.name)).count == types.count else {
            fatalError(
                "DispatchReplay: two replayed types have one name. Give each the name it was recorded with, "
                    + ".state(_:named:).")
        }
        self.file = file
        self.types = types
        self.skipped = skipped
        self.maximumLineLength = maximumLineLength
        self.reporter = reporter
        madeIn = TestIdentity.current
        player = DispatchFilePlayer(
            contentsOf: file, types: types.map(\.played), skipping: skipped, into: dispatcher,
            maximumLineLength: maximumLineLength)
    }

    /// Dispatches the next recorded state and returns its step; `nil` at the end of the
    /// file, or at a line it cannot use (reported as a failure at this call). Before the
    /// first step it restores the values the recording started from.
    ///
    /// ```swift
    /// while let step = replay.next() {
    ///     print(step.line, step.typeName)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: The step replayed, or `nil` when there is none left.
    @discardableResult
    public func next(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Step? {
        let location = CallLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return reporting(at: location) { () throws(DispatchRecordingError) -> Step? in
            guard try player.upcoming() != nil else { return nil }
            let before = reading.read()
            guard let step = try player.next() else { return nil }
            return Step(step, before: before, after: reading.read())
        }
    }

    /// Replays up to and including step `sequence` (the recording's numbering, from 1) and
    /// returns it: the stores are then as the recorded app's were after it. The step before
    /// the recording's first (step 0, or the one before the first a long recording kept)
    /// is its start: the values restored, nothing dispatched, `nil` returned. A step not in
    /// the recording (past its end, before its start, replayed already) fails.
    ///
    /// ```swift
    /// let step = replay.replay(through: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - sequence: The step to stop after.
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: That step, or `nil` for the start or a failure.
    @discardableResult
    public func replay(
        through sequence: UInt64,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Step? {
        let location = CallLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return reporting(at: location) { () throws(DispatchRecordingError) -> Step? in
            var before: StoreValues?
            guard let step = try player.play(through: sequence, beforeItsStep: { before = reading.read() }) else {
                return nil
            }
            return Step(step, before: before ?? reading.read(), after: reading.read())
        }
    }

    /// Dispatches every recorded state left, in order; stops at a line it cannot use
    /// (reported as a failure at this call).
    ///
    /// ```swift
    /// replay.replayAll()
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: How many states this call dispatched.
    @discardableResult
    public func replayAll(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Int {
        let location = CallLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let before = player.playedCount
        _ = reporting(at: location) { () throws(DispatchRecordingError) -> Int in try player.playAll() }
        return player.playedCount - before
    }

    /// Writes a page that shows the whole recording (self-contained HTML: no network, no
    /// install): the steps in order, filterable by type and searchable, each with its
    /// state, what it changed and the stores' values after it, and the time since the step
    /// before. It replays the file again, from its start, into stores of its own (a
    /// dispatcher and an in-memory storage of its own), so it does not change the test's.
    ///
    /// ```swift
    /// try replay.writeTimeline(to: URL(fileURLWithPath: "/tmp/timeline.html"))
    /// ```
    ///
    /// A recording the replay cannot read to its end shows the steps before the line it
    /// stops at, and why.
    ///
    /// - Parameter url: Where to write the page.
    /// - Throws: The error of writing the file.
    public func writeTimeline(to url: URL) throws {
        try timelinePage().write(to: url, options: .atomic)
    }

    /// Writes the page of ``writeTimeline(to:)`` to a temporary file and attaches it to the
    /// test that runs (a Swift Testing attachment, which `swift test --attachments-path DIR`
    /// saves and Xcode shows); returns the file, whose path an XCTest test can print.
    ///
    /// ```swift
    /// replay.attachTimeline()
    /// ```
    ///
    /// - Parameters:
    ///   - name: The attachment's name; by default the recording's, as `.html`.
    ///   - fileID: Where the attachment (or a failure to write it) is recorded; the
    ///     caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: The page's file, or `nil` if it could not be written (reported as a
    ///   failure).
    @discardableResult
    public func attachTimeline(
        named name: String? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> URL? {
        let location = CallLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let pageName = name ?? file.deletingPathExtension().lastPathComponent + ".html"
        let page = timelinePage()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FluxCapacitor-timeline-\(UUID().uuidString)")
        let url = folder.appendingPathComponent(pageName)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try page.write(to: url, options: .atomic)
        } catch {
            reporter.fail(
                "could not write the timeline of \(file.lastPathComponent) to \(url.path): \(error)", at: location,
                origin: TesterOrigin(test: madeIn, location: location, testerName: "DispatchReplay"))
            return nil
        }
        if Test.current != nil {
            Attachment.record([UInt8](page), named: pageName, sourceLocation: location.sourceLocation)
        }
        return url
    }

    /// The most bytes the reader held at once, for the tests of memory.
    var peakBufferedBytes: Int {
        player.peakBufferedBytes
    }

    // MARK: Reporting

    /// Runs `body`; a failure is reported at `location`, kept in ``failure``, and `nil`
    /// returned.
    private func reporting<Result>(
        at location: CallLocation, _ body: () throws(DispatchRecordingError) -> Result?
    ) -> Result? {
        do {
            return try body()
        } catch {
            let message = "\(error); \(replayedCount) state(s) before it were replayed"
            failure = message
            reporter.fail(
                message, at: location,
                origin: TesterOrigin(test: madeIn, location: location, testerName: "DispatchReplay"))
            return nil
        }
    }

    private func timelinePage() -> Data {
        Timeline.page(
            of: file, types: types.map(\.played), skipping: skipped, maximumLineLength: maximumLineLength)
    }
}

extension DispatchReplay.Step {
    init(_ step: DispatchFilePlayer.Step, before: StoreValues, after: StoreValues) {
        line = step.line
        sequence = step.sequence
        time = step.time
        typeName = step.typeName
        state = step.state
        wasDropped = step.wasDropped
        isSkipped = step.isSkipped
        self.before = before
        self.after = after
    }
}

// A replay hands out the states it decoded, which need not be Sendable.
@available(*, unavailable)
extension DispatchReplay: Sendable {}

@available(*, unavailable)
extension DispatchReplay.Step: Sendable {}
