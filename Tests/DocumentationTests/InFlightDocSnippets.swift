// The samples of the doc comments of InFlightTasks and InFlightTask, verbatim (see
// CoreDocSnippets.swift for the rules).

import FluxCapacitor
import FluxCapacitorTesting
import Testing

struct RepositoryPager: Actionable {
    typealias DispatchStateType = Dispatcher.Repository
    let session: any GitHubSession
    let fetches = InFlightTasks<String>(policy: .cancelRunning)

    /// Opening another user cancels the fetch of the previous user's.
    @discardableResult
    func showRepositories(ofUser login: String) -> InFlightTask? {
        fetches.start("repositories") { task in
            let found = (try? await session.repositories(ofUser: login)) ?? []
            invoke(.addRepositories(found), unlessCancelled: task)
        }
    }
}

extension RepositoryPager {
    func startSample(login: String, dustBuster: DustBuster) {
        let fetch = fetches.start("repositories") { task in
            let found = (try? await session.repositories(ofUser: login)) ?? []
            invoke(.addRepositories(found), unlessCancelled: task)
        }
        fetch?.cleaned(by: dustBuster)
    }

    func onCancelSample(login: String) {
        fetches.start(
            "repositories",
            onCancel: { invoke(.isRepositoryFetching(false)) }
        ) { task in
            invoke(.isRepositoryFetching(true), unlessCancelled: task)
            let found = (try? await session.repositories(ofUser: login)) ?? []
            invoke(.addRepositories(found), unlessCancelled: task)
            invoke(.isRepositoryFetching(false), unlessCancelled: task)
        }
    }

    func cancelSamples() {
        fetches.cancel("repositories")
        fetches.cancelAll()
    }
}

func inFlightTaskSamples(pager: RepositoryPager, dustBuster: DustBuster) async {
    // Leaving the screen cancels it:
    pager.showRepositories(ofUser: "marty")?.cleaned(by: dustBuster)
    do {
        let fetch = pager.showRepositories(ofUser: "marty")
        if fetch?.isCancelled == true { print("replaced") }
    }
    do {
        let fetch = pager.showRepositories(ofUser: "marty")
        fetch?.cancel()  // nothing it dispatches from now on reaches a store
    }
    await pager.showRepositories(ofUser: "marty")?.waitUntilDone()
}

func inFlightTaskIdentitySamples(fetch: InFlightTask, otherFetch: InFlightTask) {
    let isTheSameFetch = fetch == otherFetch
    var seen: Set<InFlightTask> = []
    seen.insert(fetch)
    print(isTheSameFetch, seen.count)
}

func inFlightTasksPolicySamples() {
    let fetches = InFlightTasks<String>(policy: .cancelRunning)
    let refreshes = InFlightTasks<String>(policy: .ignoreNew)
    if !refreshes.isRunning("feed") { print("idle") }
    print(fetches.policy)
}

/// A session whose answer for "slow" comes only when `release` is finished.
private struct SlowSession: GitHubSession {
    let release: AsyncStream<Void>

    func repositories(ofUser login: String) async throws -> [GitHub.Repository] {
        if login == "slow" {
            for await _ in release {}
        }
        return [GitHub.Repository(name: login)]
    }
}

@Test(.isolatedDispatcher) func theSamplesPagerDropsTheFetchThatAnotherUserReplaced() async {
    let store = RepositoryStore.instantiate()
    let (release, released) = AsyncStream<Void>.makeStream()
    let pager = RepositoryPager(session: SlowSession(release: release))
    let slow = pager.showRepositories(ofUser: "slow")
    await pager.showRepositories(ofUser: "fast")?.waitUntilDone()
    released.finish()
    await slow?.waitUntilDone()
    #expect(slow?.isCancelled == true)
    #expect(store.repositories.value.map(\.name) == ["fast"])
}
