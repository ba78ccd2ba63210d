import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

@testable import repository_search

/// Answers a search for `heldQuery`, or a fetch of the repositories of the user whose id
/// is `heldQuery`, only once `release` is finished, and answers it even if the request was
/// cancelled meanwhile (the worst case: a stale answer that does come back).
final class HeldSession: GitHubSession, @unchecked Sendable {
    // Sendable: `lock` guards `asked`; the rest is immutable.
    private let lock = NSLock()
    private var asked: [String] = []
    let heldQuery: String
    let release: AsyncStream<Void>
    let users: [String: GitHub.Page<GitHub.User>]
    let repositories: [String: GitHub.Page<GitHub.Repository>]

    init(
        holding heldQuery: String, until release: AsyncStream<Void>,
        users: [String: GitHub.Page<GitHub.User>] = [:],
        repositories: [String: GitHub.Page<GitHub.Repository>] = [:]
    ) {
        self.heldQuery = heldQuery
        self.release = release
        self.users = users
        self.repositories = repositories
    }

    /// The queries and user ids asked for, in order.
    var queries: [String] { lock.withLock { asked } }

    func send<Request: GitHubRequest>(_ request: Request) async throws -> Request.Response {
        let key: String
        let answer: Any?
        switch request.operation {
        case .searchUsers(let query, _, _):
            (key, answer) = (query, users[query])
        case .userRepositories(let userID, _, _):
            (key, answer) = (userID, repositories[userID])
        }
        guard let answer else { throw GitHubError.transport("no canned answer") }
        lock.withLock { asked.append(key) }
        if key == heldQuery {
            // Not cancellable: the answer comes back however late.
            await Task.detached { [release] in
                for await _ in release {}
            }.value
        }
        return answer as! Request.Response
    }
}

/// The values of a fetching flag that reached its store, in order.
private final class FlagLog: Sendable {
    private let values = Locked<[Bool]>([])
    private let dust: Dust

    /// Logs `flag(state)` of every state reduced for which it is not `nil`.
    private init(_ flag: @escaping @Sendable (any DispatchState) -> Bool?) {
        dust = Dispatcher.current.observeDispatches { [values] event in
            if event.phase == .didReduce, let value = flag(event.state) {
                values.withLock { $0.append(value) }
            }
        }
    }

    deinit {
        dust.clean()
    }

    var reduced: [Bool] { values.value }

    /// `UserStore`'s `isUserFetching`.
    static func userFetching() -> FlagLog {
        FlagLog { state in
            if case .isUserFetching(let value)? = state as? Dispatcher.User { value } else { nil }
        }
    }

    /// `RepositoryStore`'s `isRepositoryFetching`.
    static func repositoryFetching() -> FlagLog {
        FlagLog { state in
            if case .isRepositoryFetching(let value)? = state as? Dispatcher.Repository { value } else { nil }
        }
    }
}

/// A search for "slow" through `UserAction`, in flight: fetching, its answer held until
/// `answer()`.
private struct SlowSearch {
    let store: UserStore
    let action: UserAction
    let search: InFlightTask
    /// `isUserFetching` as reduced, from before the search started.
    let flags: FlagLog
    private let released: AsyncStream<Void>.Continuation

    /// Starts the search (with `others` answered at once), and returns when it is fetching.
    init(answeringAtOnce others: [String: GitHub.Page<GitHub.User>] = [:]) async throws {
        store = UserStore.instantiate()
        let (release, released) = AsyncStream<Void>.makeStream()
        self.released = released
        var users = others
        users["slow"] = Sample.page([Sample.user("slowpoke")], total: 1)
        let session = HeldSession(holding: "slow", until: release, users: users)
        action = UserAction(session: session)
        flags = FlagLog.userFetching()
        search = try #require(action.startFetchingUsers(withQuery: "slow", after: nil))
        try await waitUntil { session.queries == ["slow"] }
    }

    /// Lets the held answer come back (to a search that may have been cancelled).
    func answer() {
        released.finish()
    }
}

@Suite("Cancelling requests in flight", .isolatedDispatcher, .inMemoryStorage)
struct CancellationTests {
    @Test func aNewSearchCancelsTheOneInFlightAndNoStaleDispatchReachesUserStore() async throws {
        let store = UserStore.instantiate()
        let slow = Sample.user("slowpoke")
        let fast = Sample.user("marty")
        let (release, released) = AsyncStream<Void>.makeStream()
        let session = HeldSession(
            holding: "slow", until: release,
            users: ["slow": Sample.page([slow], total: 1), "marty": Sample.page([fast], total: 7)])
        let viewModel = SearchViewModel(action: UserAction(session: session))
        let reachedUserStore = Locked<[Dispatcher.User]>([])
        let log = Dispatcher.current.observeDispatches { event in
            if event.phase == .didReduce, let state = event.state as? Dispatcher.User {
                reachedUserStore.withLock { $0.append(state) }
            }
        }
        defer { log.clean() }

        let slowSearch = Task { await viewModel.search("slow") }
        try await waitUntil { session.queries == ["slow"] }
        await viewModel.search("marty")
        released.finish()
        await slowSearch.value

        #expect(store.users.value == [fast])
        #expect(store.totalCount.value == 7)
        #expect(store.lastSearchQuery.value == "marty")
        #expect(!store.isUserFetching.value)
        let stale = reachedUserStore.value.filter {
            $0 == .addUsers([slow]) || $0 == .userTotalCount(1)
        }
        #expect(stale.isEmpty, "the cancelled search's answer came back, and was dropped")
        #expect(reachedUserStore.value.last == .isUserFetching(false))
    }

    @Test func aSearchForNothingCancelsTheOneInFlightAndStopsFetching() async throws {
        let slow = try await SlowSearch()
        #expect(slow.store.isUserFetching.value)
        slow.action.clearUsers()
        #expect(slow.action.startFetchingUsers(withQuery: "", after: nil) == nil)
        #expect(slow.search.isCancelled)
        #expect(!slow.store.isUserFetching.value, "off when the empty query returned")
        slow.answer()
        await slow.search.waitUntilDone()
        #expect(slow.store.users.value.isEmpty)
        #expect(!slow.store.isUserFetching.value, "and still off when the cancelled search ended")
        #expect(slow.flags.reduced == [true, false])
    }

    /// A search replaced by the next one has its flag turned off by its `onCancel` before
    /// the next one's work begins; its late answer changes nothing.
    @Test func aSearchReplacedByTheNextOneIsOffBeforeTheNextOneBegins() async throws {
        let marty = Sample.user("marty")
        let slow = try await SlowSearch(answeringAtOnce: ["marty": Sample.page([marty], total: 1)])
        #expect(slow.flags.reduced == [true])

        let next = try #require(slow.action.startFetchingUsers(withQuery: "marty", after: nil))
        #expect(slow.search.isCancelled)
        // The next search's work may have begun since: the flag's first change after the
        // slow search turned it on is the cancel's.
        #expect(Array(slow.flags.reduced.prefix(2)) == [true, false], "off when the replacing start returned")
        await next.waitUntilDone()
        #expect(slow.flags.reduced == [true, false, true, false])

        slow.answer()
        await slow.search.waitUntilDone()
        #expect(slow.flags.reduced == [true, false, true, false], "the replaced search's end dispatched nothing")
        #expect(!slow.store.isUserFetching.value)
        #expect(slow.store.users.value == [marty])
    }

    /// A search held by a screen's `DustBuster` ends with the screen, its flag off.
    @Test func aSearchEndedByItsScreensDustBusterIsOffWhenTheBusterGoes() async throws {
        let slow = try await SlowSearch()
        var screen: DustBuster? = DustBuster()
        screen.map { slow.search.cleaned(by: $0) }
        #expect(slow.store.isUserFetching.value)
        #expect(screen?.count == 1)

        screen = nil
        #expect(slow.search.isCancelled)
        #expect(!slow.store.isUserFetching.value, "off when the buster went")
        slow.answer()
        await slow.search.waitUntilDone()
        #expect(!slow.store.isUserFetching.value, "and still off when the cancelled search ended")
        #expect(slow.store.users.value.isEmpty)
        #expect(slow.flags.reduced == [true, false])
    }

    /// `clearRepositories(cancelling:)` cancels the request in flight, which turns its flag
    /// off; its late answer changes nothing.
    @Test func clearingRepositoriesTurnsOffTheFlagOfTheRequestItCancels() async throws {
        let store = RepositoryStore.instantiate()
        let (release, released) = AsyncStream<Void>.makeStream()
        let session = HeldSession(
            holding: "id-marty", until: release,
            repositories: ["id-marty": Sample.page([Sample.repository("hoverboard")], total: 1)])
        let action = RepositoryAction(session: session)
        let flags = FlagLog.repositoryFetching()
        let request = action.fetchRepositories(withUserID: "id-marty", after: nil)
        try await waitUntil { session.queries == ["id-marty"] }
        #expect(store.isRepositoryFetching.value)

        action.clearRepositories(cancelling: store.lastTask.value)
        #expect(!store.isRepositoryFetching.value, "off when the clearing returned")
        released.finish()
        await request.finish()
        #expect(!store.isRepositoryFetching.value, "and still off when the cancelled request ended")
        #expect(store.repositories.elements.map(\.value).isEmpty)
        #expect(store.lastTask.value == nil)
        #expect(flags.reduced == [true, false])
    }

    /// Clearing after the request ended cancels nothing and leaves the flag alone.
    @Test func clearingRepositoriesAfterTheRequestEndedDispatchesNoFlag() async {
        let store = RepositoryStore.instantiate()
        let session = MockSession(repositories: [.success(Sample.page([Sample.repository("hoverboard")], total: 1))])
        let action = RepositoryAction(session: session)
        await action.fetchRepositories(withUserID: "id-marty", after: nil).finish()
        let flags = FlagLog.repositoryFetching()
        action.clearRepositories(cancelling: store.lastTask.value)
        #expect(flags.reduced.isEmpty)
        #expect(!store.isRepositoryFetching.value)
        #expect(store.repositories.elements.map(\.value).isEmpty)
    }
}
