import FluxCapacitor

/// Fetches a user's repositories, page by page, and keeps favorites.
struct RepositoryAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository

    let session: any GitHubSession
    let pageSize: Int

    init(session: any GitHubSession = StubSession(), pageSize: Int = 10) {
        self.session = session
        self.pageSize = pageSize
    }

    /// Starts fetching a page of the user's repositories, and dispatches the request as
    /// `lastTask` so it can be cancelled: fetching on, then the page info, the
    /// repositories and the total count; fetching off at the end.
    @discardableResult
    func fetchRepositories(withUserID id: String, after cursor: String?) -> FetchTask {
        // The task waits until it is dispatched as `lastTask`, so that the states always
        // come in the same order. (`Task { }` carries the caller's dispatcher scope.)
        let (dispatched, markDispatched) = AsyncStream<Never>.makeStream()
        let task = FetchTask(
            task: Task {
                for await _ in dispatched {}
                await fetchPage(userID: id, after: cursor)
            })
        invoke(.lastTask(task))
        markDispatched.finish()
        return task
    }

    private func fetchPage(userID: String, after cursor: String?) async {
        invoke(.isRepositoryFetching(true))
        defer { invoke(.isRepositoryFetching(false)) }
        let result: Result<GitHub.Page<GitHub.Repository>, GitHubError>
        do {
            result = .success(
                try await session.send(UserRepositoriesRequest(userID: userID, first: pageSize, after: cursor)))
        } catch {
            result = .failure(GitHubError(error))
        }
        // A cancelled request dispatches no result: whoever cancelled it has moved on.
        guard !Task.isCancelled else { return }
        switch result {
        case .success(let page):
            invoke(.lastError(nil))
            invoke(.lastPageInfo(page.pageInfo))
            invoke(.addRepositories(page.nodes))
            invoke(.repositoryTotalCount(page.totalCount))
        case .failure(let error):
            invoke(.lastError(error))
        }
    }

    /// Cancels `request` (if any) and forgets the repositories and where paging was. The
    /// request turns fetching off when it ends; await it (`finish()`) before starting
    /// another, so that its states come first.
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
