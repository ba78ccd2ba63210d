import FluxCapacitorTesting
import Foundation
import TestSupport
import Testing

@testable import repository_search

@Suite("The command line", .isolatedDispatcher)
final class CommandLineTests {
    /// Where this test keeps favorites: never the user's own folder. Removed after the test.
    let storage = FileManager.default.temporaryDirectory.appendingPathComponent(
        "repository-search-\(UUID().uuidString)")

    deinit {
        try? FileManager.default.removeItem(at: storage)
    }

    private func run(_ arguments: [String], input: [String] = []) async -> (status: Int32, output: String) {
        let console = BufferConsole()
        let lines = Locked(input[...])
        let status = await RepositorySearch.run(
            arguments: arguments + ["--storage", storage.path], environment: [:],
            input: { lines.withLock { $0.popFirst() } }, console: console)
        return (status, console.text)
    }

    @Test func theWalkThroughShowsUsersThreePagesAFavoriteAndAnError() async {
        let (status, output) = await run(["--latency", "0"])
        #expect(status == 0)
        for expected in [
            "[Search \"mar\" — 4 / 6 users]",
            "[Search \"mar\" — 6 / 6 users]",
            "[marty-mcfly's repositories — 10 / 25]",
            "[marty-mcfly's repositories — 20 / 25]",
            "[marty-mcfly's repositories — 25 / 25]",
            "[marty-mcfly/hoverboard]",
            "  ★ starred",
            "[Favorites — 1]",
            "  1. ★ marty-mcfly/hoverboard",
            "[marge-no-repos's repositories — 0 / 0]",
            "  (no repositories)",
            "  … searching GitHub users",
            "  … fetching repositories",
            "    · Dispatcher.User.lastSearchQuery(\"mar\") → UserStore",
            "    · Dispatcher.Repository.addFavorite(hoverboard) → RepositoryStore",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        #expect(output.contains("  error: GitHub's rate limit is used up; it resets at "))
        #expect(!output.contains("error: no"), "no step of the script may fail")
    }

    @Test func theReadmeExcerptIsWhatTheWalkThroughPrintsInThatOrder() async throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let afterFence = try #require(readme.components(separatedBy: "```text\n").dropFirst().first)
        let excerpt = afterFence.components(separatedBy: "\n```")[0]
        let shown = Self.unwrapped(
            excerpt.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces) != "⋮" })
        #expect(shown.count >= 10)

        let (_, output) = await run(["--latency", "0"])
        var printed = output.split(separator: "\n")[...]
        for line in shown {
            guard let found = printed.firstIndex(where: { $0 == line }) else {
                Issue.record("README line not printed in this order: \(line)")
                return
            }
            printed = printed[(found + 1)...]
        }
    }

    /// The excerpt's lines, each wrapped one joined again. The README wraps a printed line
    /// wider than 80 columns after a comma, and indents its rest deeper than the line
    /// itself; joined with one space, they are the printed line.
    static func unwrapped(_ lines: [Substring]) -> [String] {
        var joined: [(text: String, indentation: Int)] = []
        for line in lines {
            let indentation = line.prefix { $0 == " " }.count
            if let last = joined.last, last.text.hasSuffix(","), indentation > last.indentation {
                joined[joined.count - 1].text += " " + line.dropFirst(indentation)
            } else {
                joined.append((String(line), indentation))
            }
        }
        return joined.map(\.text)
    }

    @Test func theInteractiveModeRunsCommandsAndShowsTheScreenAfterEach() async {
        let (status, output) = await run(
            ["--interactive", "--latency", "0"],
            input: ["search mar", "open 1", "open 2", "fav", "favorites", "quit", "more"])
        #expect(status == 0)
        #expect(output.contains("[Search \"mar\" — 4 / 6 users]"))
        #expect(output.contains("[marty-mcfly's repositories — 10 / 25]"))
        #expect(output.contains("[Favorites — 1]"))
        #expect(!output.contains("error"))
    }

    @Test func junkInputGetsOneLineErrorsAndTheSessionGoesOn() async {
        let (status, output) = await run(
            ["--interactive", "--latency", "0"],
            input: [
                "hello", "open 1", "search", "open x", "open 0", "search mar", "open 99", "more", "more", "fav 1",
                "back",
                "back", "\u{0}", "search mar",
            ])
        #expect(status == 0)
        let errors = output.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(
            errors == [
                "error: unknown command 'hello'; type 'help'",
                "error: there is no user to open here; search first",
                "error: search needs a query, like 'search mar'",
                "error: 'open' needs one number, like 'open 1'",
                "error: numbers start at 1",
                "error: no user 99 here (1–4)",
                "error: no more users to load",
                "error: open a user first: 'fav N' stars repositories",
                "error: nowhere to go back to",
                "error: nowhere to go back to",
                "error: unknown command '?'; type 'help'",
            ])
    }

    @Test func theEndOfTheInputEndsTheSession() async {
        let (status, output) = await run(["--interactive"], input: [])
        #expect(status == 0)
        #expect(output.contains("Type 'help'"))
    }

    @Test func helpDocumentsTheOptionsAndTheCommands() async {
        let (status, output) = await run(["--help"])
        #expect(status == 0)
        for option in ["--interactive", "--live", "--latency MS", "--fail MODE", "--log", "search QUERY", "fav N"] {
            #expect(output.contains(option))
        }
    }

    @Test func badOptionsAreRefusedWithAReason() async {
        #expect(await run(["--nope"]).output == "error: unknown option '--nope'; see --help")
        #expect(await run(["--nope"]).status == 2)
        #expect(await run(["--fail", "sometimes"]).output.hasPrefix("error: --fail needs one of: rate-limit"))
        #expect(await run(["--latency"]).status == 2)
        #expect(await run(["--record"]).output == "error: --record needs a file, like '--record session.jsonl'")
        #expect(
            await run(["--live"]) == (1, "error: --live needs a GitHub token in the GITHUB_TOKEN environment variable.")
        )
    }

    @Test func aRecordingThatCannotBeWrittenIsAWarningAndTheSessionGoesOn() async throws {
        let blocker = storage.appendingPathComponent("a-file")
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        try Data().write(to: blocker)
        let (status, output) = await run(["--latency", "0", "--record", blocker.appendingPathComponent("s.jsonl").path])
        #expect(status == 0)
        #expect(output.contains("warning: FluxCapacitor recorder, s.jsonl: making the directory"))
        #expect(!output.contains("persisted"), "in the recorder's words")
        #expect(output.contains("Recorded 0 dispatches to"))
        #expect(output.contains("[marge-no-repos's repositories — 0 / 0]"))
    }

    @Test func theFailureModeShowsAReadableErrorInteractively() async {
        let (_, output) = await run(["--interactive", "--latency", "0", "--fail", "offline"], input: ["search mar"])
        #expect(output.contains("  error: Could not reach GitHub: The Internet connection appears to be offline."))
    }

    @Test func favoritesSurviveASecondRunAndResetForgetsThem() async throws {
        let first = await run(["--latency", "0"])
        #expect(first.output.contains("  ★ starred"))
        #expect(!first.output.contains("kept from earlier runs"))

        let second = await run(["--latency", "0"])
        #expect(second.status == 0)
        #expect(second.output.contains("1 favorite kept from earlier runs in \(storage.path)"))
        #expect(second.output.contains("  (already a favorite, kept from an earlier run)"))
        #expect(second.output.contains("[Favorites — 1]"))
        #expect(!second.output.contains("☆ unstarred"))

        let reset = await run(["--interactive", "--reset-favorites"], input: ["favorites"])
        #expect(reset.output.contains("Forgot 1 favorite kept in \(storage.path)."))
        #expect(reset.output.contains("[Favorites — 0]"))
    }

    @Test func favoritesStarredInteractivelyAreThereNextTime() async throws {
        _ = await run(["--interactive", "--latency", "0"], input: ["search doc", "open 1", "fav 1", "fav 2", "quit"])
        let next = await run(["--interactive", "--latency", "0"], input: ["favorites"])
        #expect(next.output.contains("2 favorites kept from earlier runs"))
        #expect(next.output.contains("  1. ★ doc-brown/FluxCapacitor"))
    }

    @Test func aCorruptFavoritesFileIsAWarningAndTheProgramGoesOn() async throws {
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        try Data("[{\"broken\": true}]".utf8).write(to: storage.appendingPathComponent("favorites.json"))
        let (status, output) = await run(["--interactive"], input: ["favorites"])
        #expect(status == 0)
        #expect(output.contains("warning: FluxCapacitor: persisted 'favorites' could not be decoded"))
        #expect(output.contains("[Favorites — 0]"))
        let files = try FileManager.default.contentsOfDirectory(atPath: storage.path)
        #expect(files.contains { $0.hasPrefix("favorites.corrupt-") }, "the bad file is kept")
    }

    @Test func backReturnsToTheRepositoryThatWasOpen() async {
        let (_, output) = await run(
            ["--interactive", "--latency", "0"],
            input: ["search doc", "open 1", "fav 2", "open 1", "favorites", "open 1", "back", "back"])
        let screens = output.split(separator: "\n").filter { $0.hasPrefix("[doc-brown/") }
        #expect(
            screens == ["[doc-brown/FluxCapacitor]", "[doc-brown/capacitor-render-1]", "[doc-brown/FluxCapacitor]"])
    }

    @Test func theWalkThroughShowsTheChosenFailureAtItsLastStepOnly() async {
        let (status, output) = await run(["--latency", "0", "--fail", "offline"])
        #expect(status == 0)
        #expect(output.contains("(--fail offline)"))
        #expect(output.contains("  error: Could not reach GitHub: The Internet connection appears to be offline."))
        #expect(output.contains("[marty-mcfly's repositories — 25 / 25]"), "the other steps run against a working stub")
        #expect(output.split(separator: "\n").filter { $0.hasPrefix("  error:") }.count == 1)
    }

    @Test func liveMeansInteractive() throws {
        #expect(try Options(parsing: ["--live"]).interactive)
        #expect(throws: CommandError.self) { try Options(parsing: ["--live", "--fail", "offline"]) }
    }

    @Test func oddInputIsRefusedInOneLine() async {
        let long = String(repeating: "x", count: 300)
        let (status, output) = await run(
            ["--interactive", "--latency", "0"],
            input: [
                "search \(long)", "search a\u{1B}[31mb", "open 99999999999999999999999", "help me", "quit now",
                "more x",
            ])
        #expect(status == 0)
        let errors = output.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(
            errors == [
                "error: a query has at most 256 characters",
                "error: a query cannot contain control characters",
                "error: 99999999999999999999… is no number on this screen",
                "error: 'help' takes nothing after it",
                "error: 'quit' takes nothing after it",
                "error: 'more' takes nothing after it",
            ])
        #expect(await run(["--storage", ""]).status == 2)
    }

    @Test func resettingWithNoFavoritesSaysSo() async {
        let (_, output) = await run(["--interactive", "--reset-favorites"])
        #expect(output.contains("No favorites to forget."))
    }

    @Test func aStarredRepositoryInTheListIsMarkedAndCounted() async {
        let (_, output) = await run(["--interactive", "--latency", "0"], input: ["search doc", "open 1", "fav 1"])
        #expect(output.contains("  favorites: 1"))
        #expect(output.contains("  1. ★ FluxCapacitor · "))
    }
}
