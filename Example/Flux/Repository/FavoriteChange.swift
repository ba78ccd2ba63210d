/// Something that just happened to the favorites: an event that `RepositoryStore` sends
/// through its `favoriteChanges` signal, not state. A screen that hears it says so
/// ("★ starred"); a screen made later does not hear it again, and nothing has to reset it.
enum FavoriteChange: Sendable, Equatable {
    /// The repository was saved to the favorites.
    case added(GitHub.Repository)
    /// The repository was taken out of the favorites.
    case removed(GitHub.Repository)

    /// The repository it happened to.
    var repository: GitHub.Repository {
        switch self {
        case .added(let repository), .removed(let repository): repository
        }
    }
}
