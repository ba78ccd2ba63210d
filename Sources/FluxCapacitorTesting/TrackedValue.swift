/// A store's value whose changes a ``DispatchTester`` asks the test to assert, in order,
/// like its dispatches. Made by ``DispatchTester/track(_:named:fileID:filePath:line:column:)``.
///
/// ```swift
/// let store = RepositoryStore.instantiate()
/// let repositories = tester.track(store.repositories, named: "repositories")
/// action.invoke(.addRepositories([fluxCapacitor]))
/// await tester.receive(.addRepositories([fluxCapacitor]))
/// await repositories.receive([fluxCapacitor])
/// ```
///
/// It records every change (not the value it had when tracked) until its tester finishes;
/// a change left unasserted then fails the test (or is skipped, with `exhaustivity: .off`).
/// Use it from the task that made its tester.
public final class TrackedValue<Element: Equatable & Sendable> {
    /// How failures name the value.
    public let name: String

    private let recorder: ValueRecorder<Element>
    private let changes: AssertionCursor<Element>
    private let settings: TesterSettings

    init(recorder: ValueRecorder<Element>, name: String, settings: TesterSettings) {
        self.recorder = recorder
        self.name = name
        self.settings = settings
        changes = AssertionCursor(
            buffer: recorder.storage,
            wording: Wording(
                one: "change of \(name)", many: "changes of \(name)", mismatch: "\(name) changed to a value",
                nothingNew: "\(name) did not change after the last change asserted."),
            subject: { $0 })
    }

    /// The changes skipped so far, by a non-exhaustive `receive` or at the end of a
    /// non-exhaustive test.
    public var skippedValues: [Element] {
        changes.skipped
    }

    /// Asserts that the next change of the value is to `expected`, waiting for it up to
    /// `timeout`; with `exhaustivity: .off`, that it changes to `expected`, the changes
    /// before skipped.
    ///
    /// - Parameters:
    ///   - expected: The value expected next.
    ///   - timeout: How long to wait; by default the tester's.
    ///   - isolation: The caller's actor, inherited.
    ///   - fileID: Where a failure is reported; the caller's line by default.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func receive(
        _ expected: Element,
        timeout: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        await changes.assertNext(
            is: expected, awaited: "\(name) to change to", timeout: timeout ?? settings.timeout,
            settings: settings, at: CallLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
}

/// What a tester does with the values it tracks when it finishes.
protocol TrackedValueFinishing: AnyObject {
    func finish(at location: CallLocation)
}

extension TrackedValue: TrackedValueFinishing {
    func finish(at location: CallLocation) {
        recorder.stop()
        changes.finish(settings: settings, at: location)
    }
}

// A tracked value keeps its assertion position: use it from the task that made its tester.
@available(*, unavailable)
extension TrackedValue: Sendable {}
