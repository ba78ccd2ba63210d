import FluxCapacitor

/// The screens of the app and the moves between them: runs commands against the view
/// models and says what to show. On the main actor, as an app's navigation is.
@MainActor
final class Navigator {
    enum Screen: Equatable {
        case search, userRepositories, repository, favorites
    }

    private(set) var screen = Screen.search
    /// Where `back` goes: the screens, with the repository that was open on a repository
    /// screen (opening another one replaces the selection in the store).
    private var history: [(screen: Screen, repository: GitHub.Repository?)] = []
    private let repositoryAction: RepositoryAction

    let console: any Console
    let search: SearchViewModel
    let userRepositories: UserRepositoryViewModel
    let repository: RepositoryViewModel
    let favorites: FavoriteViewModel

    /// View models for `session`, reporting progress to `console`.
    init(userAction: UserAction, repositoryAction: RepositoryAction, console: any Console) {
        self.console = console
        self.repositoryAction = repositoryAction
        search = SearchViewModel(action: userAction) { event in
            if event == .loading(true) { console.write("  … searching GitHub users") }
        }
        userRepositories = UserRepositoryViewModel(action: repositoryAction) { event in
            if event == .loading(true) { console.write("  … fetching repositories") }
        }
        repository = RepositoryViewModel(action: repositoryAction) { event in
            if case .favorite(let isFavorite) = event {
                console.write(isFavorite ? "  ★ starred" : "  ☆ unstarred")
            }
        }
        favorites = FavoriteViewModel(action: repositoryAction) { event in
            if case .favoriteCount(let count) = event {
                console.write("  favorites: \(count)")
            }
        }
    }

    /// How many rows of a list a screen shows (the walk-through keeps it short).
    var maxRows: Int?

    /// What the current screen shows.
    var lines: [String] {
        switch screen {
        case .search: Screens.search(search, maxRows: maxRows)
        case .userRepositories: Screens.userRepositories(userRepositories, maxRows: maxRows)
        case .repository: Screens.repository(repository)
        case .favorites: Screens.favorites(favorites)
        }
    }

    /// Goes to the screen the stores show after a replay: the open repository, else the
    /// selected user's repositories, else the search; `back` goes the way the session came.
    func resume() {
        history.removeAll()
        screen = .search
        if userRepositories.user != nil {
            go(to: .userRepositories)
        }
        if repository.repository != nil {
            go(to: .repository)
        }
    }

    /// Cancels the requests in flight (Ctrl-C): nothing of them reaches the stores after
    /// this returns, and fetching is off.
    func cancelRequests() {
        search.cancelSearch()
        repositoryAction.cancelFetching()
    }

    /// Prints the current screen.
    func show() {
        lines.forEach(console.write)
    }

    /// Runs `command`; throws a one-line message when it does not apply here.
    func run(_ command: Command) async throws(CommandError) {
        switch command {
        case .search(let query):
            go(to: .search, keepingHistory: false)
            await search.search(query)
        case .more:
            switch screen {
            case .search:
                guard await search.loadMore() else { throw CommandError("no more users to load") }
            case .userRepositories:
                guard await userRepositories.loadMore() else { throw CommandError("no more repositories to load") }
            case .repository, .favorites:
                throw CommandError("nothing to page through here")
            }
        case .open(let index):
            try await open(index)
        case .favorite(let index):
            try toggleFavorite(index)
        case .favorites:
            go(to: .favorites)
        case .back:
            guard let previous = history.popLast() else { throw CommandError("nowhere to go back to") }
            if previous.screen == .repository, let repository = previous.repository {
                repositoryAction.selectRepository(repository)
            }
            screen = previous.screen
        case .help, .quit:
            break
        }
    }

    private func open(_ index: Int) async throws(CommandError) {
        switch screen {
        case .search:
            guard search.selectUser(at: index) != nil else {
                throw outOfRange(index, search.users.count, "user", "open", hint: "search first")
            }
            go(to: .userRepositories)
            await userRepositories.load()
        case .userRepositories:
            guard userRepositories.selectRepository(at: index) != nil else {
                throw outOfRange(index, userRepositories.repositories.count, "repository", "open")
            }
            go(to: .repository)
        case .favorites:
            guard favorites.selectFavorite(at: index) != nil else {
                throw outOfRange(index, favorites.favorites.count, "favorite", "open")
            }
            go(to: .repository)
        case .repository:
            throw CommandError("nothing to open here; 'back' returns to the list")
        }
    }

    private func toggleFavorite(_ index: Int?) throws(CommandError) {
        switch (screen, index) {
        case (.repository, nil):
            guard repository.toggleFavorite() != nil else { throw CommandError("no repository open") }
        case (.userRepositories, let index?):
            guard userRepositories.toggleFavorite(at: index) != nil else {
                throw outOfRange(index, userRepositories.repositories.count, "repository", "star")
            }
        case (.favorites, let index?):
            guard favorites.removeFavorite(at: index) != nil else {
                throw outOfRange(index, favorites.favorites.count, "favorite", "unstar")
            }
        case (.repository, _?):
            throw CommandError("on a repository, 'fav' alone stars or unstars it")
        case (_, nil):
            throw CommandError("'fav' needs the number of a repository, like 'fav 1'")
        case (.search, _?):
            throw CommandError("open a user first: 'fav N' stars repositories")
        }
    }

    private func go(to next: Screen, keepingHistory: Bool = true) {
        guard next != screen || next == .repository else { return }
        if keepingHistory {
            history.append((screen, screen == .repository ? repository.repository : nil))
        } else {
            history.removeAll()
        }
        screen = next
    }

    private func outOfRange(
        _ index: Int, _ count: Int, _ noun: String, _ verb: String, hint: String? = nil
    ) -> CommandError {
        if count == 0 {
            return CommandError("there is no \(noun) to \(verb) here" + (hint.map { "; \($0)" } ?? ""))
        }
        return CommandError("no \(noun) \(index + 1) here (1–\(count))")
    }
}
