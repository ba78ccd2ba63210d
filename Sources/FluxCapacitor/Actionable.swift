/// An action creator: the place for side effects, such as API calls, whose results it
/// hands to the dispatcher with ``invoke(_:)``.
///
/// ```swift
/// final class RepositoryAction: Actionable {
///     typealias DispatchStateType = Dispatcher.Repository
///
///     func fetchRepositories(withUserID id: String) {
///         invoke(.isRepositoryFetching(true))
///         session.send(RepositoriesRequest(userID: id)) { [weak self] result in
///             if case .success(let page) = result {
///                 self?.invoke(.addRepositories(page.nodes))
///             }
///             self?.invoke(.isRepositoryFetching(false))
///         }
///     }
/// }
/// ```
public protocol Actionable {
    /// The state this action dispatches.
    associatedtype DispatchStateType: DispatchState
}

extension Actionable {
    /// Dispatches `state` to the live instance of its store, through ``Dispatcher/current``.
    ///
    /// `invoke` is synchronous: when it returns, the store has reduced `state` and every
    /// observer registered on ``ExecuteQueue/current`` has run. A call made while a
    /// dispatch is running on this thread (from `reduce(with:)` or from an observer) is
    /// queued and runs after the current one, before the outermost `invoke` returns.
    /// If no instance of the store is alive, the state is dropped and reported to the
    /// dispatcher's log (see ``Dispatcher/observeDispatches(_:)``).
    ///
    /// ```swift
    /// action.invoke(.removeAllRepositories)
    /// ```
    @inlinable
    public func invoke(_ state: DispatchStateType) {
        Dispatcher.dispatchInCurrent(state)
    }
}
