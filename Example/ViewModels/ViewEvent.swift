/// What a view model tells its view, as it happens (the view reads the rest when it draws).
enum ViewEvent: Sendable, Equatable {
    /// A request started (`true`) or ended (`false`).
    case loading(Bool)
    /// The open repository became a favorite (`true`) or stopped being one (`false`).
    case favorite(Bool)
    /// The number of favorites changed.
    case favoriteCount(Int)
}

/// Where a view model sends its events.
typealias ViewEvents = @Sendable (ViewEvent) -> Void
