import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

@testable import repository_search

/// Collects a view model's events.
final class Events: Sendable {
    let recorded = Locked<[ViewEvent]>([])
    var handler: ViewEvents { { [recorded] event in recorded.withLock { $0.append(event) } } }
    var values: [ViewEvent] { recorded.value }
}

@Suite("View models", .isolatedDispatcher, .inMemoryStorage)
struct ViewModelTests {
    @Test func searchingClearsThenFetchesAndShowsACounter() async {
        let events = Events()
        let session = MockSession(users: [
            .success(Sample.page([Sample.user("a"), Sample.user("b")], total: 1204, next: "c2")),
            .success(Sample.page([Sample.user("c")], total: 3)),
        ])
        let viewModel = SearchViewModel(action: UserAction(session: session), events: events.handler)
        await viewModel.search("mar")
        #expect(viewModel.users.map(\.login) == ["a", "b"])
        #expect(viewModel.counterText == "2 / 1204")
        #expect(viewModel.query == "mar")
        #expect(viewModel.canLoadMore)
        #expect(events.values == [.loading(true), .loading(false)])

        await viewModel.search("mark")
        #expect(viewModel.users.map(\.login) == ["c"], "a new query replaces the users")
        #expect(viewModel.counterText == "1 / 3")
    }

    @Test func repeatingTheQueryShownDoesNothingUnlessItFailed() async {
        let session = MockSession(users: [
            .failure(.transport("offline")),
            .success(Sample.page([Sample.user("a")], total: 1)),
        ])
        let viewModel = SearchViewModel(action: UserAction(session: session))
        await viewModel.search("mar")
        #expect(viewModel.errorMessage == "Could not reach GitHub: offline")
        await viewModel.search("mar")
        #expect(viewModel.users.map(\.login) == ["a"])
        await viewModel.search(" mar ")
        #expect(session.requests.count == 2)
    }

    @Test func loadingMoreAsksForTheNextPageOnlyWhenThereIsOne() async {
        let session = MockSession(users: [
            .success(Sample.page([Sample.user("a")], total: 2, next: "c1")),
            .success(Sample.page([Sample.user("b")], total: 2)),
        ])
        let viewModel = SearchViewModel(action: UserAction(session: session, pageSize: 1))
        await viewModel.search("x")
        #expect(await viewModel.loadMore())
        #expect(await !viewModel.loadMore())
        #expect(
            session.requests == [
                .searchUsers(query: "x", first: 1, after: nil),
                .searchUsers(query: "x", first: 1, after: "c1"),
            ])
        #expect(viewModel.counterText == "2 / 2")
    }

    @Test func selectingAUserDispatchesTheSelection() async {
        let recorder = DispatchRecorder()
        let session = MockSession(users: [.success(Sample.page([Sample.user("a")], total: 1))])
        let viewModel = SearchViewModel(action: UserAction(session: session))
        await viewModel.search("a")
        #expect(viewModel.selectUser(at: 3) == nil)
        let user = viewModel.selectUser(at: 0)
        #expect(recorder.states(of: Dispatcher.User.self).last == .selectedUser(user))
        #expect(UserStore.instantiate().selectedUser.value == user)
    }

    @Test func theUserRepositoryScreenPagesTheSelectedUsersRepositories() async {
        let events = Events()
        let userStore = UserStore.instantiate()
        let user = Sample.user("marty", repositories: 3)
        UserAction(session: MockSession()).selectUser(user)
        #expect(userStore.selectedUser.value == user)
        let session = MockSession(repositories: [
            .success(Sample.page([Sample.repository("a"), Sample.repository("b")], total: 3, next: "r2")),
            .success(Sample.page([Sample.repository("c")], total: 3)),
        ])
        let viewModel = UserRepositoryViewModel(action: RepositoryAction(session: session), events: events.handler)
        await viewModel.load()
        #expect(viewModel.counterText == "2 / 3")
        #expect(await viewModel.loadMore())
        #expect(viewModel.repositories.map(\.name) == ["a", "b", "c"])
        #expect(await !viewModel.loadMore())
        #expect(session.requests.first == .userRepositories(userID: user.id, first: 10, after: nil))
        #expect(events.values == [.loading(true), .loading(false), .loading(true), .loading(false)])

        #expect(viewModel.toggleFavorite(at: 1) == true)
        #expect(viewModel.favoriteIDs == [Sample.repository("b").id])
        #expect(viewModel.toggleFavorite(at: 1) == false)
        #expect(viewModel.toggleFavorite(at: 9) == nil)
    }

    @Test func theRepositoryScreenTogglesTheFavoriteOfTheOpenRepository() {
        let events = Events()
        let action = RepositoryAction(session: MockSession())
        let viewModel = RepositoryViewModel(action: action, events: events.handler)
        #expect(viewModel.toggleFavorite() == nil, "nothing open")
        action.selectRepository(Sample.repository("hoverboard"))
        #expect(viewModel.toggleFavorite() == true)
        #expect(viewModel.isFavorite)
        #expect(viewModel.toggleFavorite() == false)
        #expect(events.values == [.favorite(true), .favorite(false)])
    }

    @Test func theFavoritesScreenOpensAFavoriteAndClearsItsStoreWhenItGoes() {
        let events = Events()
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: MockSession())
        action.addFavorite(Sample.repository("hoverboard"))
        do {
            let viewModel = FavoriteViewModel(action: action, events: events.handler)
            #expect(viewModel.favorites.map(\.name) == ["hoverboard"])
            #expect(viewModel.selectFavorite(at: 0)?.name == "hoverboard")
            #expect(store.selectedRepository.value?.name == "hoverboard")
            #expect(viewModel.removeFavorite(at: 0)?.name == "hoverboard")
            #expect(events.values == [.favoriteCount(0)])
        }
        #expect(RepositoryStore.instantiate() !== store, "the favorites screen cleared its store")
    }

    @Test func openingAnotherRepositoryIsNotAFavoriteChangeButStarringItIs() {
        let events = Events()
        let action = RepositoryAction(session: MockSession())
        let viewModel = RepositoryViewModel(action: action, events: events.handler)
        action.selectRepository(Sample.repository("a"))
        #expect(viewModel.toggleFavorite() == true)
        action.selectRepository(Sample.repository("b"))
        #expect(viewModel.toggleFavorite() == true)
        action.selectRepository(Sample.repository("a"))
        #expect(viewModel.toggleFavorite() == false)
        #expect(events.values == [.favorite(true), .favorite(true), .favorite(false)])
    }

    @Test func aRepositoryScreenMadeAfterAStarDoesNotHearItAgain() {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: MockSession())
        action.selectRepository(Sample.repository("hoverboard"))
        action.addFavorite(Sample.repository("hoverboard"))
        let events = Events()
        let viewModel = RepositoryViewModel(action: action, store: store, events: events.handler)
        #expect(viewModel.isFavorite)
        #expect(events.values.isEmpty, "the star was an event, not a state to replay")
        #expect(viewModel.toggleFavorite() == false)
        #expect(events.values == [.favorite(false)])
    }

    @Test func starringTheOpenRepositoryFromItsUsersListIsHeardOnTheRepositoryScreen() {
        let events = Events()
        let action = RepositoryAction(session: MockSession())
        let repositoryScreen = RepositoryViewModel(action: action, events: events.handler)
        action.selectRepository(Sample.repository("b"))
        action.addFavorite(Sample.repository("a"))
        action.addFavorite(Sample.repository("b"))
        #expect(events.values == [.favorite(true)], "only the open repository's star")
        _ = repositoryScreen
    }

    @Test func loadingAnotherUserDropsTheRequestInFlightForThePreviousOne() async {
        let userStore = UserStore.instantiate()
        let userAction = UserAction(session: MockSession())
        let repositoryStore = RepositoryStore.instantiate()
        let slow = RepositoryAction(session: StubSession(latency: .seconds(30)))
        let viewModel = UserRepositoryViewModel(action: slow)
        userAction.selectUser(Sample.user("slow"))
        let stale = slow.fetchRepositories(withUserID: "id-slow", after: nil)

        userAction.selectUser(Sample.user("marty"))
        let quick = UserRepositoryViewModel(
            action: RepositoryAction(
                session: MockSession(repositories: [.success(Sample.page([Sample.repository("new")], total: 1))])))
        await quick.load()
        await stale.finish()

        #expect(repositoryStore.repositories.elements.map(\.value).map(\.name) == ["new"])
        #expect(!repositoryStore.isRepositoryFetching.value)
        #expect(repositoryStore.lastError.value == nil)
        #expect(userStore.selectedUser.value?.login == "marty")
        _ = viewModel
    }
}
