import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import Testing

@Suite("README.md")
struct ReadmeTests {
    @Test func everyCompiledBlockOfTheReadmeIsBuiltHere() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let readme = try Self.readme()
        let compiled = try String(
            contentsOf: here.appendingPathComponent("ReadmeSnippets.swift"), encoding: .utf8)

        let blocks = Self.compiledBlocks(in: readme)
        #expect(blocks.count == 7)
        for block in blocks {
            #expect(compiled.contains(block), "README block not in ReadmeSnippets.swift:\n\(block)")
        }
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

    @Test(.isolatedDispatcher) func removingAllRepositoriesEmptiesTheStore() {
        let store = RepositoryStore.instantiate()
        let action = RepositoryAction(session: StubSession(found: []))
        action.invoke(.addRepositories([GitHub.Repository(name: "FluxCapacitor")]))

        action.invoke(.removeAllRepositories)

        #expect(store.repositories.value.isEmpty)
    }

    @Test(.isolatedDispatcher) func theFailuresTheReadmeShowsAreTheOnesATesterPrints() async throws {
        let readme = try Self.readme()
        let failures = Messages()
        let reporter = IssueReporter { message, _ in failures.append(message) }
        let fluxCapacitor = GitHub.Repository(name: "FluxCapacitor")

        do {
            let tester = DispatchTester(of: Dispatcher.Repository.self, reportingTo: reporter)
            await RepositoryAction(session: StubSession(found: [fluxCapacitor])).fetchRepositories(ofUser: "marty")
            await tester.receive(.isRepositoryFetching(true))
            await tester.receive(.addRepositories([GitHub.Repository(name: "swift-log")]))
        }

        #expect(failures.all.count == 2)
        for failure in failures.all {
            #expect(readme.contains("```text\n\(failure)\n```"), "README does not show:\n\(failure)")
        }
    }

    static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
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

    /// The Swift code blocks that follow a `<!-- compiled -->` line.
    static func compiledBlocks(in readme: String) -> [String] {
        var blocks: [String] = []
        var lines = readme.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            guard line == "<!-- compiled -->" else { continue }
            guard lines.popFirst() == "```swift" else {
                Issue.record("`<!-- compiled -->` must be followed by a ```swift line")
                continue
            }
            var code: [Substring] = []
            while let codeLine = lines.popFirst(), codeLine != "```" {
                code.append(codeLine)
            }
            blocks.append(code.joined(separator: "\n"))
        }
        return blocks
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
