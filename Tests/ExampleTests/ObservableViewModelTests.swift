import FluxCapacitor
import FluxCapacitorTesting
import Observation
import TestSupport
import Testing

@testable import repository_search

/// What a SwiftUI view of the example would see: the `@Observable` view models read the
/// stores directly, and a read in a `body` (here, in `withObservationTracking`) is told of
/// the next change of what it read, and of nothing else.
@Suite("Observable view models", .isolatedDispatcher, .inMemoryStorage)
struct ObservableViewModelTests {
    @Test func theSearchScreenIsRedrawnWhenASearchChangesWhatItShows() async {
        let session = MockSession(users: [.success(Sample.page([Sample.user("a")], total: 40))])
        let viewModel = SearchViewModel(action: UserAction(session: session))
        let changes = Locked(0)
        let counter = withObservationTracking {
            viewModel.counterText
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        #expect(counter == "0 / 0")

        await viewModel.search("mar")

        #expect(changes.value == 1, "once per render")
        #expect(viewModel.counterText == "1 / 40")
    }

    @Test func theUserRepositoryScreenHearsAFavoriteButNotAnotherUsersSelection() async {
        let repositories = MockSession(repositories: [.success(Sample.page([Sample.repository("a")], total: 1))])
        let viewModel = UserRepositoryViewModel(action: RepositoryAction(session: repositories))
        let users = UserAction(session: MockSession())
        users.selectUser(Sample.user("marty"))
        await viewModel.load()
        #expect(viewModel.repositories.map(\.name) == ["a"])
        let changes = Locked(0)
        let favorites = withObservationTracking {
            viewModel.favoriteIDs
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        #expect(favorites.isEmpty)

        users.selectUser(Sample.user("doc"))
        #expect(changes.value == 0, "the favorites did not change")

        #expect(viewModel.toggleFavorite(at: 0) == true)
        #expect(changes.value == 1)
    }

    @Test func theFavoritesScreenIsRedrawnWhenAFavoriteIsAdded() {
        let action = RepositoryAction(session: MockSession())
        let viewModel = FavoriteViewModel(action: action)
        let changes = Locked(0)
        withObservationTracking {
            _ = viewModel.favorites
        } onChange: {
            changes.withLock { $0 += 1 }
        }

        action.addFavorite(Sample.repository("hoverboard"))

        #expect(changes.value == 1)
        #expect(viewModel.favorites.map(\.name) == ["hoverboard"])
    }

    @Test func theRepositoryScreenIsRedrawnWhenItsFavoriteMarkChanges() {
        let action = RepositoryAction(session: MockSession())
        let viewModel = RepositoryViewModel(action: action)
        action.selectRepository(Sample.repository("flux"))
        let changes = Locked(0)
        let isFavorite = withObservationTracking {
            viewModel.isFavorite
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        #expect(!isFavorite)

        #expect(viewModel.toggleFavorite() == true)

        #expect(changes.value == 1)
        #expect(viewModel.isFavorite)
    }
}
