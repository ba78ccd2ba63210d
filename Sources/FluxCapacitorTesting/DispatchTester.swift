public import FluxCapacitor

/// Tests an action exhaustively: the test states, in order, each state it expects to be
/// dispatched, and the tester checks each against what was dispatched, waiting for it
/// when the action is asynchronous. A dispatch left unasserted fails the test when the
/// tester ends, naming it; a dispatch other than the one expected fails with a
/// line-by-line diff (`−` expected, `+` actual).
///
/// ```swift
/// @Test(.isolatedDispatcher)
/// func fetchingTurnsTheFlagOnAroundTheRepositories() async {
///     let tester = DispatchTester(of: Dispatcher.Repository.self)
///     let action = RepositoryAction(session: StubSession(found: [fluxCapacitor]))
///     Task { await action.fetchRepositories(ofUser: "marty") }
///
///     await tester.receive(.isRepositoryFetching(true))
///     await tester.receive(.addRepositories([fluxCapacitor]))
///     await tester.receive(.isRepositoryFetching(false))
/// }  // the tester ends here: nothing else may have been dispatched
/// ```
///
/// **What it hears.** Every state dispatched through `dispatcher` (by default
/// `Dispatcher.current`, which the `.isolatedDispatcher` trait makes the test's own) from
/// its creation on, of any state type, whether a live store received it or not. `State`
/// is the type that `receive(_:)` takes with a leading dot; the other types are asserted
/// with their full name (`receive(Dispatcher.Favorite.add(fluxCapacitor))`).
///
/// **Values.** ``track(_:named:fileID:filePath:line:column:)`` adds a store's value:
/// its changes must then be asserted too, in order, with ``TrackedValue/receive(_:timeout:isolation:fileID:filePath:line:column:)``.
///
/// **The end.** The tester ends when it goes away (at the end of the test that made
/// it) or at ``assertAllReceived(fileID:filePath:line:column:)``, and checks what was dispatched by
/// then: let the action end first (await it, or receive its last dispatch, as above).
/// What is left unasserted fails at the call to `assertAllReceived`, or, when the tester goes away,
/// at the last `receive` the test made (what was left came after it), or the line that
/// made the tester if it made none.
///
/// **Order.** Two dispatches that come the other way round from how two `receive`s expect
/// them fail once, as out of order, naming both, at the first of the two `receive`s; the
/// one that came first is what the next `receive` asserts.
///
/// **Exhaustivity.** With `exhaustivity: .off`, `receive` skips the dispatches before the
/// one it names, and those left at the end pass; `.off(showSkipped: true)` lists them.
///
/// **Failures** go to `reporter`: Swift Testing issues at the line of the failing call in
/// a Swift Testing test, `XCTFail` in an XCTest test (see ``IssueReporter``). None is
/// lost, and none is charged silently to another test. A tester kept past the test that
/// made it (by a detached task, a global, an `XCTestCase`'s property) and let go of while
/// another test runs fails that test, in a message that names the test that made the
/// tester and the line; let go of while no test runs, it says so on standard error, naming
/// its test, and the test process exits with a failure. A tester still alive when the test
/// run ends, whatever its reporter, never checked what it recorded: the test process says
/// so on standard error when it exits (naming the test and the line that made it) and exits
/// with a failure, although every test passed:
///
/// ```text
/// error: A DispatchTester<Dispatcher.Counter> made in the test
/// “CounterTests/incrementing()” at CounterTests/CounterTests.swift:12 was still
/// alive when the test run ended, so what it recorded was never checked. Let go of
/// it by the end of its test (a task, a global or an XCTestCase's property kept
/// it), or call assertAllReceived().
/// ```
///
/// In XCTest, let go of a tester kept in a property in `tearDown()`: XCTest keeps its test
/// case objects, and so their properties, until the run ends.
///
/// Use a tester from the task that made it.
public final class DispatchTester<State: DispatchState & Equatable> {
    private let recorder: DispatchRecorder
    private let dispatches: AssertionCursor<DispatchRecorder.Entry>
    private let settings: TesterSettings
    private var trackedValues: [any TrackedValueFinishing] = []
    /// Its key in ``LiveTesters``, while it is not finished.
    private let liveKey: Int
    private var isFinished = false

    /// Starts recording the dispatches of `dispatcher`.
    ///
    /// - Parameters:
    ///   - stateType: The state type that `receive` takes with a leading dot.
    ///   - dispatcher: The dispatcher to hear; by default the current one.
    ///   - exhaustivity: Whether every dispatch must be asserted (`.on`, the default).
    ///   - timeout: How long `receive` waits for a dispatch that has not come yet.
    ///   - reporter: Where failures go; by default Swift Testing or XCTest, whichever runs
    ///     the test.
    ///   - fileID: Where the tester is made: the line that a failure found when it goes
    ///     away is reported at, and that names it if it outlives its test.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public convenience init(
        of stateType: State.Type = State.self,
        dispatcher: Dispatcher = .current,
        exhaustivity: Exhaustivity = .on,
        timeout: Duration = .seconds(5),
        reportingTo reporter: IssueReporter = .automatic,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            dispatcher: dispatcher, exhaustivity: exhaustivity, timeout: timeout, reporter: reporter,
            madeIn: TestIdentity.current,
            at: CallLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// A tester made in the test `test` (the public `init` passes the current one) at `location`.
    init(
        dispatcher: Dispatcher = .current,
        exhaustivity: Exhaustivity = .on,
        timeout: Duration = .seconds(5),
        reporter: IssueReporter = .automatic,
        madeIn test: TestIdentity?,
        at location: CallLocation
    ) {
        recorder = DispatchRecorder(dispatcher: dispatcher)
        dispatches = AssertionCursor(
            buffer: recorder.storage,
            wording: Wording(
                one: "dispatch", many: "dispatches", mismatch: "Received a dispatch",
                nothingNew: "Nothing was dispatched after the last one asserted."),
            subject: \.state)
        let origin = TesterOrigin(
            test: test, location: location, testerName: "DispatchTester<\(typeName(State.self))>")
        settings = TesterSettings(exhaustivity: exhaustivity, timeout: timeout, reporter: reporter, origin: origin)
        liveKey = LiveTesters.register(origin)
    }

    deinit {
        if !isFinished {
            // At the last `receive` (what is left came after it), or where the tester was
            // made when the test asserted nothing.
            finish(at: settings.lastAssertion ?? settings.origin.location)
        }
    }

    /// Whether every dispatch must be asserted; change it at any point of a test.
    public var exhaustivity: Exhaustivity {
        get { settings.exhaustivity }
        set { settings.exhaustivity = newValue }
    }

    /// How long `receive` waits for a dispatch, or a tracked value, that has not come yet.
    public var timeout: Duration {
        get { settings.timeout }
        set { settings.timeout = newValue }
    }

    /// The dispatches skipped so far: passed over by a non-exhaustive `receive`, left at
    /// the end of a non-exhaustive test, or skipped by ``skipReceivedDispatches(fileID:filePath:line:column:)``.
    public var skippedDispatches: [any DispatchState] {
        dispatches.skipped.map(\.state)
    }

    /// Asserts that the next dispatch is `expected`, waiting for it up to `timeout`; with
    /// `exhaustivity: .off`, that `expected` comes, the dispatches before it skipped.
    ///
    /// A different dispatch fails with a diff, at this call, and counts as asserted; none in
    /// time fails naming the awaited state. When the dispatch expected came right after the
    /// one found (the two `receive`s are swapped), that is one failure, "out of order",
    /// naming both. So when the dispatch found is the last one recorded so far, the failure
    /// is reported (at this call's line) by the tester's next `receive`, or when it
    /// finishes, once it is known which of the two it is.
    ///
    /// - Parameters:
    ///   - expected: The state expected next.
    ///   - timeout: How long to wait; by default the tester's ``timeout``.
    ///   - isolation: The caller's actor, inherited.
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func receive(
        _ expected: State,
        timeout: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await receiveState(
            expected, timeout: timeout,
            at: CallLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Asserts that the next dispatch is `expected`, a state of another type than
    /// `State`; see `receive(_:)`.
    ///
    /// ```swift
    /// await tester.receive(Dispatcher.Favorite.add(fluxCapacitor))
    /// ```
    ///
    /// - Parameters:
    ///   - expected: The state expected next.
    ///   - timeout: How long to wait; by default the tester's ``timeout``.
    ///   - isolation: The caller's actor, inherited.
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func receive<Other: DispatchState & Equatable>(
        _ expected: Other,
        timeout: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await receiveState(
            expected, timeout: timeout,
            at: CallLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    private func receiveState<Expected: DispatchState & Equatable>(
        _ expected: Expected,
        timeout: Duration?,
        at location: CallLocation,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        guard !isFinished else {
            fatalError(
                "DispatchTester: receive(_:) after assertAllReceived(). "
                    + "Assert every dispatch before ending the tester.")
        }
        await dispatches.assertNext(
            is: expected, awaited: "the dispatch", timeout: timeout ?? settings.timeout, settings: settings,
            at: location)
    }

    /// Records the changes of `value` (a store's `Constant`, say) from now on: the test
    /// must then assert each one, in order, like the dispatches.
    ///
    /// ```swift
    /// let store = RepositoryStore.instantiate()
    /// let repositories = tester.track(store.repositories, named: "repositories")
    /// action.invoke(.addRepositories([fluxCapacitor]))
    /// await tester.receive(.addRepositories([fluxCapacitor]))
    /// await repositories.receive([fluxCapacitor])
    /// ```
    ///
    /// The tester compares the changes with `Element`'s `Equatable`, which must work on
    /// any thread: in an Xcode 26 app target, a model of the app's is `nonisolated` (see
    /// <doc:/FluxCapacitorPersistence/Xcode26AppTargets>).
    ///
    /// - Parameters:
    ///   - value: The value to track. Its current value is not recorded, only its changes.
    ///   - name: How failures name it; by default where it was tracked.
    ///   - fileID: Where it is tracked (for its default name).
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Returns: The tracked value, to assert its changes with.
    public func track<Trait: ValueTrait, Element: Equatable & Sendable>(
        _ value: PrimitiveValue<Trait, Element>,
        named name: String? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> TrackedValue<Element> {
        let tracked = TrackedValue(
            recorder: ValueRecorder(value, ignoreFirst: true),
            name: name ?? "the value tracked at \(fileID):\(line)",
            settings: settings)
        trackedValues.append(tracked)
        return tracked
    }

    /// Skips the dispatches recorded so far and not yet asserted, without failing (listing
    /// them if the exhaustivity is `.off(showSkipped: true)`).
    ///
    /// ```swift
    /// action.invoke(.removeAllRepositories)  // not what this test is about
    /// tester.skipReceivedDispatches()
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: Where the list of skipped dispatches is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func skipReceivedDispatches(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        dispatches.skipAll(
            settings: settings, at: CallLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Ends the test of the action: fails for every dispatch and tracked change that no
    /// `receive` asserted (exhaustive), or skips them (not exhaustive), and stops recording.
    /// The tester does this itself when it goes away; call it to check at a given point.
    ///
    /// ```swift
    /// await action.fetchRepositories(ofUser: "marty")
    /// await tester.receive(.isRepositoryFetching(true))
    /// tester.assertAllReceived()
    /// // fails: addRepositories and the rest were not asserted
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: Where failures are reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func assertAllReceived(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        guard !isFinished else {
            fatalError("DispatchTester: assertAllReceived() was called twice. End a tester once.")
        }
        finish(at: CallLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Ends the test of the action: the name this had in 1.0, when `finish()` also stopped
    /// recorders (now ``DispatchRecorder/stop()``) and waited for work
    /// (`InFlightTask.waitUntilDone()`).
    ///
    /// - Parameters:
    ///   - fileID: Where failures are reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    @available(*, deprecated, renamed: "assertAllReceived(fileID:filePath:line:column:)")
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        assertAllReceived(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    private func finish(at location: CallLocation) {
        isFinished = true
        LiveTesters.unregister(liveKey)
        recorder.stop()
        dispatches.finish(settings: settings, at: location)
        for tracked in trackedValues {
            tracked.finish(at: location)
        }
    }
}

// A tester keeps the states it recorded, which need not be Sendable, and its assertion
// position: use it from the task that made it.
@available(*, unavailable)
extension DispatchTester: Sendable {}
