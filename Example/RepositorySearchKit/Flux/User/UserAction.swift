import FluxCapacitor

/// Searches GitHub users and tells `UserStore` what happened. The side effects (requests)
/// live here; the session comes by injection.
struct UserAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.User

    let session: any GitHubSession
    let pageSize: Int

    init(session: any GitHubSession = StubSession(), pageSize: Int = 4) {
        self.session = session
        self.pageSize = pageSize
    }

    /// Records the query; an empty query stops there. Otherwise sets fetching on, asks for
    /// a page of users, then dispatches the users, the page info and the total count;
    /// fetching goes off when the request ends, success or not.
    func fetchUsers(withQuery query: String, after cursor: String?) async {
        invoke(.lastSearchQuery(query))
        guard !query.isEmpty else { return }
        invoke(.isUserFetching(true))
        defer { invoke(.isUserFetching(false)) }
        do {
            let page = try await session.send(SearchUsersRequest(query: query, first: pageSize, after: cursor))
            invoke(.lastError(nil))
            invoke(.addUsers(page.nodes))
            invoke(.lastPageInfo(page.pageInfo))
            invoke(.userTotalCount(page.totalCount))
        } catch {
            invoke(.lastError(GitHubError(error)))
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
