import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

@testable import RepositorySearchKit

/// Answers a search for `heldQuery` only once `release` is finished, and answers it even if
/// the search was cancelled meanwhile (the worst case: a stale answer that does come back).
private final class HeldSession: GitHubSession, @unchecked Sendable {
    // Sendable: `lock` guards `asked`; the rest is immutable.
    private let lock = NSLock()
    private var asked: [String] = []
    let heldQuery: String
    let release: AsyncStream<Void>
    let users: [String: GitHub.Page<GitHub.User>]

    init(holding heldQuery: String, until release: AsyncStream<Void>, users: [String: GitHub.Page<GitHub.User>]) {
        self.heldQuery = heldQuery
        self.release = release
        self.users = users
    }

    var queries: [String] { lock.withLock { asked } }

    func send<Request: GitHubRequest>(_ request: Request) async throws -> Request.Response {
        guard case .searchUsers(let query, _, _) = request.operation, let page = users[query] else {
            throw GitHubError.transport("no canned answer")
        }
        lock.withLock { asked.append(query) }
        if query == heldQuery {
            // Not cancellable: the answer comes back however late.
            await Task.detached { [release] in
                for await _ in release {}
            }.value
        }
        return page as! Request.Response
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
        let store = UserStore.instantiate()
        let (release, released) = AsyncStream<Void>.makeStream()
        let session = HeldSession(
            holding: "slow", until: release, users: ["slow": Sample.page([Sample.user("slowpoke")], total: 1)])
        let action = UserAction(session: session)
        let search = try #require(action.startFetchingUsers(withQuery: "slow", after: nil))
        try await waitUntil { session.queries == ["slow"] }
        #expect(store.isUserFetching.value)
        action.clearUsers()
        #expect(action.startFetchingUsers(withQuery: "", after: nil) == nil)
        #expect(search.isCancelled)
        released.finish()
        await search.finish()
        #expect(store.users.value.isEmpty)
        #expect(!store.isUserFetching.value)
    }
}
