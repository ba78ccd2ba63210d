import FluxCapacitor

extension Dispatcher {
    /// What happens to the user search. `UserAction` invokes it; `UserStore` reduces it.
    enum User: DispatchState, Equatable {
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
