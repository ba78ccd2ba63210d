import FluxCapacitor
import Foundation
import Observation

/// One repository (the app showed its web page), with a favorite toggle.
@Observable
final class RepositoryViewModel: Sendable {
    private let action: RepositoryAction
    private let store: RepositoryStore
    private let dustBuster = DustBuster()
    /// The open repository and whether it is a favorite, as last seen, to report only
    /// real changes of the favorite mark (not the mark of another repository being opened).
    private let shown = NSLockedValue<(id: String?, isFavorite: Bool)>((nil, false))

    init(
        action: RepositoryAction = RepositoryAction(), store: RepositoryStore = .instantiate(),
        events: @escaping ViewEvents = { _ in }
    ) {
        self.action = action
        self.store = store
        let update: @Sendable () -> Void = { [store, shown] in
            let id = store.selectedRepository.value?.id
            let isFavorite = id.map { id in store.favorites.value.contains { $0.id == id } } ?? false
            let changed = shown.withLock { shown -> Bool in
                defer { shown = (id, isFavorite) }
                return shown.id == id && shown.isFavorite != isFavorite
            }
            if changed {
                events(.favorite(isFavorite))
            }
        }
        store.selectedRepository.observe { _ in update() }.cleaned(by: dustBuster)
        store.favorites.observe { _ in update() }.cleaned(by: dustBuster)
        update()
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

/// A value behind an `NSLock`, for view-model bookkeeping updated by observers.
final class NSLockedValue<Value: Sendable>: @unchecked Sendable {
    // Sendable: `lock` guards `value`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
