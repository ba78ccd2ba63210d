import FluxCapacitor

/// Searches GitHub users and tells `UserStore` what happened. The side effects (requests)
/// live here; the session comes by injection.
struct UserAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.User

    let session: any GitHubSession
    let pageSize: Int
    /// The search in flight: a new one cancels it, and nothing of a cancelled search
    /// reaches `UserStore` (its states are dispatched with `invoke(_:unlessCancelled:)`)
    /// but what its `onCancel` puts right: fetching off.
    private let searches = InFlightTasks<String>(policy: .cancelRunning)

    init(session: any GitHubSession = StubSession(), pageSize: Int = 4) {
        self.session = session
        self.pageSize = pageSize
    }

    /// Records the query; an empty query stops there. Otherwise sets fetching on, asks for
    /// a page of users, then dispatches the users, the page info and the total count;
    /// fetching goes off when the request ends, success or not, or is cancelled. Returns
    /// when the search has ended, or was cancelled by a newer one.
    func fetchUsers(withQuery query: String, after cursor: String?) async {
        await startFetchingUsers(withQuery: query, after: cursor)?.waitUntilDone()
    }

    /// Like `fetchUsers(withQuery:after:)`, without waiting: the search in flight is
    /// cancelled, and nothing it would still dispatch reaches `UserStore`. Returns the
    /// new search (`nil` for an empty query), a `Dust` to cancel it with.
    ///
    /// However a search is cancelled (by the next one, by an empty query, by its `Dust`),
    /// fetching is off when the cancellation returns: its `onCancel` turns it off, since
    /// the `isUserFetching(false)` its end would dispatch is dropped.
    @discardableResult
    func startFetchingUsers(withQuery query: String, after cursor: String?) -> InFlightTask? {
        invoke(.lastSearchQuery(query))
        guard !query.isEmpty else {
            searches.cancel(Self.search)
            return nil
        }
        return searches.start(Self.search, onCancel: { invoke(.isUserFetching(false)) }) { task in
            await fetchPage(query: query, after: cursor, task: task)
        }
    }

    private static let search = "search"

    /// Cancels the search in flight, if any (its `onCancel` turns fetching off).
    func cancelSearch() {
        searches.cancel(Self.search)
    }

    private func fetchPage(query: String, after cursor: String?, task: InFlightTask) async {
        // Cancelled, the search dispatches nothing more: `onCancel` turns the flag off.
        invoke(.isUserFetching(true), unlessCancelled: task)
        defer { invoke(.isUserFetching(false), unlessCancelled: task) }
        do {
            let page = try await session.send(SearchUsersRequest(query: query, first: pageSize, after: cursor))
            invoke(.lastError(nil), unlessCancelled: task)
            invoke(.addUsers(page.nodes), unlessCancelled: task)
            invoke(.lastPageInfo(page.pageInfo), unlessCancelled: task)
            invoke(.userTotalCount(page.totalCount), unlessCancelled: task)
        } catch {
            invoke(.lastError(GitHubError(error)), unlessCancelled: task)
        }
    }

    /// Forgets the users, the page info, the query and the total count.
    func clearUsers() {
        invoke(.removeAllUsers)
        invoke(.lastPageInfo(nil))
        invoke(.lastSearchQuery(""))
        invoke(.userTotalCount(0))
    }

    func selectUser(_ user: GitHub.User?) {
        invoke(.selectedUser(user))
    }
}
