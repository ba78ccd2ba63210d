import FluxCapacitor
import Foundation
import Observation

/// One repository (the app showed its web page), with a favorite toggle.
@Observable
final class RepositoryViewModel: Sendable {
    private let action: RepositoryAction
    private let store: RepositoryStore
    private let dustBuster = DustBuster()

    init(
        action: RepositoryAction = RepositoryAction(), store: RepositoryStore = .instantiate(),
        events: @escaping ViewEvents = { _ in }
    ) {
        self.action = action
        self.store = store
        // An event, not a state to compare: opening another repository sends nothing,
        // and starring from another screen is heard only for the repository open here.
        store.favoriteChanges
            .observe { [store] change in
                guard change.repository.id == store.selectedRepository.value?.id else { return }
                switch change {
                case .added: events(.favorite(true))
                case .removed: events(.favorite(false))
                }
            }
            .cleaned(by: dustBuster)
    }

    var repository: GitHub.Repository? { store.selectedRepository.value }

    var isFavorite: Bool {
        guard let repository else { return false }
        return store.favorites.value.contains { $0.id == repository.id }
    }

    /// Stars or unstars the open repository; returns whether it is now a favorite.
    func toggleFavorite() -> Bool? {
        guard let repository else { return nil }
        if isFavorite {
            action.removeFavorite(repository)
            return false
        }
        action.addFavorite(repository)
        return true
    }
}
