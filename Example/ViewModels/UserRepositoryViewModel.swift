import FluxCapacitor
import Observation

/// The selected user's repositories, paged, and opening one.
@Observable
final class UserRepositoryViewModel: Sendable {
    private let action: RepositoryAction
    private let repositoryStore: RepositoryStore
    private let userStore: UserStore
    private let dustBuster = DustBuster()

    init(
        action: RepositoryAction = RepositoryAction(),
        repositoryStore: RepositoryStore = .instantiate(),
        userStore: UserStore = .instantiate(),
        events: @escaping ViewEvents = { _ in }
    ) {
        self.action = action
        self.repositoryStore = repositoryStore
        self.userStore = userStore
        repositoryStore.isRepositoryFetching
            .removeDuplicates()
            .observe(ignoreFirst: true) { events(.loading($0)) }
            .cleaned(by: dustBuster)
    }

    var user: GitHub.User? { userStore.selectedUser.value }
    /// Read through Observation: a screen that shows them is drawn again when one comes,
    /// goes or changes.
    var repositories: [GitHub.Repository] {
        repositoryStore.repositories.keys.value.compactMap { repositoryStore.repositories[$0] }
    }
    var errorMessage: String? { repositoryStore.lastError.value?.description }
    var canLoadMore: Bool { repositoryStore.lastPageInfo.value?.hasNextPage == true }
    var favoriteIDs: Set<String> { Set(repositoryStore.favorites.value.map(\.id)) }

    /// "loaded / total", for example `10 / 25`.
    var counterText: String { "\(repositories.count) / \(repositoryStore.totalCount.value)" }

    /// Loads the first page of the selected user's repositories, dropping the previous
    /// user's and cancelling a request for them still in flight (made by any screen: the
    /// store's `lastTask`), whose states no longer reach the store.
    func load() async {
        action.clearRepositories(cancelling: repositoryStore.lastTask.value)
        guard let user else { return }
        await action.fetchRepositories(withUserID: user.id, after: nil).finish()
    }

    /// Fetches the next page; `false` when there is none.
    func loadMore() async -> Bool {
        guard let user, let pageInfo = repositoryStore.lastPageInfo.value, pageInfo.hasNextPage,
            let cursor = pageInfo.endCursor
        else { return false }
        await action.fetchRepositories(withUserID: user.id, after: cursor).finish()
        return true
    }

    /// Opens the repository at `index`.
    func selectRepository(at index: Int) -> GitHub.Repository? {
        let repositories = self.repositories
        guard repositories.indices.contains(index) else { return nil }
        action.selectRepository(repositories[index])
        return repositories[index]
    }

    /// Stars or unstars the repository at `index`; returns whether it is now a favorite.
    func toggleFavorite(at index: Int) -> Bool? {
        let repositories = self.repositories
        guard repositories.indices.contains(index) else { return nil }
        let repository = repositories[index]
        if favoriteIDs.contains(repository.id) {
            action.removeFavorite(repository)
            return false
        }
        action.addFavorite(repository)
        return true
    }
}
