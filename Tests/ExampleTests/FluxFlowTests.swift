import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

@testable import repository_search

@Suite("Flux flows: action → store", .isolatedDispatcher, .inMemoryStorage)
struct FluxFlowTests {
    @Test func fetchingUsersRecordsTheQueryThenFetchesAndFillsTheStore() async {
        let page = Sample.page([Sample.user("marty"), Sample.user("marvin")], total: 9, next: "c2")
        let session = MockSession(users: [.success(page)])
        let store = UserStore.instantiate()
        let tester = DispatchTester(of: Dispatcher.User.self)
        let users = tester.track(store.users, named: "users")

        await UserAction(session: session, pageSize: 2).fetchUsers(withQuery: "mar", after: nil)

        await tester.receive(.lastSearchQuery("mar"))
        await tester.receive(.isUserFetching(true))
        await tester.receive(.lastError(nil))
        await tester.receive(.addUsers(page.nodes))
        await users.receive(page.nodes)
        await tester.receive(.lastPageInfo(page.pageInfo))
        await tester.receive(.userTotalCount(9))
        await tester.receive(.isUserFetching(false))
        #expect(session.requests == [.searchUsers(query: "mar", first: 2, after: nil)])
    }

    @Test func anEmptyQueryStopsAfterRecordingIt() async {
        let session = MockSession()
        let tester = DispatchTester(of: Dispatcher.User.self)
        await UserAction(session: session).fetchUsers(withQuery: "", after: nil)
        await tester.receive(.lastSearchQuery(""))
        #expect(session.requests.isEmpty)
    }

    @Test func aFailedSearchReportsTheErrorAndStopsFetching() async {
        let store = UserStore.instantiate()
        let tester = DispatchTester(of: Dispatcher.User.self)
        _ = tester.track(store.users, named: "users")  // no users come: a change would fail the test
        let session = MockSession(users: [.failure(.http(status: 500, message: "boom"))])

        await UserAction(session: session).fetchUsers(withQuery: "mar", after: nil)

        await tester.receive(.lastSearchQuery("mar"))
        await tester.receive(.isUserFetching(true))
        await tester.receive(.lastError(.http(status: 500, message: "boom")))
        await tester.receive(.isUserFetching(false))
    }

    @Test func theNextPageOfUsersIsAskedAfterTheCursorAndAppended() async {
        let first = Sample.page([Sample.user("marty")], total: 2, next: "c1")
        let second = Sample.page([Sample.user("marvin")], total: 2)
        let session = MockSession(users: [.success(first), .success(second)])
        let store = UserStore.instantiate()
        let action = UserAction(session: session, pageSize: 1)
        await action.fetchUsers(withQuery: "mar", after: nil)
        let tester = DispatchTester(of: Dispatcher.User.self)
        let users = tester.track(store.users, named: "users")

        await action.fetchUsers(withQuery: "mar", after: store.lastPageInfo.value?.endCursor)

        await tester.receive(.lastSearchQuery("mar"))
        await tester.receive(.isUserFetching(true))
        await tester.receive(.lastError(nil))
        await tester.receive(.addUsers(second.nodes))
        await users.receive(first.nodes + second.nodes)
        await tester.receive(.lastPageInfo(GitHub.PageInfo(hasNextPage: false, endCursor: nil)))
        await tester.receive(.userTotalCount(2))
        await tester.receive(.isUserFetching(false))
        #expect(session.requests.last == .searchUsers(query: "mar", first: 1, after: "c1"))
    }

    @Test func clearingUsersForgetsUsersPageInfoQueryAndTotal() async {
        let session = MockSession(users: [.success(Sample.page([Sample.user("marty")], total: 1))])
        let action = UserAction(session: session)
        await action.fetchUsers(withQuery: "mar", after: nil)
        let tester = DispatchTester(of: Dispatcher.User.self)

        action.clearUsers()

        await tester.receive(.removeAllUsers)
        await tester.receive(.lastPageInfo(nil))
        await tester.receive(.lastSearchQuery(""))
        await tester.receive(.userTotalCount(0))
    }

    @Test func aSearchFromTheScreenShowsTheUsersFound() async {
        // An integration test: it asserts what the screen shows and skips the rest.
        let page = Sample.page([Sample.user("marty")], total: 1)
        let viewModel = SearchViewModel(action: UserAction(session: MockSession(users: [.success(page)])))
        let tester = DispatchTester(of: Dispatcher.User.self, exhaustivity: .off)

        await viewModel.search("marty")

        await tester.receive(.addUsers(page.nodes))
        await tester.receive(.isUserFetching(false))
        #expect(tester.skippedDispatches.count == 9, "the clearing, the query, the flag, the error, the paging")
        #expect(viewModel.counterText == "1 / 1")
    }

    @Test func fetchingRepositoriesDispatchesTheRequestThenThePage() async {
        let page = Sample.page([Sample.repository("hoverboard")], total: 25, next: "r1")
        let session = MockSession(repositories: [.success(page)])
        let store = RepositoryStore.instantiate()
        let tester = DispatchTester(of: Dispatcher.Repository.self)
        let repositoryIDs = tester.track(store.repositories.keys, named: "repositories' ids")

        let request = RepositoryAction(session: session).fetchRepositories(withUserID: "id-marty", after: nil)

        await tester.receive(.lastTask(request))
        await tester.receive(.isRepositoryFetching(true))
        await tester.receive(.lastError(nil))
        await tester.receive(.lastPageInfo(page.pageInfo))
        await tester.receive(.addRepositories(page.nodes))
        await repositoryIDs.receive(page.nodes.map(\.id))
        await tester.receive(.repositoryTotalCount(25))
        await tester.receive(.isRepositoryFetching(false))
        await request.finish()
    }

    @Test func aRateLimitedFetchOfRepositoriesReportsTheErrorAndStopsFetching() async {
        let resetsAt = Date(timeIntervalSince1970: 1_800_000_000)
        let session = MockSession(repositories: [.failure(.rateLimited(resetsAt: resetsAt))])
        let tester = DispatchTester(of: Dispatcher.Repository.self)

        let request = RepositoryAction(session: session).fetchRepositories(withUserID: "id-marty", after: "r1")

        await tester.receive(.lastTask(request))
        await tester.receive(.isRepositoryFetching(true))
        await tester.receive(.lastError(.rateLimited(resetsAt: resetsAt)))
        await tester.receive(.isRepositoryFetching(false))
        await request.finish()
        #expect(session.requests == [.userRepositories(userID: "id-marty", first: 10, after: "r1")])
    }

    @Test func clearingRepositoriesCancelsTheRequestInFlight() async {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(latency: .seconds(10)))
        let request = action.fetchRepositories(withUserID: "MDQ6VXNlcjE5ODU=", after: nil)
        action.clearRepositories(cancelling: store.lastTask.value)
        await request.finish()
        #expect(store.lastTask.value == nil)
        #expect(store.repositories.elements.map(\.value).isEmpty)
        #expect(store.lastError.value == nil, "a cancelled request is not an error")
        #expect(!store.isRepositoryFetching.value)
    }

    @Test func favoritesAreAddedOnceAndRemoved() async {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: MockSession())
        let hoverboard = Sample.repository("hoverboard")
        let delorean = Sample.repository("delorean")
        let tester = DispatchTester(of: Dispatcher.Repository.self)
        let favorites = tester.track(store.favorites, named: "favorites")

        action.addFavorite(hoverboard)
        action.addFavorite(delorean)
        action.addFavorite(hoverboard)
        action.removeFavorite(hoverboard)
        action.removeAllFavorites()

        await tester.receive(.addFavorite(hoverboard))
        await tester.receive(.addFavorite(delorean))
        await tester.receive(.addFavorite(hoverboard))
        await tester.receive(.removeFavorite(hoverboard))
        await tester.receive(.removeAllFavorites)
        // Adding a favorite twice changes nothing the second time.
        await favorites.receive([hoverboard])
        await favorites.receive([hoverboard, delorean])
        await favorites.receive([delorean])
        await favorites.receive([])
    }

    @Test func eachFavoriteSavedOrTakenOutIsSentOnceAsAnEvent() {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: MockSession())
        let hoverboard = Sample.repository("hoverboard")
        let delorean = Sample.repository("delorean")
        let changes = Locked<[FavoriteChange]>([])
        let dust = store.favoriteChanges.observe { change in changes.withLock { $0.append(change) } }
        defer { dust.clean() }
        action.addFavorite(hoverboard)
        action.addFavorite(delorean)
        action.addFavorite(hoverboard)
        action.removeFavorite(hoverboard)
        action.removeFavorite(hoverboard)
        action.removeAllFavorites()
        #expect(
            changes.value == [.added(hoverboard), .added(delorean), .removed(hoverboard), .removed(delorean)],
            "a repeated add or a remove of nothing is no event")
    }
}
