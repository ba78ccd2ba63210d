import FluxCapacitor

extension Dispatcher {
    /// What happens to a user's repositories and the favorites. `RepositoryAction` invokes
    /// it; `RepositoryStore` reduces it.
    enum Repository: DispatchState, Equatable {
        typealias RelatedStoreType = RepositoryStore
        typealias RelatedActionType = RepositoryAction

        case isRepositoryFetching(Bool)
        case addRepositories([GitHub.Repository])
        case removeAllRepositories
        case selectedRepository(GitHub.Repository?)
        case lastPageInfo(GitHub.PageInfo?)
        /// The request in flight, so that it can be cancelled.
        case lastTask(FetchTask?)
        case repositoryTotalCount(Int)
        case addFavorite(GitHub.Repository)
        case removeFavorite(GitHub.Repository)
        case removeAllFavorites
        case lastError(GitHubError?)
    }
}

/// A request in flight, which can be cancelled or awaited: the `lastTask` of the original
/// sample, kept in `RepositoryStore` so that any screen can cancel it. Nothing of a
/// cancelled request reaches the store (see `RepositoryAction`).
struct FetchTask: Sendable, Hashable, CustomStringConvertible {
    let task: InFlightTask

    func cancel() {
        task.cancel()
    }

    /// Waits for the request to end.
    func finish() async {
        await task.finish()
    }

    var description: String { "request" }
}
