import FluxCapacitor
import Observation

/// The favorite repositories; selecting one opens it.
@Observable
final class FavoriteViewModel: Sendable {
    private let action: RepositoryAction
    private let store: RepositoryStore
    private let dustBuster = DustBuster()

    init(
        action: RepositoryAction = RepositoryAction(), store: RepositoryStore = .instantiate(),
        events: @escaping ViewEvents = { _ in }
    ) {
        self.action = action
        self.store = store
        store.favorites
            .map(\.count)
            .removeDuplicates()
            .observe(ignoreFirst: true) { events(.favoriteCount($0)) }
            .cleaned(by: dustBuster)
    }

    deinit {
        // As the original sample did: the favorites screen unregisters the repository store
        // when it goes. That store is shared with the other screens, so this is only right
        // for a screen that lives as long as the app (here, the navigator keeps it for the
        // whole run); a screen that comes and goes must not clear a shared store.
        store.clear()
    }

    var favorites: [GitHub.Repository] { store.favorites.value }

    /// Opens the favorite at `index`.
    func selectFavorite(at index: Int) -> GitHub.Repository? {
        let favorites = self.favorites
        guard favorites.indices.contains(index) else { return nil }
        action.selectRepository(favorites[index])
        return favorites[index]
    }

    /// Unstars the favorite at `index`.
    func removeFavorite(at index: Int) -> GitHub.Repository? {
        let favorites = self.favorites
        guard favorites.indices.contains(index) else { return nil }
        action.removeFavorite(favorites[index])
        return favorites[index]
    }
}
