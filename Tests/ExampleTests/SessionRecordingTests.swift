import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

@testable import repository_search

/// Issue 41: the example makes the session it advertises, and plays it back.
@Suite("Recording and replaying the example's sessions", .isolatedDispatcher, .inMemoryStorage)
final class SessionRecordingTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs the program with `arguments` (and a storage folder of the test's own unless
    /// `storage` is `nil`, for a replay in memory); `input` gives the lines, one a call.
    private func run(
        _ arguments: [String], storage: String? = "favorites", interruption: Interruption = Interruption(),
        input: @escaping @Sendable () -> String? = { nil }
    ) async -> (status: Int32, output: String, errors: String) {
        let console = BufferConsole()
        let storageArguments = storage.map { ["--storage", folder.appendingPathComponent($0).path] } ?? []
        let status = await RepositorySearch.run(
            arguments: arguments + storageArguments, environment: [:], input: input, console: console,
            interruption: interruption)
        return (status, console.text, console.errorText)
    }

    /// The lines given one a call, then `nil`.
    private static func lines(_ lines: [String]) -> @Sendable () -> String? {
        let left = Locked(lines[...])
        return { left.withLock { $0.popFirst() } }
    }

    @Test func aSearchTypedWhileOneRunsCancelsItAsASearchFieldDoes() async throws {
        let store = UserStore.instantiate()
        let (release, released) = AsyncStream<Void>.makeStream()
        let session = HeldSession(
            holding: "mar", until: release,
            users: [
                "mar": Sample.page([Sample.user("marty")], total: 1),
                "doc": Sample.page([Sample.user("doc-brown")], total: 1),
            ])
        let console = BufferConsole()
        let navigator = await Navigator(
            userAction: UserAction(session: session), repositoryAction: RepositoryAction(session: session),
            console: console)
        let calls = Locked(0)
        let input: @Sendable () -> String? = {
            switch calls.withLock({
                $0 += 1; return $0
            }) {
            case 1:
                return "search mar"
            case 2:
                // Typed while "mar" is in flight (its answer is held back).
                while !session.queries.contains("mar") { usleep(1_000) }
                return "search doc"
            default:
                // Once "doc" is shown, "mar"'s answer comes back, late: it must reach no store.
                while !console.text.contains("[Search \"doc\" — 1 / 1 users]") { usleep(1_000) }
                released.finish()
                return nil
            }
        }
        let status = await Interactive(console: console, log: false, interruption: Interruption()).run(
            input: input, navigator: navigator)
        #expect(status == 0)
        #expect(console.text.contains("> search mar"))
        #expect(console.text.contains("(the running search is replaced by \"doc\")"))
        #expect(!console.text.contains("[Search \"mar\" — "), "the replaced search's screen is not shown")
        try await waitUntil { session.queries == ["mar", "doc"] }
        #expect(store.users.value.map(\.login) == ["doc-brown"])
        #expect(store.lastSearchQuery.value == "doc")
        #expect(store.isUserFetching.value == false)
    }

    @Test func ctrlCStopsTheSearchFinishesTheRecordingAndSaysSo() async throws {
        let file = folder.appendingPathComponent("session.jsonl")
        let interruption = Interruption()
        let output = Locked("")
        let calls = Locked(0)
        let input: @Sendable () -> String? = {
            guard
                calls.withLock({
                    $0 += 1; return $0
                }) > 1
            else { return "search mar" }
            // A minute of latency: the search runs when Ctrl-C comes.
            while !output.value.contains("… searching GitHub users") { usleep(1_000) }
            interruption.interrupt()
            return nil
        }
        let console = BufferConsole()
        let watch = Task {
            while !Task.isCancelled {
                output.withLock { $0 = console.text }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { watch.cancel() }
        let status = await RepositorySearch.run(
            arguments: [
                "--interactive", "--latency", "60000", "--record", file.path, "--storage",
                folder.appendingPathComponent("favorites").path,
            ],
            environment: [:], input: input, console: console, interruption: interruption)
        #expect(status == 0)
        #expect(console.text.contains("Interrupted (Ctrl-C): stopping."))
        let recorded = try #require(
            console.text.firstMatch(of: /Recorded (\d+) dispatches to (.*) \(interrupted by Ctrl-C: finished\)\./))
        #expect(String(recorded.2) == file.path)

        // The recording ends where the user left it: the search stopped, fetching off.
        let store = UserStore.instantiate()
        let failures = Locked<[String]>([])
        let replay = DispatchReplay(
            contentsOf: file, decoding: ReplayTests.types,
            reportingTo: IssueReporter(failure: { message, _ in failures.withLock { $0.append(message) } }))
        #expect(replay.replayAll() == Int(recorded.1)!)
        #expect(failures.value.isEmpty)
        #expect(store.lastSearchQuery.value == "mar")
        #expect(store.isUserFetching.value == false)
    }

    /// The user starts with two favorites saved, takes one away and sees one: the recording
    /// of that session, replayed elsewhere (in memory), shows one, not none.
    @Test func aSessionStartedFromSavedFavoritesReplaysToTheFavoritesTheUserSaw() async throws {
        let file = folder.appendingPathComponent("session.jsonl")
        let saving = await run(
            ["--interactive", "--latency", "0"],
            input: Self.lines(["search mar", "open 1", "fav 1", "fav 2", "favorites", "quit"]))
        #expect(saving.output.contains("[Favorites — 2]"))

        let recorded = await run(
            ["--interactive", "--latency", "0", "--record", file.path],
            input: Self.lines(["favorites", "fav 1", "favorites", "quit"]))
        #expect(recorded.output.contains("2 favorites kept from earlier runs"))
        #expect(
            recorded.output.hasSuffix(
                "[Favorites — 1]\n  1. ★ marty-mcfly/flux-async-1\n> quit\nRecorded 1 dispatch to \(file.path)."))

        let replayed = await run(["--replay", file.path], storage: nil)
        #expect(replayed.status == 0)
        #expect(replayed.output.hasPrefix("Replayed session.jsonl to step 1 (Repository, recorded "))
        #expect(replayed.output.hasSuffix("[Favorites — 1]\n  1. ★ marty-mcfly/flux-async-1"))
        // Step 0 is where the session started: the two saved favorites.
        let start = await run(["--replay", file.path, "--step", "0"], storage: nil)
        #expect(start.output.hasPrefix("Replayed session.jsonl to its start"))
        #expect(start.output.contains("[Favorites — 2]"))
    }

    @Test func aReplayShowsWhereAStepLeavesTheStoresAndGoesOnInteractively() async throws {
        let fixture = try #require(ReplayTests.fixture)
        let atStep = await run(["--replay", fixture.path, "--step", "20"], storage: nil)
        #expect(atStep.status == 0)
        #expect(atStep.output.hasPrefix("Replayed walkthrough-session.jsonl to step 20 ("))
        #expect(atStep.output.contains("[marty-mcfly's repositories — "))

        let onFromThere = await run(
            ["--replay", fixture.path, "--interactive", "--latency", "0"], storage: nil,
            input: Self.lines(["favorites", "back", "quit"]))
        #expect(onFromThere.status == 0)
        #expect(onFromThere.output.contains("Type 'help' for the commands"))
        #expect(onFromThere.output.contains("[Favorites — 1]\n  1. ★ marty-mcfly/hoverboard"))
        #expect(!onFromThere.output.split(separator: "\n").contains { $0.hasPrefix("error:") })
    }

    @Test func aReplayThatCannotBePlayedSaysWhyAndExitsNonZero() async throws {
        let fixture = try #require(ReplayTests.fixture)
        let pastTheEnd = await run(["--replay", fixture.path, "--step", "9999"], storage: nil)
        #expect(pastTheEnd.status == 1)
        #expect(
            pastTheEnd.errors.hasPrefix(
                "error: walkthrough-session.jsonl, step 9999 is past the end: the recording's last step is "))
        let missing = await run(["--replay", folder.appendingPathComponent("none.jsonl").path], storage: nil)
        #expect(missing.status == 1)
        #expect(missing.errors.contains("none.jsonl, line 1: cannot open"))
        #expect(
            await run(["--step", "3"]).errors
                == "error: --step goes with --replay, like '--replay session.jsonl --step 12'")
        #expect(await run(["--replay", "a.jsonl", "--record", "a.jsonl"]).status == 2)
    }
}
