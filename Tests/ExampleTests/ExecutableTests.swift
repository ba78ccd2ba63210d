import Dispatch
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Linux only: the program runs as a child process (`Process`: macOS and Linux), and the
// faults are made with Linux's tools and devices: `/dev/full`, GNU `env --default-signal`,
// util-linux `setpriv`. (macOS has neither /dev/full nor those options.)
#if os(Linux)

/// The built `repository-search` program, run as a process: what a user sees when its
/// output, its signals or its files misbehave.
@Suite("The program under faults")
final class ExecutableTests {
    /// Where this test keeps favorites. Removed after the test.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "repository-search-process-\(UUID().uuidString)")
    var favorites: URL { folder.appendingPathComponent("favorites.json") }

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Tests run as root here; a file another user cannot read needs that other user.
    static let canRunAsAnotherUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    static let whyNotAsAnotherUser =
        "needs root and /usr/bin/setpriv (util-linux) to run the program as user 65534, who cannot read the file"

    private func program(
        _ arguments: [String], asNobody: Bool = false, standardOutput: FileHandle? = nil,
        shellRedirection: String? = nil, closedPipe: Bool = false
    ) throws -> Program {
        try Program(
            arguments, storage: folder, asNobody: asNobody, standardOutput: standardOutput,
            shellRedirection: shellRedirection, closedPipe: closedPipe)
    }

    /// The URLs of the repositories in a favorites file.
    private func favoriteURLs(in file: URL) throws -> [String] {
        let list = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]]
        return list?.compactMap { $0["url"] as? String } ?? []
    }

    // MARK: 1. A file that cannot be read is left as it is

    @Test(.enabled(if: canRunAsAnotherUser, Comment(rawValue: whyNotAsAnotherUser)))
    func aFavoritesFileTheUserCannotReadIsLeftAsItIsAndSaidSo() throws {
        let precious = Data(#"[{"a favorite": "only root can read"}]"#.utf8)
        try precious.write(to: favorites)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: favorites.path)
        // The folder is the user's, so a rename over the file would succeed.
        chown(folder.path, 65534, 65534)

        let run = try program(["--interactive", "--latency", "0"], asNobody: true)
            .finish(input: ["search doc", "open 1", "fav 1", "favorites", "quit"])

        #expect(run.status == 0)
        #expect(run.output.contains("[Favorites — 1]"), "the session works, in memory")
        #expect(
            run.errors.contains(
                "warning: FluxCapacitor: could not read persisted 'favorites' (opening \(favorites.path): "
                    + "Permission denied (EACCES)); left it as it is"))
        #expect(try Data(contentsOf: favorites) == precious, "never written over")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["favorites.json"])
    }

    // MARK: 2. Standard output that cannot be written

    @Test func aFullStandardOutputIsReportedOnStandardErrorNotACrash() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let run = try program(["--latency", "0"], standardOutput: full).finish()
        #expect(run.reason == .exit)
        #expect(run.status == 1)
        #expect(
            run.errors
                == "error: could not write the output: writing standard output: No space left on device (ENOSPC)\n")
    }

    @Test func aClosedStandardOutputIsReportedOnStandardErrorNotACrash() throws {
        let run = try program(["--latency", "0"], shellRedirection: ">&-").finish()
        #expect(run.reason == .exit)
        #expect(run.status == 1)
        #expect(run.errors == "error: could not write the output: standard output is closed (EBADF)\n")
    }

    @Test func aClosedPipeStillEndsTheProgramBySIGPIPE() throws {
        // `| true`: the reader is gone before the first line.
        let run = try program(["--latency", "0"], closedPipe: true).finish()
        #expect(run.reason == .uncaughtSignal)
        #expect(run.status == SIGPIPE)
        #expect(run.errors.isEmpty)
    }

    // MARK: 3. Ctrl-C and kill right after a change

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalRightAfterAChangeWritesItFirst(_ signal: Int32) throws {
        let program = try program(["--interactive", "--latency", "0"])
        program.send(["search doc", "open 1", "fav 1"])
        try #require(program.waitForOutput(containing: "favorites: 1"))
        kill(program.process.processIdentifier, signal)
        // Its input stays open: the program must end by the signal, not by the end of input.
        let run = program.finish(closingInput: false)

        #expect(run.reason == .uncaughtSignal)
        #expect(run.status == signal)
        #expect(try favoriteURLs(in: favorites) == ["https://github.com/doc-brown/FluxCapacitor"])
    }

    /// Issue 41: Ctrl-C while recording stops the search, finishes the recording and says
    /// so, then ends the program as the signal would have; the recording replays to where
    /// the user was (fetching off), not to a search in flight forever.
    @Test func ctrlCWhileRecordingFinishesTheRecordingAndSaysSo() throws {
        let recording = folder.appendingPathComponent("session.jsonl")
        let program = try program(["--interactive", "--latency", "60000", "--record", recording.path])
        program.send(["search mar"])
        try #require(program.waitForOutput(containing: "… searching GitHub users"))
        kill(program.process.processIdentifier, SIGINT)
        let run = program.finish(closingInput: false)

        #expect(run.reason == .uncaughtSignal)
        #expect(run.status == SIGINT)
        #expect(run.output.contains("Interrupted (Ctrl-C): stopping."))
        let said = try #require(
            run.output.firstMatch(of: /Recorded (\d+) dispatches to (.*) \(interrupted by Ctrl-C: finished\)\./))
        #expect(String(said.2) == recording.path)
        let last = try #require(try String(contentsOf: recording, encoding: .utf8).split(separator: "\n").last)
        #expect(last.contains(#""seq":\#(said.1),"#))
        #expect(last.contains(#""state":{"isUserFetching":{"_0":false}}"#), "the search stopped: \(last)")
    }

    // MARK: 6. Smaller ones

    @Test func usageErrorsAndWarningsGoToStandardError() throws {
        let unknown = try program(["--nope"]).finish()
        #expect(unknown.status == 2)
        #expect(unknown.output.isEmpty)
        #expect(unknown.errors == "error: unknown option '--nope'; see --help\n")

        try Data("[{\"broken\": true}]".utf8).write(to: favorites)
        let warned = try program(["--interactive"]).finish(input: ["favorites"])
        #expect(warned.status == 0)
        #expect(warned.errors.hasPrefix("warning: FluxCapacitor: persisted 'favorites' could not be decoded"))
        #expect(!warned.output.contains("warning"))
    }

    @Test func aLatencyOutOfRangeIsRefusedWithTheRange() throws {
        for value in ["60001", "99999999999", "-1"] {
            let run = try program(["--latency", value]).finish()
            #expect(run.status == 2)
            #expect(
                run.errors == "error: --latency needs a number of milliseconds from 0 to 60000, like '--latency 300'\n")
        }
    }

    @Test(.enabled(if: canRunAsAnotherUser, Comment(rawValue: whyNotAsAnotherUser)))
    func resettingFavoritesThatCannotBeWrittenSaysSoAndFails() throws {
        _ = try program(["--latency", "0"]).finish()
        let saved = try Data(contentsOf: favorites)
        // Readable by anyone, in a folder only root may write.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)

        let run = try program(["--interactive", "--reset-favorites"], asNobody: true).finish()

        #expect(run.status == 1)
        #expect(!run.output.contains("Forgot"))
        #expect(
            run.errors.contains(
                "error: could not forget the favorites kept in \(folder.path): creating the temporary file "))
        #expect(run.errors.contains("Permission denied (EACCES)"))
        #expect(try Data(contentsOf: favorites) == saved)
    }

    @Test func aStaleTemporaryFileOfACrashedRunIsCleanedUp() throws {
        let stale = folder.appendingPathComponent(".favorites.json.\(UUID().uuidString).tmp")
        try Data("[{\"half".utf8).write(to: stale)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: stale.path)

        let run = try program(["--interactive"]).finish(input: ["quit"])

        #expect(run.status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
    }

    @Test func aSymlinkedFavoritesFileIsWrittenThroughTheLink() throws {
        let dotfiles = folder.appendingPathComponent("dotfiles")
        try FileManager.default.createDirectory(at: dotfiles, withIntermediateDirectories: true)
        try Data("[]".utf8).write(to: dotfiles.appendingPathComponent("favorites.json"))
        try FileManager.default.createSymbolicLink(
            atPath: favorites.path, withDestinationPath: "dotfiles/favorites.json")

        let run = try program(["--interactive", "--latency", "0"])
            .finish(input: ["search doc", "open 1", "fav 1", "quit"])

        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: favorites.path) == "dotfiles/favorites.json")
        #expect(
            try favoriteURLs(in: dotfiles.appendingPathComponent("favorites.json"))
                == ["https://github.com/doc-brown/FluxCapacitor"])
    }

    @Test func twoSessionsAtOnceLoseNeitherOnesFavorites() throws {
        let first = try program(["--interactive", "--latency", "0"])
        try #require(first.waitForOutput(containing: "Type 'help'"), "the first session has read the favorites")

        let second = try program(["--interactive", "--latency", "0"])
            .finish(input: ["search doc", "open 1", "fav 1", "quit"])
        #expect(second.status == 0)
        let secondsFavorites = try Data(contentsOf: favorites)

        first.send(["search mar", "open 1", "fav 1", "quit"])
        let run = first.finish()

        #expect(run.status == 0)
        let last = try favoriteURLs(in: favorites)
        #expect(last.count == 1)
        #expect(last.allSatisfy { $0.hasPrefix("https://github.com/marty-mcfly/") }, "the last writer wins")
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("favorites.replaced-") }
        #expect(kept.count == 1)
        #expect(try kept.first.map { try Data(contentsOf: folder.appendingPathComponent($0)) } == secondsFavorites)
        #expect(run.errors.contains("was changed by another program"))
        #expect(run.errors.contains("kept the other version as \(kept.first ?? "?")"))
    }
}

/// The program, running.
final class Program: @unchecked Sendable {
    // Sendable: `output` and `errors` are `Locked`; the rest is set up before the readers
    // start.
    let process = Process()
    private let input = Pipe()
    private let output = Locked<Data>(Data())
    private let errors = Locked<Data>(Data())
    private let readers = DispatchGroup()

    struct Finished {
        let status: Int32
        let reason: Process.TerminationReason
        let output: String
        let errors: String
    }

    /// Starts `repository-search` with `arguments` and `--storage folder`: as user 65534
    /// (`setpriv`), with `standardOutput`, with a shell redirection (`>&-`), or with its
    /// output a pipe nobody reads (`closedPipe`).
    init(
        _ arguments: [String], storage folder: URL, asNobody: Bool = false, standardOutput: FileHandle? = nil,
        shellRedirection: String? = nil, closedPipe: Bool = false
    ) throws {
        let executable = try Self.executable()
        let all = arguments + ["--storage", folder.path]
        // As a shell starts it: the test runner may ignore SIGINT, which a child would inherit.
        let asFromAShell = ["/usr/bin/env", "--default-signal=INT,TERM,PIPE,HUP", executable.path] + all
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + asFromAShell
        } else if let shellRedirection {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"exec "$0" "$@" "# + shellRedirection, executable.path] + all
        } else {
            process.executableURL = URL(fileURLWithPath: asFromAShell[0])
            process.arguments = Array(asFromAShell.dropFirst())
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.path
        process.environment = environment
        process.standardInput = input
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = standardOutput ?? outputPipe
        process.standardError = errorPipe
        try process.run()
        if closedPipe {
            try outputPipe.fileHandleForReading.close()
        } else {
            read(outputPipe.fileHandleForReading, into: output)
        }
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        read(errorPipe.fileHandleForReading, into: errors)
    }

    private func read(_ handle: FileHandle, into buffer: Locked<Data>) {
        readers.enter()
        Thread { [readers] in
            while case let data = handle.availableData, !data.isEmpty {
                buffer.withLock { $0.append(data) }
            }
            readers.leave()
        }.start()
    }

    func send(_ lines: [String]) {
        input.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// Waits (up to a minute, a bound for a hung program, not a measure) until the output
    /// contains `text`.
    func waitForOutput(containing text: String) -> Bool {
        for _ in 0..<6_000 {
            if String(decoding: output.value, as: UTF8.self).contains(text) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Sends `input`, ends it (or not: then the program must end by itself), and waits for
    /// the program to end.
    func finish(input lines: [String] = [], closingInput: Bool = true) -> Finished {
        send(lines)
        if closingInput {
            try? input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        readers.wait()
        return Finished(
            status: process.terminationStatus, reason: process.terminationReason,
            output: String(decoding: output.value, as: UTF8.self),
            errors: String(decoding: errors.value, as: UTF8.self))
    }

    /// The built program: beside the test bundle.
    static func executable() throws -> URL {
        let candidate = buildFolder(holding: "repository-search")?.appendingPathComponent("repository-search")
        if let candidate, FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "repository-search beside the tests"])
    }
}

#endif
