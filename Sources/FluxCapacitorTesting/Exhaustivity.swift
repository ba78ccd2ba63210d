/// Whether a ``DispatchTester`` asks for every dispatch and every tracked value change to
/// be asserted (``on``, the default) or lets a test assert only those it cares about
/// (``off(showSkipped:)``, for integration tests).
///
/// ```swift
/// let tester = DispatchTester(
///     of: Dispatcher.Repository.self, exhaustivity: .off(showSkipped: true))
/// await action.fetchRepositories(ofUser: "marty")
/// // the flags around it are skipped
/// await tester.receive(.addRepositories([fluxCapacitor]))
/// ```
public enum Exhaustivity: Sendable, Hashable {
    /// Every dispatch must be asserted, in order: the next one must be the one a
    /// `receive` names, and any left when the tester finishes fails the test.
    case on

    /// Assert some, skip the rest: a `receive` passes over the dispatches before the one it
    /// names, and those left when the tester finishes are not failures.
    ///
    /// - Parameter showSkipped: Whether to report what was skipped, as a note (a warning
    ///   in Swift Testing), so that the test's output lists it.
    case off(showSkipped: Bool)

    /// Assert some, skip the rest, silently: ``off(showSkipped:)`` with `false`.
    public static var off: Exhaustivity {
        .off(showSkipped: false)
    }
}
