import FluxCapacitor

extension Dispatcher {
    /// What happens to the user search. `UserAction` invokes it; `UserStore` reduces it.
    /// `Codable`, so that `--record` can write it (see `SessionRecording`).
    enum User: DispatchState, Equatable, Codable {
        typealias RelatedStoreType = UserStore
        typealias RelatedActionType = UserAction

        case isUserFetching(Bool)
        case addUsers([GitHub.User])
        case userTotalCount(Int)
        case removeAllUsers
        case selectedUser(GitHub.User?)
        case lastPageInfo(GitHub.PageInfo?)
        case lastSearchQuery(String)
        case lastError(GitHubError?)
    }
}
