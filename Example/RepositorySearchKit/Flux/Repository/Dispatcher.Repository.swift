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

/// A request in flight, which can be cancelled or awaited.
struct FetchTask: Sendable, Hashable, CustomStringConvertible {
    let task: Task<Void, Never>

    func cancel() {
        task.cancel()
    }

    /// Waits for the request to end.
    func finish() async {
        await task.value
    }

    var description: String { "request" }
}
