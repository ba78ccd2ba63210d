/// An action creator: the place for side effects, such as API calls, whose results it
/// hands to the dispatcher with ``invoke(_:)``.
///
/// ```swift
/// struct RepositoryAction: Actionable, Sendable {
///     typealias DispatchStateType = Dispatcher.Repository
///
///     let session: any GitHubSession
///
///     func fetchRepositories(ofUser login: String) async {
///         invoke(.isRepositoryFetching(true))
///         defer { invoke(.isRepositoryFetching(false)) }
///         if let repositories = try? await session.repositories(ofUser: login) {
///             invoke(.addRepositories(repositories))
///         }
///     }
/// }
/// ```
///
/// An action holds what its side effects need (here a session, injected so that tests can
/// pass a stub) and nothing of the store's state; make it `Sendable` so any task may use it.
public protocol Actionable {
    /// The state this action dispatches.
    associatedtype DispatchStateType: DispatchState
}

extension Actionable {
    /// Dispatches `state` to the live instance of its store, through ``Dispatcher/current``.
    ///
    /// `invoke` is synchronous: when it returns, the store has reduced `state` and every
    /// observer registered on ``ExecuteQueue/current`` has run (but see
    /// <doc:ThreadingAndReentrancy> for a value that another thread, outside any dispatch,
    /// is delivering at that moment). A call made while a dispatch is running on this
    /// thread (from `reduce(with:)` or from an observer) is queued and runs after the
    /// current one, before the outermost `invoke` returns. If no instance of the store is
    /// alive, the state is dropped and reported to the dispatcher's log (see
    /// ``Dispatcher/observeDispatches(_:)``).
    ///
    /// - Parameter state: The state to dispatch.
    @inlinable
    public func invoke(_ state: DispatchStateType) {
        Dispatcher.dispatchInCurrent(state)
    }
}
