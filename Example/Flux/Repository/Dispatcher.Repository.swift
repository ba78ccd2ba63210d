import FluxCapacitor

extension Dispatcher {
    /// What happens to a user's repositories and the favorites. `RepositoryAction` invokes
    /// it; `RepositoryStore` reduces it. `Codable`, so that `--record` can write it (see
    /// `SessionRecording`).
    enum Repository: DispatchState, Equatable, Codable {
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
///
/// A request is a side effect, not state: a recording (`--record`) says that there was
/// one (`"request"`), and a replay gets a request that is not running, which `cancel()`
/// and `finish()` have nothing to do with.
struct FetchTask: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The request; `nil` for a replayed one.
    private let task: InFlightTask?

    init(task: InFlightTask) {
        self.task = task
    }

    init(from decoder: any Decoder) throws {
        _ = try decoder.singleValueContainer().decode(String.self)
        task = nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Cancels the request: nothing of it reaches the store after this returns, and
    /// fetching is off (its `onCancel`, if it was running).
    func cancel() {
        task?.cancel()
    }

    /// Waits for the request to end.
    func finish() async {
        await task?.waitUntilDone()
    }

    var description: String { "request" }
}
