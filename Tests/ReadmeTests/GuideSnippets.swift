// The samples of the guides (the DocC articles ComingFromTheComposableArchitecture,
// Previews, Navigation, LoggingDispatches and ReadingStateInActions, and MIGRATION.md's
// "From the Composable Architecture"), verbatim, over the README's types
// (ReadmeSnippets.swift). Samples that are tests run as tests. Edit the article first,
// then copy the sample here.

import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Observation
import TestSupport
import Testing

// MARK: - ComingFromTheComposableArchitecture.md, MIGRATION.md

struct RepositoryLoader: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository
    let session: any GitHubSession
    let loads = InFlightTasks<String>(policy: .cancelRunning)

    /// A new load cancels the one in flight: nothing of it reaches the store,
    /// but its `onCancel` turns the flag off.
    @discardableResult
    func load(user login: String) -> InFlightTask? {
        loads.start(
            "load",
            onCancel: { invoke(.isRepositoryFetching(false)) }
        ) { task in
            invoke(.isRepositoryFetching(true), unlessCancelled: task)
            let repositories =
                (try? await session.repositories(ofUser: login)) ?? []
            invoke(.removeAllRepositories, unlessCancelled: task)
            invoke(.addRepositories(repositories), unlessCancelled: task)
            invoke(.isRepositoryFetching(false), unlessCancelled: task)
        }
    }
}

@Test(.isolatedDispatcher)
func loadingTurnsTheFlagOnAroundTheRepositories() async {
    let found = [GitHub.Repository(name: "FluxCapacitor")]
    let tester = DispatchTester(of: Dispatcher.Repository.self)
    let loader = RepositoryLoader(session: StubSession(found: found))
    await loader.load(user: "marty")?.waitUntilDone()

    await tester.receive(.isRepositoryFetching(true))
    await tester.receive(.removeAllRepositories)
    await tester.receive(.addRepositories(found))
    await tester.receive(.isRepositoryFetching(false))
}

enum CancelID: Hashable, Sendable {
    case search
    case repositories(user: String)
}

struct UserRepositoryLoader: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository
    let session: any GitHubSession
    let tasks = InFlightTasks<CancelID>(policy: .cancelRunning)

    /// TCA: `.cancellable(id: CancelID.repositories(user: login))`
    @discardableResult
    func load(user login: String) -> InFlightTask? {
        tasks.start(.repositories(user: login)) { task in
            let found = (try? await session.repositories(ofUser: login)) ?? []
            invoke(.addRepositories(found), unlessCancelled: task)
        }
    }

    /// TCA: `.cancel(id: CancelID.repositories(user: login))`
    func stopLoading(user login: String) {
        tasks.cancel(.repositories(user: login))
    }
}

/// A GitHub that answers only when its request is cancelled.
private struct UnansweredSession: GitHubSession {
    func repositories(ofUser _: String) async throws -> [GitHub.Repository] {
        try await Task.sleep(for: .seconds(3_600))
        return [GitHub.Repository(name: "never")]
    }
}

@Suite("ComingFromTheComposableArchitecture.md", .isolatedDispatcher)
struct ComposableArchitectureGuideTests {
    @Test func aCancelledLoadTurnsTheFlagOffWhenTheCancelReturns() async throws {
        let store = RepositoryStore.instantiate()
        let load = RepositoryLoader(session: UnansweredSession()).load(user: "marty")
        try await waitUntil { store.isRepositoryFetching.value }
        load?.cancel()
        #expect(!store.isRepositoryFetching.value)
        await load?.waitUntilDone()
        #expect(!store.isRepositoryFetching.value, "its own end dispatched nothing")
        #expect(store.repositories.value.isEmpty)
    }

    @Test func aLoadIsCancelledByTheEnumCaseItWasStartedWith() async {
        let loader = UserRepositoryLoader(session: UnansweredSession())
        let marty = loader.load(user: "marty")
        let doc = loader.load(user: "doc")
        loader.tasks.cancel(.search)
        loader.stopLoading(user: "marty")
        #expect(marty?.isCancelled == true)
        #expect(doc?.isCancelled == false)
        #expect(loader.tasks.isRunning(.repositories(user: "doc")))
        doc?.cancel()
        await marty?.waitUntilDone()
        await doc?.waitUntilDone()
    }
}

// MARK: - Previews.md

extension RepositoryListModel {
    /// A model over stores of its own, showing `repositories`.
    static func preview(
        showing repositories: [GitHub.Repository]
    ) -> RepositoryListModel {
        let action = RepositoryAction(session: StubSession(found: repositories))
        return Dispatcher.withCurrent(Dispatcher()) {
            let store = RepositoryStore.instantiate()
            action.invoke(.addRepositories(repositories))
            return RepositoryListModel(action: action, store: store)
        }
    }
}

func previewBookmarkStore() throws -> BookmarkStore {
    let storage = InMemoryStorage()
    let bookmarks = [GitHub.Repository(name: "FluxCapacitor")]
    storage.seed(try JSONEncoder().encode(bookmarks), in: "bookmarks")
    return Persistence.withDefaultStorage(storage) {
        Dispatcher.withCurrent(Dispatcher()) { BookmarkStore.instantiate() }
    }
}

@Suite("Previews.md", .isolatedDispatcher)
struct PreviewGuideTests {
    @Test @MainActor func aPreviewModelShowsWhatItWasSeededWith() {
        let model = RepositoryListModel.preview(showing: [GitHub.Repository(name: "FluxCapacitor")])
        #expect(model.names == ["FluxCapacitor"])
        #expect(RepositoryStore.instantiate().repositories.value.isEmpty, "the app's stores are not touched")
    }

    @Test func aPreviewStoreReadsTheSeededStorage() throws {
        let store = try previewBookmarkStore()
        #expect(store.bookmarks.value == [GitHub.Repository(name: "FluxCapacitor")])
    }
}

// MARK: - Navigation.md

enum Screen: Hashable, Sendable {
    case repositories(user: String)
    case repository(name: String)
}

extension Dispatcher {
    enum Route: DispatchState, Equatable {
        typealias RelatedStoreType = RouteStore
        typealias RelatedActionType = RouteAction

        case push(Screen)
        case pop
        case setPath([Screen])
    }
}

final class RouteStore: Storable {
    typealias DispatchStateType = Dispatcher.Route

    let path: Constant<[Screen]>
    private let _path = Variable<[Screen]>([])

    required init() {
        path = Constant(_path)
    }

    func reduce(with state: Dispatcher.Route) {
        switch state {
        case .push(let screen): _path.value.append(screen)
        case .pop: _path.value.removeLast(min(1, _path.value.count))
        case .setPath(let path): _path.value = path
        }
    }
}

struct RouteAction: Actionable {
    typealias DispatchStateType = Dispatcher.Route

    func open(_ screen: Screen) { invoke(.push(screen)) }
    func back() { invoke(.pop) }
    func follow(_ path: [Screen]) { invoke(.setPath(path)) }
}

@MainActor
@Observable
final class NavigationModel {
    private let action = RouteAction()
    private let store: RouteStore

    init(store: RouteStore = .instantiate()) {
        self.store = store
    }

    var path: [Screen] {
        get { store.path.value }
        set { action.follow(newValue) }
    }
}

@Test(.isolatedDispatcher) func aDeepLinkOpensTheRepositoryOverItsUsersList() {
    let store = RouteStore.instantiate()
    RouteAction().follow([
        .repositories(user: "marty"), .repository(name: "FluxCapacitor"),
    ])
    RouteAction().back()
    #expect(store.path.value == [.repositories(user: "marty")])
}

@Test(.isolatedDispatcher) @MainActor func theNavigationModelTakesABackSwipeAsAState() {
    let navigation = NavigationModel()
    RouteAction().open(.repositories(user: "marty"))
    RouteAction().open(.repository(name: "FluxCapacitor"))
    navigation.path = [.repositories(user: "marty")]  // what a back swipe does through the binding
    #expect(RouteStore.instantiate().path.value == [.repositories(user: "marty")])
    RouteAction().back()
    RouteAction().back()
    #expect(navigation.path.isEmpty)
}

// MARK: - LoggingDispatches.md

/// One line per state reduced or dropped: the store type and the state.
nonisolated func logLine(for event: DispatchEvent) -> String? {
    switch event.phase {
    case .willReduce: nil
    case .didReduce: "\(event.storeType) ← \(event.state)"
    case .droppedWithoutStore:
        "dropped, no \(event.storeType) alive: \(event.state)"
    }
}

/// A stand-in with the shape of swift-log's `Logger` that the recipe uses (`init(label:)`,
/// `debug(_:)`), so that the recipe compiles without the dependency (`nonisolated`, as
/// swift-log's is, also where code is on the main actor by default).
nonisolated struct Logger: Sendable {
    let label: String
    let lines: Locked<[String]>

    init(label: String) {
        self.label = label
        lines = Locked([])
    }

    func debug(_ message: String) {
        lines.withLock { $0.append(message) }
    }
}

func swiftLogRecipe() -> (Logger, Dust) {
    let logger = Logger(label: "com.example.app.dispatches")
    let logging = Dispatcher.current.observeDispatches { event in
        if let line = logLine(for: event) {
            logger.debug("\(line)")
        }
    }
    return (logger, logging)
}

@Test(.isolatedDispatcher) func theLoggingRecipeWritesOneLinePerReducedOrDroppedState() {
    let store = RepositoryStore.instantiate()
    let (logger, logging) = swiftLogRecipe()
    RepositoryAction(session: StubSession(found: [])).invoke(.removeAllRepositories)
    FavoriteAction().invoke(.add(GitHub.Repository(name: "FluxCapacitor")))
    logging.clean()
    RepositoryAction(session: StubSession(found: [])).invoke(.removeAllRepositories)
    #expect(logger.lines.value.count == 2)
    #expect(logger.lines.value.first == "RepositoryStore ← removeAllRepositories")
    #expect(logger.lines.value.last?.hasPrefix("dropped, no FavoriteStore alive: add(") == true)
    _ = store
}

// MARK: - ReadingStateInActions.md

extension RepositoryAction {
    /// /// Fetches the user's repositories unless the screen shows them all.
    func fetchRepositories(ofUser login: String, shown: Int, total: Int) async {
        guard shown < total else { return }
        await fetchRepositories(ofUser: login)
    }
}

extension RepositoryAction {
    /// Fetches the user's repositories unless a fetch is already under way.
    func fetchRepositoriesUnlessFetching(ofUser login: String) async {
        let store = RepositoryStore.instantiate()
        guard !store.isRepositoryFetching.value else { return }
        await fetchRepositories(ofUser: login)
    }
}

@Suite("ReadingStateInActions.md", .isolatedDispatcher)
struct ReadingStateGuideTests {
    let found = [GitHub.Repository(name: "FluxCapacitor")]

    @Test func anActionGivenTheCountsFetchesOnlyWhenSomeAreMissing() async {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(found: found))
        await action.fetchRepositories(ofUser: "marty", shown: 1, total: 1)
        #expect(store.repositories.value.isEmpty)
        await action.fetchRepositories(ofUser: "marty", shown: 0, total: 1)
        #expect(store.repositories.value == found)
    }

    @Test func anActionThatReadsTheStoreSkipsWhileAFetchIsUnderWay() async {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(found: found))
        action.invoke(.isRepositoryFetching(true))
        await action.fetchRepositoriesUnlessFetching(ofUser: "marty")
        #expect(store.repositories.value.isEmpty)
        action.invoke(.isRepositoryFetching(false))
        await action.fetchRepositoriesUnlessFetching(ofUser: "marty")
        #expect(store.repositories.value == found)
    }
}

// MARK: - BigState.md

nonisolated struct Message: Identifiable, Sendable {
    let id: Int
    var subject: String
    var isRead = false
}

/// `Message`, where `Dispatcher.Message` hides it.
typealias GuideMessage = Message

extension Dispatcher {
    enum Message: DispatchState {
        typealias RelatedStoreType = MessageStore
        typealias RelatedActionType = MessageAction
        case received(GuideMessage)
        case read(GuideMessage.ID)
        case deleted(GuideMessage.ID)
        case clearRead
    }

    enum Inbox: DispatchState {
        typealias RelatedStoreType = InboxStore
        typealias RelatedActionType = InboxAction
        case received([GuideMessage])
        case read(GuideMessage.ID)
        case deleted(GuideMessage.ID)
    }
}

struct MessageAction: Actionable { typealias DispatchStateType = Dispatcher.Message }
struct InboxAction: Actionable { typealias DispatchStateType = Dispatcher.Inbox }

final class MessageStore: Storable {
    let messages: Constant<[Message.ID: Message]>
    private let _messages = Variable<[Message.ID: Message]>([:])

    init() {
        messages = Constant(_messages)
    }

    func reduce(with state: Dispatcher.Message) {
        switch state {
        case .received(let message): _messages.value[message.id] = message
        case .read(let id): _messages.value[id]?.isRead = true
        case .deleted(let id): _messages.value[id] = nil
        case .clearRead:
            _messages.value = _messages.value.filter { !$0.value.isRead }
        }
    }
}

final class InboxStore: Storable {
    let rows: ConstantDictionary<Message.ID, Message>
    private let _rows = VariableDictionary<Message.ID, Message>()

    init() {
        rows = ConstantDictionary(_rows)
    }

    func reduce(with state: Dispatcher.Inbox) {
        switch state {
        case .received(let page): _rows.append(contentsOf: page)
        case .read(let id): _rows[id]?.isRead = true
        case .deleted(let id): _rows[id] = nil
        }
    }
}

nonisolated final class Badge: Sendable {
    func update(_ message: Message) {}
}

func inboxRowSample(store: InboxStore, id: Message.ID, badge: Badge, dustBuster: DustBuster) {
    store.rows.constant(for: id)?
        .observe { message in badge.update(message) }
        .cleaned(by: dustBuster)
}

@Suite(.isolatedDispatcher) struct BigStateGuideTests {
    @Test func theMessageStoreChangesOneMessageInPlace() {
        let store = MessageStore.instantiate()
        MessageAction().invoke(.received(Message(id: 1, subject: "Hi")))
        MessageAction().invoke(.received(Message(id: 2, subject: "Re: Hi")))
        MessageAction().invoke(.read(1))
        MessageAction().invoke(.clearRead)
        #expect(store.messages.value.keys.sorted() == [2])
        MessageAction().invoke(.deleted(2))
        #expect(store.messages.value.isEmpty)
    }

    @Test func theInboxRowHearsOfItsOwnMessageOnly() {
        let store = InboxStore.instantiate()
        InboxAction().invoke(.received([Message(id: 1, subject: "a"), Message(id: 2, subject: "b")]))
        let seen = Locked<[Bool]>([])
        let dust = store.rows.constant(for: 1)?.observe(ignoreFirst: true) { message in
            seen.withLock { $0.append(message.isRead) }
        }
        InboxAction().invoke(.read(2))
        InboxAction().invoke(.read(1))
        #expect(seen.value == [true])
        dust?.clean()
    }
}
