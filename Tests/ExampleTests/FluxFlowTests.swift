import FluxCapacitor
import FluxCapacitorTesting
import Testing

@testable import RepositorySearchKit

@Suite("Flux flows: action → store", .isolatedDispatcher)
struct FluxFlowTests {
    @Test func fetchingUsersRecordsTheQueryThenFetchesAndFillsTheStore() async {
        let page = Sample.page([Sample.user("marty"), Sample.user("marvin")], total: 9, next: "c2")
        let session = MockSession(users: [.success(page)])
        let store = UserStore.instantiate()
        let recorder = DispatchRecorder()

        await UserAction(session: session, pageSize: 2).fetchUsers(withQuery: "mar", after: nil)

        #expect(
            recorder.states(of: Dispatcher.User.self) == [
                .lastSearchQuery("mar"),
                .isUserFetching(true),
                .lastError(nil),
                .addUsers(page.nodes),
                .lastPageInfo(page.pageInfo),
                .userTotalCount(9),
                .isUserFetching(false),
            ])
        #expect(session.requests == [.searchUsers(query: "mar", first: 2, after: nil)])
        #expect(store.users.value == page.nodes)
        #expect(store.totalCount.value == 9)
        #expect(!store.isUserFetching.value)
    }

    @Test func anEmptyQueryStopsAfterRecordingIt() async {
        let session = MockSession()
        let recorder = DispatchRecorder()
        await UserAction(session: session).fetchUsers(withQuery: "", after: nil)
        #expect(recorder.states(of: Dispatcher.User.self) == [.lastSearchQuery("")])
        #expect(session.requests.isEmpty)
    }

    @Test func aFailedSearchReportsTheErrorAndStopsFetching() async {
        let store = UserStore.instantiate()
        let session = MockSession(users: [.failure(.http(status: 500, message: "boom"))])
        await UserAction(session: session).fetchUsers(withQuery: "mar", after: nil)
        #expect(store.lastError.value == .http(status: 500, message: "boom"))
        #expect(!store.isUserFetching.value)
        #expect(store.users.value.isEmpty)
    }

    @Test func clearingUsersForgetsUsersPageInfoQueryAndTotal() async {
        let store = UserStore.instantiate()
        let session = MockSession(users: [.success(Sample.page([Sample.user("marty")], total: 1))])
        let action = UserAction(session: session)
        await action.fetchUsers(withQuery: "mar", after: nil)
        action.clearUsers()
        #expect(store.users.value.isEmpty)
        #expect(store.lastPageInfo.value == nil)
        #expect(store.lastSearchQuery.value == "")
        #expect(store.totalCount.value == 0)
    }

    @Test func fetchingRepositoriesDispatchesTheRequestThenThePage() async {
        let page = Sample.page([Sample.repository("hoverboard")], total: 25, next: "r1")
        let session = MockSession(repositories: [.success(page)])
        let store = RepositoryStore.instantiate()
        let recorder = DispatchRecorder()

        let request = RepositoryAction(session: session).fetchRepositories(withUserID: "id-marty", after: nil)
        await request.finish()

        #expect(
            recorder.states(of: Dispatcher.Repository.self) == [
                .lastTask(request),
                .isRepositoryFetching(true),
                .lastError(nil),
                .lastPageInfo(page.pageInfo),
                .addRepositories(page.nodes),
                .repositoryTotalCount(25),
                .isRepositoryFetching(false),
            ])
        #expect(store.repositories.value == page.nodes)
        #expect(store.lastTask.value == request)
    }

    @Test func clearingRepositoriesCancelsTheRequestInFlight() async {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(latency: .seconds(10)))
        let request = action.fetchRepositories(withUserID: "MDQ6VXNlcjE5ODU=", after: nil)
        action.clearRepositories(cancelling: store.lastTask.value)
        await request.finish()
        #expect(store.lastTask.value == nil)
        #expect(store.repositories.value.isEmpty)
        #expect(store.lastError.value == nil, "a cancelled request is not an error")
        #expect(!store.isRepositoryFetching.value)
    }

    @Test func favoritesAreAddedOnceAndRemoved() {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: MockSession())
        let hoverboard = Sample.repository("hoverboard")
        let delorean = Sample.repository("delorean")
        action.addFavorite(hoverboard)
        action.addFavorite(delorean)
        action.addFavorite(hoverboard)
        #expect(store.favorites.value == [hoverboard, delorean])
        action.removeFavorite(hoverboard)
        #expect(store.favorites.value == [delorean])
        action.removeAllFavorites()
        #expect(store.favorites.value.isEmpty)
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
