import FluxCapacitor
import FluxCapacitorPersistence
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `repository-search` program: reads the options, picks the session, and runs the
/// walk-through or the interactive mode.
public enum RepositorySearch: Sendable {
    /// Runs the program; returns its exit status.
    ///
    /// - Parameters:
    ///   - arguments: The command line, without the program name.
    ///   - environment: Where `GITHUB_TOKEN` is read from.
    ///   - input: Reads a line of standard input (interactive mode); `nil` at its end.
    public static func main(
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        input: @escaping () -> String? = { readLine() }
    ) async -> Int32 {
        let console = StandardOutput()
        guard StandardDescriptors.reserveClosedOnes() else {
            console.writeError("error: could not write the output: standard output is closed (EBADF)")
            return 1
        }
        return await run(
            arguments: arguments, environment: environment, input: input, console: console,
            flushesOnTermination: true)
    }

    static func run(
        arguments: [String],
        environment: [String: String],
        input: () -> String?,
        console: any Console,
        flushesOnTermination: Bool = false
    ) async -> Int32 {
        let options: Options
        do {
            options = try Options(parsing: arguments)
        } catch {
            console.writeError("error: \(error)")
            return 2
        }
        if options.help {
            Options.usage.split(separator: "\n", omittingEmptySubsequences: false).forEach { console.write(String($0)) }
            return console.failure == nil ? 0 : 1
        }

        let session: any GitHubSession
        if options.live {
            do {
                session = try LiveSession(environment: environment)
            } catch {
                console.writeError("error: \(error)")
                return 1
            }
        } else {
            // In the walk-through, --fail is for its last step only.
            session = StubSession(
                latency: options.latency ?? (options.interactive ? .milliseconds(300) : .milliseconds(50)),
                failure: options.interactive ? options.failure : nil)
        }

        // The favorites survive runs, in files; problems with them are warnings.
        let problems = PersistenceProblems()
        let onError: @Sendable (PersistenceError) -> Void = { error in
            problems.append(error)
            console.writeError("warning: \(error)")
        }
        let storage =
            options.storage.map { FileStorage(directory: URL(fileURLWithPath: $0), onError: onError) }
            ?? FileStorage.applicationSupport(named: "repository-search", onError: onError)
        if flushesOnTermination {
            // Ctrl-C, `kill` or a closed terminal within the coalescing interval of a change
            // must not lose it.
            storage.flushOnTermination(signals: [SIGINT, SIGTERM, SIGHUP])
        }
        defer { storage.flush() }

        // The default storage of the stores made in this run (a store's `init()` takes no
        // arguments). A program with one storage for its whole life would set it once at
        // launch with `Persistence.setDefaultStorage(_:)`; this run is also called by tests,
        // in parallel.
        let status: Int32 = await Persistence.withDefaultStorage(storage) {
            // Before the first store, so that the recording has every state of the session.
            let recorder = options.record.flatMap { path in
                try? SessionRecording.start(writingTo: path) { console.writeError("warning: \($0)") }
            }
            defer {
                if let recorder, let path = options.record {
                    recorder.finish()
                    let count = recorder.statistics.recorded
                    console.write("Recorded \(count) dispatch\(count == 1 ? "" : "es") to \(path).")
                }
            }
            let store = RepositoryStore.instantiate()
            if options.resetFavorites {
                // Through the Flux flow, like any change: the store saves the empty list.
                let count = store.favorites.value.count
                let before = problems.count
                RepositoryAction(session: session).removeAllFavorites()
                storage.flush()
                // A file that could not be read is not written over: nothing was forgotten.
                if let problem = problems.since(before) ?? problems.unreadable {
                    console.writeError(
                        "error: could not forget the favorites kept in \(storage.directory.path): \(problem.reason)")
                    return 1
                }
                console.write(
                    count == 0
                        ? "No favorites to forget."
                        : "Forgot \(count) favorite\(count == 1 ? "" : "s") kept in \(storage.directory.path).")
            }
            let kept = store.favorites.value.count
            if kept > 0 {
                console.write(
                    "\(kept) favorite\(kept == 1 ? "" : "s") kept from earlier runs in \(storage.directory.path) "
                        + "(--reset-favorites forgets them).")
            }
            if !options.interactive {
                let failure = options.failure ?? .rateLimited
                let failing = StubSession(latency: options.latency ?? .milliseconds(50), failure: failure)
                return await Walkthrough(
                    session: session, failingSession: failing, failure: failure, console: console
                ).run()
            }
            return await Interactive(session: session, console: console, log: options.log).run(input: input)
        }
        // The output failed (a full disk): the run did not do its job.
        return console.failure == nil ? status : 1
    }
}

/// The persistence errors reported during a run, so that `--reset-favorites` can tell
/// whether it worked.
final class PersistenceProblems: @unchecked Sendable {
    // Sendable: `lock` guards `errors`.
    private let lock = NSLock()
    private var errors: [PersistenceError] = []

    func append(_ error: PersistenceError) {
        lock.withLock { errors.append(error) }
    }

    var count: Int {
        lock.withLock { errors.count }
    }

    /// The first error reported after the first `count`, if any.
    func since(_ count: Int) -> PersistenceError? {
        lock.withLock { errors.dropFirst(count).first }
    }

    /// An error that says the favorites could not be read, if any.
    var unreadable: PersistenceError? {
        lock.withLock { errors.first { $0.kind == .unreadable } }
    }
}

/// The interactive mode: a command per line, the screen after each.
struct Interactive {
    let session: any GitHubSession
    let console: any Console
    let log: Bool

    func run(input: () -> String?) async -> Int32 {
        let navigator = Navigator(
            userAction: UserAction(session: session),
            repositoryAction: RepositoryAction(session: session),
            console: console)
        let logging =
            log ? Dispatcher.current.printDispatches(limit: 110) { [console] in console.write("    · \($0)") } : nil
        defer { logging?.clean() }

        console.write("FluxCapacitor repository search. Type 'help' for the commands, 'quit' to leave.")
        navigator.show()
        while console.failure == nil {
            console.prompt("> ")
            guard let line = input() else { break }
            console.echo(line)
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let command: Command
            do {
                command = try Command(parsing: line)
            } catch {
                console.write("error: \(error)")
                continue
            }
            switch command {
            case .quit:
                return 0
            case .help:
                Command.helpText.split(separator: "\n").forEach { console.write(String($0)) }
                continue
            default:
                break
            }
            do {
                try await navigator.run(command)
                navigator.show()
            } catch {
                console.write("error: \(error)")
            }
        }
        return 0
    }
}
