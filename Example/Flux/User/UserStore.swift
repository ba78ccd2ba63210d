import FluxCapacitor

/// The user search: one observable value per kind of `Dispatcher.User` state.
final class UserStore: Storable {
    typealias DispatchStateType = Dispatcher.User

    let isUserFetching: Constant<Bool>
    private let _isUserFetching = Variable(false)

    let users: Constant<[GitHub.User]>
    private let _users = Variable<[GitHub.User]>([])

    let totalCount: Constant<Int>
    private let _totalCount = Variable(0)

    let selectedUser: Constant<GitHub.User?>
    private let _selectedUser = Variable<GitHub.User?>(nil)

    let lastPageInfo: Constant<GitHub.PageInfo?>
    private let _lastPageInfo = Variable<GitHub.PageInfo?>(nil)

    let lastSearchQuery: Constant<String>
    private let _lastSearchQuery = Variable("")

    let lastError: Constant<GitHubError?>
    private let _lastError = Variable<GitHubError?>(nil)

    required init() {
        isUserFetching = Constant(_isUserFetching)
        users = Constant(_users)
        totalCount = Constant(_totalCount)
        selectedUser = Constant(_selectedUser)
        lastPageInfo = Constant(_lastPageInfo)
        lastSearchQuery = Constant(_lastSearchQuery)
        lastError = Constant(_lastError)
    }

    func reduce(with state: Dispatcher.User) {
        switch state {
        case .isUserFetching(let value): _isUserFetching.value = value
        case .addUsers(let value): _users.value.append(contentsOf: value)
        case .userTotalCount(let value): _totalCount.value = value
        case .removeAllUsers: _users.value.removeAll()
        case .selectedUser(let value): _selectedUser.value = value
        case .lastPageInfo(let value): _lastPageInfo.value = value
        case .lastSearchQuery(let value): _lastSearchQuery.value = value
        case .lastError(let value): _lastError.value = value
        }
    }
}
