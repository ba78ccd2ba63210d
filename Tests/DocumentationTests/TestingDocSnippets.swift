// The code samples of the doc comments of Sources/FluxCapacitorTesting, verbatim:
// DocumentationSampleTests checks that each sample appears here (or in another
// *Snippets.swift file). Samples that are tests run as tests; fragments sit in functions
// that give them their context (a tester, an action). Edit the doc comment first, then
// copy the sample here.

import FluxCapacitor
import FluxCapacitorTesting
import Testing

// MARK: - DispatchRecorder

@Test(.isolatedDispatcher)
func fetchingInvokesTheFlagAroundTheRepositories() async {
    let recorder = DispatchRecorder()
    await RepositoryAction(session: StubSession(found: [fluxCapacitor]))
        .fetchRepositories(ofUser: "marty")
    #expect(
        recorder.states(of: Dispatcher.Repository.self) == [
            .isRepositoryFetching(true),
            .addRepositories([fluxCapacitor]),
            .isRepositoryFetching(false),
        ])
}

// MARK: - DispatchTester, TrackedValue, Exhaustivity

@Test(.isolatedDispatcher)
func fetchingTurnsTheFlagOnAroundTheRepositories() async {
    let tester = DispatchTester(of: Dispatcher.Repository.self)
    let action = RepositoryAction(session: StubSession(found: [fluxCapacitor]))
    Task { await action.fetchRepositories(ofUser: "marty") }

    await tester.receive(.isRepositoryFetching(true))
    await tester.receive(.addRepositories([fluxCapacitor]))
    await tester.receive(.isRepositoryFetching(false))
}  // the tester ends here: nothing else may have been dispatched

func receiveOtherStateSample(tester: DispatchTester<Dispatcher.Repository>) async {
    await tester.receive(Dispatcher.Favorite.add(fluxCapacitor))
}

@Test(.isolatedDispatcher) func trackedValueSample() async {
    let tester = DispatchTester(of: Dispatcher.Repository.self)
    let action = RepositoryAction(session: StubSession(found: []))
    let store = RepositoryStore.instantiate()
    let repositories = tester.track(store.repositories, named: "repositories")
    action.invoke(.addRepositories([fluxCapacitor]))
    await tester.receive(.addRepositories([fluxCapacitor]))
    await repositories.receive([fluxCapacitor])
}

func skipReceivedDispatchesSample(tester: DispatchTester<Dispatcher.Repository>, action: RepositoryAction) {
    action.invoke(.removeAllRepositories)  // not what this test is about
    tester.skipReceivedDispatches()
}

func assertAllReceivedSample(tester: DispatchTester<Dispatcher.Repository>, action: RepositoryAction) async {
    await action.fetchRepositories(ofUser: "marty")
    await tester.receive(.isRepositoryFetching(true))
    tester.assertAllReceived()
    // fails: addRepositories and the rest were not asserted
}

@Test(.isolatedDispatcher) func exhaustivitySample() async {
    let action = RepositoryAction(session: StubSession(found: [fluxCapacitor]))
    let tester = DispatchTester(
        of: Dispatcher.Repository.self, exhaustivity: .off(showSkipped: true))
    await action.fetchRepositories(ofUser: "marty")
    // the flags around it are skipped
    await tester.receive(.addRepositories([fluxCapacitor]))
}

// MARK: - IsolatedDispatcher, IssueReporter

@Suite(.isolatedDispatcher)
struct RepositoryStoreTests {
    @Test func addingRepositoriesAppendsThem() {
        let store = RepositoryStore.instantiate()  // this test's own store
        RepositoryAction(session: StubSession(found: []))
            .invoke(.addRepositories([fluxCapacitor]))
        #expect(store.repositories.value == [fluxCapacitor])
    }
}

// Swift Testing: issues recorded at the line of the failing call.
@Test(.isolatedDispatcher) func addingAFavoriteAddsIt() async {
    let tester = DispatchTester(of: Dispatcher.Favorite.self)
    FavoriteAction().invoke(.add(fluxCapacitor))
    await tester.receive(.add(fluxCapacitor))
}

// XCTest: failures through XCTFail, at the same line.
func testAddingAFavoriteAddsIt() async {
    let tester = DispatchTester(of: Dispatcher.Favorite.self)
    FavoriteAction().invoke(.add(fluxCapacitor))
    await tester.receive(.add(fluxCapacitor))
}

func issueReporterSample() {
    let tester = DispatchTester(
        of: Dispatcher.Repository.self,
        reportingTo: IssueReporter { message, location in
            print("\(location): \(message)")
        })
    _ = tester
}

// MARK: - ValueRecorder

@Test(.isolatedDispatcher) func fetchingTurnsTheFlagOnThenOff() async throws {
    let store = RepositoryStore.instantiate()
    let fetching = ValueRecorder(store.isRepositoryFetching)
    Task {
        await RepositoryAction(session: StubSession(found: []))
            .fetchRepositories(ofUser: "marty")
    }
    #expect(try await fetching.waitForValues(count: 3) == [false, true, false])
}

func valueRecorderInitSample(store: RepositoryStore) {
    let flags = ValueRecorder(store.isRepositoryFetching)  // [false, …]
    let changes = ValueRecorder(
        store.isRepositoryFetching, ignoreFirst: true)  // […]
    _ = (flags, changes)
}

@Test(.isolatedDispatcher) func valueRecorderOfASignalSample() {
    let store = FavoriteStore.instantiate()
    let saved = ValueRecorder(store.saved)
    FavoriteAction().invoke(.add(fluxCapacitor))
    #expect(saved.values == [fluxCapacitor])
}

func timeoutSample(flags: ValueRecorder<Bool>) async throws {
    do {
        _ = try await flags.waitForValues(count: 3)
    } catch let timeout as ValueRecorder<Bool>.Timeout {
        print(timeout)  // waited for 3 values, got 2: [false, true]
    }
}

func recorderStopSample(recorder: DispatchRecorder) {
    recorder.stop()
}

func droppedEntriesSample(recorder: DispatchRecorder) -> [DispatchRecorder.Entry] {
    let dropped = recorder.entries.filter { $0.phase == .droppedWithoutStore }
    return dropped
}

func valueRecorderStopSample(recorder: ValueRecorder<Bool>) {
    recorder.stop()
}

// MIGRATION.md, "Names deprecated before 1.0"
func endTest(_ tester: DispatchTester<Dispatcher.Repository>) {
    tester.assertAllReceived()
}

func logDropped(_ event: DispatchEvent) {
    if event.phase == .droppedWithoutStore {
        print("\(event.state) reached no store")
    }
}
