import FluxCapacitor
import Foundation

/// The scripted tour that `repository-search` runs by default: each step shows the action
/// invoked, the states it dispatched (from the dispatcher's log) and the screen after it.
/// Ctrl-C stops it after the step that runs.
@MainActor
struct Walkthrough {
    let session: any GitHubSession
    /// The session of the last step, which fails on purpose, and how.
    let failingSession: any GitHubSession
    let failure: StubSession.Failure
    let console: any Console
    let interruption: Interruption

    private struct Step {
        let title: String
        let action: String
        let command: Command
        /// Skip the command if the open repository is a favorite already (kept from an
        /// earlier run): starring must not turn into unstarring.
        var onlyIfNotFavorite = false
        /// A search started just before the command and left running, as a search field
        /// starts one per keystroke: the command's own search cancels it.
        var searchLeftRunning: String?
    }

    private static let steps: [Step] = [
        Step(
            title: "Search users whose name contains \"mar\"",
            action:
                "SearchViewModel.search(\"mar\") → UserAction.clearUsers(), UserAction.fetchUsers(withQuery: \"mar\", after: nil)",
            command: .search("mar")),
        Step(
            title: "Load the next page of users",
            action: "SearchViewModel.loadMore() → UserAction.fetchUsers(withQuery: \"mar\", after: endCursor)",
            command: .more),
        Step(
            title: "Open the first user: their repositories, first page",
            action: "UserAction.selectUser(_:), then RepositoryAction.fetchRepositories(withUserID:after: nil)",
            command: .open(0)),
        Step(
            title: "Second page of repositories",
            action: "RepositoryAction.fetchRepositories(withUserID:after: endCursor)",
            command: .more),
        Step(
            title: "Third and last page",
            action: "RepositoryAction.fetchRepositories(withUserID:after: endCursor)",
            command: .more),
        Step(
            title: "Open the first repository",
            action: "RepositoryAction.selectRepository(_:)",
            command: .open(0)),
        Step(
            title: "Star it (favorites are saved, and come back on the next run)",
            action: "RepositoryAction.addFavorite(_:)",
            command: .favorite(nil),
            onlyIfNotFavorite: true),
        Step(
            title: "Show the favorites",
            action: "(no action: FavoriteViewModel reads RepositoryStore.favorites)",
            command: .favorites),
        Step(
            title: "A user with no repositories, searched while the search for \"marg\" runs (it is cancelled)",
            action: "SearchViewModel.startSearch(\"marg\"), then SearchViewModel.search(\"marge\")",
            command: .search("marge"),
            searchLeftRunning: "marg"),
        Step(
            title: "",
            action: "UserAction.selectUser(_:), then RepositoryAction.fetchRepositories(withUserID:after: nil)",
            command: .open(0)),
    ]

    /// Runs the tour; returns the exit status (0).
    func run() async -> Int32 {
        console.write("FluxCapacitor repository search: a walk-through against a stub GitHub (no network).")
        console.write("Each step shows the action invoked (▶), the states dispatched (·) and the screen.")
        let log = Dispatcher.current.printDispatches(limit: 110) { [console] line in
            console.write(Self.logLine(line))
        }
        defer { log.clean() }

        let navigator = Navigator(
            userAction: UserAction(session: session),
            repositoryAction: RepositoryAction(session: session),
            console: console)
        navigator.maxRows = 8
        var number = 0
        for step in Self.steps {
            // The output cannot be written (a full disk): nobody would see the rest.
            guard console.failure == nil else { return 1 }
            guard !interruption.isInterrupted else {
                console.write("Interrupted (Ctrl-C): stopping.")
                return 0
            }
            if !step.title.isEmpty {
                number += 1
                console.write("")
                console.write("\(number). \(step.title)")
            }
            if step.onlyIfNotFavorite, navigator.repository.isFavorite {
                console.write("  (already a favorite, kept from an earlier run)")
                navigator.show()
                continue
            }
            console.write("  ▶ \(step.action)")
            if let query = step.searchLeftRunning {
                navigator.search.startSearch(query)
            }
            do {
                try await navigator.run(step.command)
            } catch {
                console.write("  error: \(error)")
            }
            navigator.show()
        }

        number += 1
        console.write("")
        console.write("\(number). An error: a search against a stub that fails (--fail \(failure.rawValue))")
        console.write(
            "  ▶ SearchViewModel.search(\"doc\") with UserAction(session: StubSession(failure: .\(failure)))")
        // The navigator's search screen reports the progress: it observes the same store.
        let failing = SearchViewModel(action: UserAction(session: failingSession))
        await failing.search("doc")
        Screens.search(failing).forEach(console.write)

        console.write("")
        console.write("Done. Try it yourself: swift run repository-search --interactive")
        return 0
    }

    /// A line of the dispatch log as the walk-through and `--log` show it.
    nonisolated static func logLine(_ line: String) -> String {
        "    · " + line.replacingOccurrences(of: "FluxCapacitor: ", with: "")
    }
}
