import FluxCapacitor
import FluxCapacitorPersistence

/// A user's repositories, the one opened, and the favorites, which are persisted.
final class RepositoryStore: Storable {
    typealias DispatchStateType = Dispatcher.Repository

    let isRepositoryFetching: Constant<Bool>
    private let _isRepositoryFetching = Variable(false)

    /// The user's repositories, in the order they were fetched: each one an observable value
    /// of its own, so a row that shows one hears of that one only.
    let repositories: ConstantDictionary<GitHub.Repository.ID, GitHub.Repository>
    private let _repositories = VariableDictionary<GitHub.Repository.ID, GitHub.Repository>()

    let selectedRepository: Constant<GitHub.Repository?>
    private let _selectedRepository = Variable<GitHub.Repository?>(nil)

    let lastPageInfo: Constant<GitHub.PageInfo?>
    private let _lastPageInfo = Variable<GitHub.PageInfo?>(nil)

    let lastTask: Constant<FetchTask?>
    private let _lastTask = Variable<FetchTask?>(nil)

    let totalCount: Constant<Int>
    private let _totalCount = Variable(0)

    /// Saved in the default storage: the program's files (`Persistence.withDefaultStorage`
    /// around its run), a test's `InMemoryStorage`.
    let favorites: Constant<[GitHub.Repository]>
    private let _favorites = Variable<[GitHub.Repository]>([], persistedAs: "favorites")

    let lastError: Constant<GitHubError?>
    private let _lastError = Variable<GitHubError?>(nil)

    /// Each favorite saved or taken out, as it happens: an event, sent from `reduce` and
    /// not kept (the favorites themselves are the state, in `favorites`).
    let favoriteChanges: Signal<FavoriteChange>
    private let _favoriteChanges = Sink<FavoriteChange>()

    required init() {
        isRepositoryFetching = Constant(_isRepositoryFetching)
        repositories = ConstantDictionary(_repositories)
        selectedRepository = Constant(_selectedRepository)
        lastPageInfo = Constant(_lastPageInfo)
        lastTask = Constant(_lastTask)
        totalCount = Constant(_totalCount)
        favorites = Constant(_favorites)
        lastError = Constant(_lastError)
        favoriteChanges = _favoriteChanges.signal
    }

    func reduce(with state: Dispatcher.Repository) {
        switch state {
        case .isRepositoryFetching(let value): _isRepositoryFetching.value = value
        case .addRepositories(let value): _repositories.append(contentsOf: value)
        case .removeAllRepositories: _repositories.removeAll()
        case .selectedRepository(let value): _selectedRepository.value = value
        case .lastPageInfo(let value): _lastPageInfo.value = value
        case .lastTask(let value): _lastTask.value = value
        case .repositoryTotalCount(let value): _totalCount.value = value
        case .addFavorite(let repository):
            if !_favorites.value.contains(repository) {
                _favorites.value.append(repository)
                _favoriteChanges.send(.added(repository))
            }
        case .removeFavorite(let repository):
            removeFavorites { $0.id == repository.id }
        case .removeAllFavorites:
            removeFavorites { _ in true }
        case .lastError(let value): _lastError.value = value
        }
    }

    /// Takes the favorites that match out, and tells `favoriteChanges` about each one.
    private func removeFavorites(where matches: (GitHub.Repository) -> Bool) {
        let removed = _favorites.value.filter(matches)
        guard !removed.isEmpty else { return }
        _favorites.value.removeAll(where: matches)
        for repository in removed {
            _favoriteChanges.send(.removed(repository))
        }
    }
}
