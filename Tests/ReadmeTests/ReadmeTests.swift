import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import Observation
import TestSupport
import Testing

@Suite("README.md")
struct ReadmeTests {
    @Test(.isolatedDispatcher) func theLandingPageCounterCountsEachIncrement() {
        let store = CounterStore.instantiate()
        countOnce()
        #expect(store.count.value == 1)
    }

    /// What a sample prints goes to `SampleOutput`, not the test log, and is what its
    /// comments say.
    @Test(.isolatedDispatcher) func theValueSamplesPrintWhatTheirCommentsSay() {
        #expect(SampleOutput.lines(printedBy: printsZeroThenTen) == ["0", "0", "10", "10", "10"])
        #expect(SampleOutput.lines(printedBy: countOnce) == ["0", "1"], "the landing page: 0, then 1")
    }

    @Test(.isolatedDispatcher) func theArticlesDerivedValuesFollowTheStore() {
        let store = RepositoryStore.instantiate()
        let (counter, isFetching) = derive(from: store)
        RepositoryAction(session: StubSession(found: [])).invoke(.addRepositories([GitHub.Repository(name: "a")]))
        #expect(counter.value == "1 repositories")
        #expect(isFetching.value == false)
    }

    @Test(.isolatedDispatcher) func theQuickStartViewModelHearsTheFetchedRepositories() async throws {
        let found = [GitHub.Repository(name: "FluxCapacitor"), GitHub.Repository(name: "swift-log")]
        let store = RepositoryStore.instantiate()
        let recorder = ValueRecorder(store.repositories)
        let viewModel = UserRepositoriesViewModel(action: RepositoryAction(session: StubSession(found: found)))

        await viewModel.load(user: "marty")

        #expect(store.repositories.value == found)
        #expect(recorder.values == [[], found])
        #expect(store.isRepositoryFetching.value == false)
    }

    /// The SwiftUI section's model and view, without SwiftUI: what the view reads is
    /// tracked, and a load started on the main actor changes it there.
    @Test(.isolatedDispatcher) @MainActor func theSwiftUIModelIsTrackedAndChangesOnTheMainActor() async {
        let mainKey = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainKey, value: "main")
        let found = [GitHub.Repository(name: "FluxCapacitor"), GitHub.Repository(name: "swift-log")]
        let model = RepositoryListModel(action: RepositoryAction(session: StubSession(found: found)))
        let changesOnMain = Locked<[Bool]>([])
        func renderBody() -> [String] {
            withObservationTracking {
                _ = model.isLoading
                return model.names
            } onChange: {
                changesOnMain.withLock { $0.append(DispatchQueue.getSpecific(key: mainKey) == "main") }
            }
        }
        #expect(renderBody().isEmpty)

        await model.load(user: "marty")  // the view's `.task`

        #expect(changesOnMain.value == [true], "once per render, on the main actor")
        #expect(renderBody() == ["FluxCapacitor", "swift-log"])
        model.filter = "log"  // the view's search field
        #expect(changesOnMain.value == [true, true])
        #expect(renderBody() == ["swift-log"])
    }

    @Test(.isolatedDispatcher) func removingAllRepositoriesEmptiesTheStore() {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(found: []))
        action.invoke(.addRepositories([GitHub.Repository(name: "FluxCapacitor")]))

        action.invoke(.removeAllRepositories)

        #expect(store.repositories.value.isEmpty)
    }

    @Test(.isolatedDispatcher) func theFailuresTheTestingArticleShowsAreTheOnesATesterPrints() async throws {
        let article = try Self.testingArticle()
        let failures = Messages()
        let reporter = IssueReporter { message, _ in failures.append(message) }
        let fluxCapacitor = GitHub.Repository(name: "FluxCapacitor")

        do {
            let tester = DispatchTester(of: Dispatcher.Repository.self, reportingTo: reporter)
            await RepositoryAction(session: StubSession(found: [fluxCapacitor])).fetchRepositories(ofUser: "marty")
            await tester.receive(.isRepositoryFetching(true))
            await tester.receive(.addRepositories([GitHub.Repository(name: "swift-log")]))
        }

        // Two receives swapped.
        do {
            let tester = DispatchTester(of: Dispatcher.Repository.self, reportingTo: reporter)
            await RepositoryAction(session: StubSession(found: [fluxCapacitor])).fetchRepositories(ofUser: "marty")
            await tester.receive(.addRepositories([fluxCapacitor]))
            await tester.receive(.isRepositoryFetching(true))
            await tester.receive(.isRepositoryFetching(false))
        }

        #expect(failures.all.count == 3)
        #expect(failures.all.last?.hasPrefix("Received dispatches out of order") == true)
        for failure in failures.all {
            #expect(article.contains("```text\n\(failure)\n```"), "Testing.md does not show:\n\(failure)")
        }
    }

    static func testingArticle() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(
            contentsOf: root.appendingPathComponent("Sources/FluxCapacitor/FluxCapacitor.docc/Testing.md"),
            encoding: .utf8)
    }

    @Test(.isolatedDispatcher) func theEventsStoreSendsEachSavedFavoriteOnceAndKeepsNone() {
        let store = FavoriteStore.instantiate()
        let fluxCapacitor = GitHub.Repository(name: "FluxCapacitor")
        let swiftLog = GitHub.Repository(name: "swift-log")
        FavoriteAction().invoke(.add(fluxCapacitor))

        let saved = ValueRecorder(store.saved)
        FavoriteAction().invoke(.add(swiftLog))

        #expect(saved.values == [swiftLog], "what was sent before observing is not replayed")
        #expect(store.favorites.value == [fluxCapacitor, swiftLog])
    }
}

/// The messages a reporter was given, from any thread.
private final class Messages: @unchecked Sendable {
    // Sendable: `lock` guards `messages`.
    private let lock = NSLock()
    private var messages: [String] = []

    var all: [String] { lock.withLock { messages } }

    func append(_ message: String) {
        lock.withLock { messages.append(message) }
    }
}
