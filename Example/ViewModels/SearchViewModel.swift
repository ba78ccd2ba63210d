import FluxCapacitor
import Foundation
import Observation

/// The search screen: a query, the users found so far, paging, and picking a user.
///
/// Like every view model of the example, it keeps no copy of the stores' state: its
/// properties read the stores, and being `@Observable` it is ready for SwiftUI
/// (`@State var model = SearchViewModel()`), whose views are redrawn when what they read
/// changes, because reading a store's value takes part in Observation.
@Observable
final class SearchViewModel: Sendable {
    private let action: UserAction
    private let store: UserStore
    private let dustBuster = DustBuster()

    init(action: UserAction = UserAction(), store: UserStore = .instantiate(), events: @escaping ViewEvents = { _ in })
    {
        self.action = action
        self.store = store
        store.isUserFetching
            .removeDuplicates()
            .observe(ignoreFirst: true) { events(.loading($0)) }
            .cleaned(by: dustBuster)
    }

    var query: String { store.lastSearchQuery.value }
    var users: [GitHub.User] { store.users.value }
    var errorMessage: String? { store.lastError.value?.description }
    var canLoadMore: Bool { store.lastPageInfo.value?.hasNextPage == true }

    /// "loaded / total", for example `30 / 1204`.
    var counterText: String { "\(users.count) / \(store.totalCount.value)" }

    /// Searches for `query`: clears the users, page info, query and total count, then
    /// fetches the first page. Repeating the query that is shown does nothing (unless it
    /// failed), as the app skipped repeated queries while typing.
    func search(_ query: String) async {
        let query = query.trimmingCharacters(in: .whitespaces)
        guard query != store.lastSearchQuery.value || store.lastError.value != nil else { return }
        action.clearUsers()
        await action.fetchUsers(withQuery: query, after: nil)
    }

    /// Starts searching for `query` without waiting, as a search field does at each
    /// keystroke: the next search cancels this one if it has not answered by then.
    func startSearch(_ query: String) {
        action.clearUsers()
        action.startFetchingUsers(withQuery: query.trimmingCharacters(in: .whitespaces), after: nil)
    }

    /// Cancels the search in flight, if any: nothing of it reaches the store, and fetching
    /// is off.
    func cancelSearch() {
        action.cancelSearch()
    }

    /// Fetches the next page; `false` when there is none.
    func loadMore() async -> Bool {
        guard let pageInfo = store.lastPageInfo.value, pageInfo.hasNextPage, let cursor = pageInfo.endCursor else {
            return false
        }
        await action.fetchUsers(withQuery: store.lastSearchQuery.value, after: cursor)
        return true
    }

    /// Selects the user at `index` (as the app did when a row was tapped).
    func selectUser(at index: Int) -> GitHub.User? {
        let users = self.users
        guard users.indices.contains(index) else { return nil }
        action.selectUser(users[index])
        return users[index]
    }
}
