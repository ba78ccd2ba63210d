// The code samples of the doc comments of Sources/FluxCapacitor, verbatim:
// DocumentationSampleTests checks that each sample appears here (or in another
// *Snippets.swift file), so the samples cannot drift from code that builds. Declarations
// that samples share are at the top level; fragments sit in functions that give them their
// context (a store, an action, a dust buster). Edit the doc comment first, then copy the
// sample here.

import Dispatch
import FluxCapacitor
import Foundation
import Observation
import Testing

// MARK: - DispatchState, Storable, Actionable: the samples' repository flow

extension Dispatcher {
    enum Repository: DispatchState, Equatable {
        typealias RelatedStoreType = RepositoryStore
        typealias RelatedActionType = RepositoryAction

        case isRepositoryFetching(Bool)
        case addRepositories([GitHub.Repository])
        case removeAllRepositories
    }
}

final class RepositoryStore: Storable {
    typealias DispatchStateType = Dispatcher.Repository

    let isRepositoryFetching: Constant<Bool>
    private let _isRepositoryFetching = Variable<Bool>(false)

    let repositories: Constant<[GitHub.Repository]>
    private let _repositories = Variable<[GitHub.Repository]>([])

    required init() {
        isRepositoryFetching = Constant(_isRepositoryFetching)
        repositories = Constant(_repositories)
    }

    func reduce(with state: Dispatcher.Repository) {
        switch state {
        case .isRepositoryFetching(let value):
            _isRepositoryFetching.value = value
        case .addRepositories(let value):
            _repositories.value.append(contentsOf: value)
        case .removeAllRepositories:
            _repositories.value.removeAll()
        }
    }
}

struct RepositoryAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository

    let session: any GitHubSession

    func fetchRepositories(ofUser login: String) async {
        invoke(.isRepositoryFetching(true))
        defer { invoke(.isRepositoryFetching(false)) }
        if let repositories = try? await session.repositories(ofUser: login) {
            invoke(.addRepositories(repositories))
        }
    }
}

func instantiateSample() {
    final class RepositoryViewModel {
        private let store: RepositoryStore

        init(store: RepositoryStore = .instantiate()) {
            self.store = store
        }
    }
}

// MARK: - Sink: a store with events

final class FavoriteStore: Storable {
    typealias DispatchStateType = Dispatcher.Favorite

    let favorites: Constant<[GitHub.Repository]>
    private let _favorites = Variable<[GitHub.Repository]>([])

    let saved: Signal<GitHub.Repository>
    private let _saved = Sink<GitHub.Repository>()

    required init() {
        favorites = Constant(_favorites)
        saved = _saved.signal
    }

    func reduce(with state: Dispatcher.Favorite) {
        switch state {
        case .add(let repository):
            _favorites.value.append(repository)
            _saved.send(repository)
        }
    }
}

// MARK: - Dispatcher, Dispatcher+Current, Dispatcher+Printing, DispatchEvent

func observeDispatchesSample(dustBuster: DustBuster) {
    Dispatcher.shared
        .observeDispatches { event in
            if event.phase == .droppedWithoutStore {
                print("dropped:", event.state)
            }
        }
        .cleaned(by: dustBuster)
}

@Test func withCurrentSample() {
    let action = RepositoryAction(session: StubSession(found: []))
    Dispatcher.withCurrent(Dispatcher()) {
        let store = RepositoryStore.instantiate()
        action.invoke(.addRepositories([fluxCapacitor]))
        #expect(store.repositories.value == [fluxCapacitor])
    }
}

func withCurrentCarriedSample(action: RepositoryAction) {
    let dispatcher = Dispatcher.current
    DispatchQueue.global().async {
        Dispatcher.withCurrent(dispatcher) { action.invoke(.removeAllRepositories) }
    }
}

func asyncWithCurrentSample(action: RepositoryAction) async {
    await Dispatcher.withCurrent(Dispatcher()) {
        await action.fetchRepositories(ofUser: "ra1028")
    }
}

func printDispatchesSample() {
    let logging = Dispatcher.shared.printDispatches()
    // FluxCapacitor: Dispatcher.Repository.removeAllRepositories → RepositoryStore
    // FluxCapacitor: Dispatcher.User.removeAllUsers dropped: no live UserStore
    logging.clean()
}

func dispatchEventSample() {
    let logging = Dispatcher.shared.observeDispatches { event in
        print(event.phase, event.storeType, event.state)
    }
    logging.clean()
}

func dispatchEventStateSample(event: DispatchEvent) {
    if case .addRepositories(let added)? = event.state as? Dispatcher.Repository {
        print("\(added.count) repositories added")
    }
}

// MARK: - Dust, DustBuster, ExecuteQueue

func dustSample(store: RepositoryStore, dustBuster: DustBuster) {
    store.repositories
        .observe(on: .main) { repositories in
            print(repositories.count)
        }
        .cleaned(by: dustBuster)
}

func dustInitSample(action: RepositoryAction, dustBuster: DustBuster) {
    let refresh = Task { await action.fetchRepositories(ofUser: "ra1028") }
    Dust { refresh.cancel() }.cleaned(by: dustBuster)
}

func dustBusterSample() {
    @MainActor
    final class RepositoryListViewModel {
        private let dustBuster = DustBuster()
        private(set) var names: [String] = []

        init(store: RepositoryStore = .instantiate()) {
            store.repositories
                .observe(on: .main) { [weak self] repositories in
                    // `.main` calls it on the main actor
                    MainActor.assumeIsolated {
                        self?.names = repositories.map(\.name)
                    }
                }
                .cleaned(by: dustBuster)
        }
    }
}

func executeQueueSample(value: Constant<Int>, workQueue: DispatchQueue, dustBuster: DustBuster) {
    value.observe(on: .main) { print($0) }.cleaned(by: dustBuster)
    value.observe(on: .queue(workQueue)) { process($0) }.cleaned(by: dustBuster)
}

// MARK: - PrimitiveValue, Variable, Constant

extension PrimitiveValue where Trait == ImmutableTrait, Element: Collection {
    var isEmpty: Bool { value.isEmpty }
}

func primitiveValueSample() {
    let variable = Variable<Int>(0)
    let constant = Constant(variable)

    let dust = constant.observe { value in
        print(value)  // 0 -> 10
    }
    variable.value = 10
    dust.clean()
}

func observeSample(store: RepositoryStore, dustBuster: DustBuster) {
    store.repositories
        .observe(on: .main) { repositories in
            render(repositories)  // the current repositories, then each change
        }
        .cleaned(by: dustBuster)
}

func mutableTraitSample() {
    // what `Variable<Int>` spells:
    let count: PrimitiveValue<MutableTrait, Int> = Variable(0)
    _ = count
}

func variableSample() {
    let count = Variable<Int>(0)
    count.value = 1
    count.value += 1
    print(count.value)  // 2
}

func variableValueSample(_repositories: Variable<[GitHub.Repository]>, page: [GitHub.Repository]) {
    _repositories.value.append(contentsOf: page)
}

func variableObservationSample(count: Variable<Int>) {
    withObservationTracking {
        print(count.value)
    } onChange: {
        print("count is about to change")
    }
}

func immutableTraitSample(_count: Variable<Int>) {
    // what `Constant<Int>` spells:
    let count: PrimitiveValue<ImmutableTrait, Int> = Constant(_count)
    _ = count
}

func constantSample() {
    final class Store {
        let repositories: Constant<[GitHub.Repository]>
        private let _repositories = Variable<[GitHub.Repository]>([])

        required init() {
            repositories = Constant(_repositories)
        }
    }
}

func constantInitSample() {
    let variable = Variable<Int>(0)
    let constant = Constant(variable)
    variable.value = 1
    print(constant.value)  // 1
}

@Observable
final class RepositoryListModel {
    private let store = RepositoryStore.instantiate()
    var count: Int { store.repositories.value.count }
}

// MARK: - Derived values, bindings and scoped observation of values

func bindSample(store: RepositoryStore) {
    nonisolated final class Gauge: @unchecked Sendable {  // `lock` guards `stored`
        private let lock = NSLock()
        private var stored = 0
        var value: Int {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    let gauge = Gauge()
    store.repositories.map(\.count).bind(to: gauge, \.value, on: .current)
}

func mainActorBindSample() {
    @MainActor
    final class RepositoryListViewModel {
        var counter = ""

        init(store: RepositoryStore = .instantiate()) {
            store.repositories.map { "\($0.count) repositories" }
                .bind(to: self, \.counter)
        }
    }
}

func mapSample(store: RepositoryStore, dustBuster: DustBuster) {
    let repositoryCount: Constant<Int> = store.repositories.map(\.count)
    repositoryCount.observe { print("\($0) repositories") }.cleaned(by: dustBuster)
}

func combiningSample(store: RepositoryStore, dustBuster: DustBuster) {
    let status = Constant(
        combining: store.repositories, store.isRepositoryFetching
    ) { repositories, isFetching in
        isFetching ? "loading…" : "\(repositories.count) repositories"
    }
    status.observe(on: .main) { print($0) }.cleaned(by: dustBuster)
}

func removeDuplicatesSample(store: RepositoryStore, dustBuster: DustBuster) {
    store.isRepositoryFetching
        .removeDuplicates()
        .observe(on: .main) { isFetching in
            print(isFetching ? "loading…" : "done")
        }
        .cleaned(by: dustBuster)
}

func removeDuplicatesByPredicateSample(store: RepositoryStore) {
    let names = store.repositories.removeDuplicates {
        $0.map(\.name) == $1.map(\.name)
    }
    _ = names
}

func scopedObservationSample() {
    final class RepositoryCounter: Sendable {
        let count = Variable<Int>(0)

        init(store: RepositoryStore = .instantiate()) {
            store.repositories.observe(on: .current, duringScopeOf: self) {
                counter, repositories in
                counter.count.value = repositories.count
            }
        }
    }
}

func mainActorScopedObservationSample() {
    @MainActor
    final class RepositoryListViewModel {
        private(set) var titles: [String] = []

        init(store: RepositoryStore = .instantiate()) {
            store.repositories.observe(duringScopeOf: self) {
                viewModel, repositories in
                viewModel.titles = repositories.map(\.name)
            }
        }
    }
}

// MARK: - Signal

func signalSample() {
    let sink = Sink<Int>()
    let dust = sink.signal.observe { value in
        print(value)  // 100
    }
    sink.send(100)
    dust.clean()
}

func signalObserveSample(store: FavoriteStore, dustBuster: DustBuster) {
    store.saved
        .observe(on: .main) { repository in
            showToast("\(repository.name) saved to favorites")
        }
        .cleaned(by: dustBuster)
}

func signalBindSample(store: FavoriteStore, banner: Banner) {
    store.saved.map { Optional($0.name) }.bind(to: banner, \.message, on: .current)
}

func mainActorSignalBindSample() {
    @MainActor
    final class FavoriteViewModel {
        var lastSaved: GitHub.Repository?

        init(store: FavoriteStore = .instantiate()) {
            store.saved.map(Optional.some).bind(to: self, \.lastSaved)
        }
    }
}

func signalMapSample(store: FavoriteStore, dustBuster: DustBuster) {
    let names: Signal<String> = store.saved.map(\.name)
    names.observe { print("saved \($0)") }.cleaned(by: dustBuster)
}

func signalFilterSample(store: FavoriteStore) {
    let swiftRepositories = store.saved.filter { $0.name.hasPrefix("swift") }
    _ = swiftRepositories
}

func signalScopedObservationSample() {
    nonisolated final class FavoriteToaster: Sendable {
        init(store: FavoriteStore = .instantiate()) {
            store.saved.observe(on: .current, duringScopeOf: self) {
                toaster, repository in
                toaster.show("\(repository.name) saved to favorites")
            }
        }

        func show(_ message: String) {
            print(message)
        }
    }
}

func mainActorSignalScopedObservationSample() {
    @MainActor
    final class FavoriteViewModel {
        private(set) var toast: String?

        init(store: FavoriteStore = .instantiate()) {
            store.saved.observe(duringScopeOf: self) { viewModel, repository in
                viewModel.toast = "\(repository.name) saved to favorites"
            }
        }
    }
}

// MARK: - Async sequences

func asyncValuesSample(store: RepositoryStore) async {
    for await repositories in store.repositories.values {
        render(repositories)
    }
}

func valuesSample(store: RepositoryStore) {
    Task {
        for await isFetching in store.isRepositoryFetching.values {
            print(isFetching ? "loading…" : "done")
        }
    }
}

func valuesBufferingSample(store: RepositoryStore) async {
    let states = store.repositories.values(bufferingPolicy: .bufferingNewest(1))
    for await repositories in states {
        render(repositories)  // always the latest state, never a backlog
    }
}

func asyncSignalValuesSample(store: FavoriteStore) async {
    for await repository in store.saved.values {
        showToast("\(repository.name) saved to favorites")
    }
}

func asyncSignalIteratorSample(sink: Sink<Int>) async {
    var iterator = sink.signal.values.makeAsyncIterator()
    sink.send(1)
    let one = await iterator.next()  // 1
    _ = one
}

func signalValuesBufferingSample(store: FavoriteStore) async {
    let saves = store.saved.values(bufferingPolicy: .bufferingNewest(1))
    for await repository in saves {
        showToast("\(repository.name) saved to favorites")  // the latest one only
    }
}

// Variable.update(_:)

func updateSample() {
    let visits = Variable(0)
    // from any number of threads at once: no visit is lost
    visits.update { $0 += 1 }
    let jobs = Variable<[String]>(["index", "build"])
    let next = jobs.update { $0.popLast() }  // "build"
    _ = next
}

func signalBufferingPolicySample(sink: Sink<Int>) {
    let latest: AsyncSignalValues<Int>.BufferingPolicy = .bufferingNewest(1)
    let saved = sink.signal.values(bufferingPolicy: latest)
    _ = saved
}

// MARK: - PrimitiveDictionary, VariableDictionary, ConstantDictionary

nonisolated struct Row: Identifiable, Codable, Sendable {
    var id: Int
    var title: String
}

extension Dispatcher {
    enum Rows: DispatchState {
        typealias RelatedStoreType = RowsStore
        typealias RelatedActionType = RowsAction
        case add(Row)
        case rename(Int, String)
        case remove(Int)
    }
}

struct RowsAction: Actionable { typealias DispatchStateType = Dispatcher.Rows }

final class RowsStore: Storable {
    let rows: ConstantDictionary<Int, Row>
    private let _rows = VariableDictionary<Int, Row>()

    init() {
        rows = ConstantDictionary(_rows)
    }

    func reduce(with state: Dispatcher.Rows) {
        switch state {
        case .add(let row): _rows.append(row)
        case .rename(let id, let title): _rows[id]?.title = title
        case .remove(let id): _rows[id] = nil
        }
    }
}

nonisolated func showTitle(_ title: String) {}
nonisolated func showCount(_ count: Int) {}

func dictionaryObserveSample(dustBuster: DustBuster) {
    let store = RowsStore.instantiate()
    store.rows.constant(for: 7)?
        .observe { row in showTitle(row.title) }
        .cleaned(by: dustBuster)
    store.rows.keys
        .observe { ids in showCount(ids.count) }
        .cleaned(by: dustBuster)
}

func dictionaryReadSamples(store: RowsStore) throws {
    let ids = store.rows.keys.value
    let rowCount = store.rows.count
    let showsPlaceholder = store.rows.isEmpty
    let row = store.rows.constant(for: 7)
    let titles = store.rows.elements.map(\.value.title)
    let text = store.rows.description  // [7: Row(id: 7, …)]
    let data = try JSONEncoder().encode(store.rows)
    let title = store.rows[7]?.title
    _ = (ids, rowCount, showsPlaceholder, row, titles, text, data, title)
}

func variableDictionarySample() {
    let rows = VariableDictionary<Int, Row>()
    rows[7] = Row(id: 7, title: "Seven")
    rows[7]?.title = "Sept"
    rows[7] = nil
}

func variableDictionaryChangeSamples(rows: VariableDictionary<Int, Row>, page: [Row]) {
    rows[7] = Row(id: 7, title: "Seven")
    rows[7]?.title = "Sept"
    let title = rows[7]?.title  // "Sept"
    rows[7] = nil
    let removed = rows.removeValue(forKey: 7)
    rows.removeAll()
    rows.removeAll { $0.title.isEmpty }
    rows.append(Row(id: 3, title: "Three"))
    rows.append(contentsOf: page)
    _ = (title, removed)
}

func variableDictionaryInitSamples(data: Data) throws {
    do {
        let rows = VariableDictionary<Int, Row>()
        _ = rows
    }
    do {
        let scores = VariableDictionary(
            uniqueKeysWithValues: [("ada", 3), ("grace", 5)])
        _ = scores
    }
    do {
        let rows = VariableDictionary([
            Row(id: 1, title: "One"), Row(id: 2, title: "Two"),
        ])
        _ = rows
    }
    do {
        let rows = try JSONDecoder().decode(
            VariableDictionary<Int, Row>.self, from: data)
        _ = rows
    }
}

final class ConstantDictionarySamples {
    let rows: ConstantDictionary<Int, Row>

    init(_rows: VariableDictionary<Int, Row>) {
        do {
            let rows: ConstantDictionary<Int, Row> = ConstantDictionary(_rows)
            _ = rows
        }
        rows = ConstantDictionary(_rows)
    }
}
