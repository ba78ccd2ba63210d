import FluxCapacitor

/// Fetches a user's repositories, page by page, and keeps favorites.
struct RepositoryAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository

    let session: any GitHubSession
    let pageSize: Int
    /// The request in flight: a new one (another user opened, the next page) cancels it,
    /// and nothing of a cancelled request reaches `RepositoryStore` (its states are
    /// dispatched with `invoke(_:unlessCancelled:)`) but what its `onCancel` puts right:
    /// fetching off.
    private let fetches = InFlightTasks<String>(policy: .cancelRunning)

    init(session: any GitHubSession = StubSession(), pageSize: Int = 10) {
        self.session = session
        self.pageSize = pageSize
    }

    /// Starts fetching a page of the user's repositories, cancelling the request in
    /// flight, and dispatches the request as `lastTask` so any screen can cancel it:
    /// fetching on, then the page info, the repositories and the total count; fetching off
    /// at the end, or when the request is cancelled (however it is: by the next request,
    /// by `clearRepositories(cancelling:)`, by its `cancel()`).
    @discardableResult
    func fetchRepositories(withUserID id: String, after cursor: String?) -> FetchTask {
        // The work waits until it is dispatched as `lastTask`, so that the states always
        // come in the same order. (The task carries the caller's dispatcher scope.)
        let (dispatched, markDispatched) = AsyncStream<Never>.makeStream()
        // `.cancelRunning` starts every request. A cancelled one's own
        // `isRepositoryFetching(false)` is dropped: `onCancel` dispatches it instead.
        let request = fetches.start(
            Self.repositories, onCancel: { invoke(.isRepositoryFetching(false)) }
        ) { task in
            for await _ in dispatched {}
            await fetchPage(userID: id, after: cursor, task: task)
        }
        let task = FetchTask(task: request!)
        invoke(.lastTask(task))
        markDispatched.finish()
        return task
    }

    private static let repositories = "repositories"

    /// Cancels the request in flight, if any (its `onCancel` turns fetching off), keeping
    /// what was fetched.
    func cancelFetching() {
        fetches.cancel(Self.repositories)
    }

    private func fetchPage(userID: String, after cursor: String?, task: InFlightTask) async {
        // Cancelled, the request dispatches nothing more: `onCancel` turns the flag off.
        invoke(.isRepositoryFetching(true), unlessCancelled: task)
        defer { invoke(.isRepositoryFetching(false), unlessCancelled: task) }
        do {
            let page = try await session.send(UserRepositoriesRequest(userID: userID, first: pageSize, after: cursor))
            invoke(.lastError(nil), unlessCancelled: task)
            invoke(.lastPageInfo(page.pageInfo), unlessCancelled: task)
            invoke(.addRepositories(page.nodes), unlessCancelled: task)
            invoke(.repositoryTotalCount(page.totalCount), unlessCancelled: task)
        } catch {
            invoke(.lastError(GitHubError(error)), unlessCancelled: task)
        }
    }

    /// Cancels `request` (if any; fetching goes off if it was running) and forgets the
    /// repositories and where paging was. Nothing of the cancelled request reaches the
    /// store after this returns, so another fetch can start at once.
    func clearRepositories(cancelling request: FetchTask?) {
        request?.cancel()
        invoke(.lastTask(nil))
        invoke(.removeAllRepositories)
        invoke(.lastPageInfo(nil))
        invoke(.repositoryTotalCount(0))
        invoke(.lastError(nil))
    }

    func selectRepository(_ repository: GitHub.Repository?) {
        invoke(.selectedRepository(repository))
    }

    func addFavorite(_ repository: GitHub.Repository) {
        invoke(.addFavorite(repository))
    }

    func removeFavorite(_ repository: GitHub.Repository) {
        invoke(.removeFavorite(repository))
    }

    func removeAllFavorites() {
        invoke(.removeAllFavorites)
    }
}
