import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `repository-search` program: reads the options, picks the session, and runs the
/// walk-through, the interactive mode, or a replay of a recorded session.
enum RepositorySearch {
    /// Runs the program; returns its exit status. Ctrl-C (`SIGINT`) stops what runs,
    /// finishes the recording (saying so) and the saved favorites, then ends the process as
    /// the signal would have.
    ///
    /// - Parameters:
    ///   - arguments: The command line, without the program name.
    ///   - environment: Where `GITHUB_TOKEN` is read from.
    ///
    /// On the main actor, so that it runs before any thread of the global executor (whose
    /// descriptors would otherwise take the numbers of standard descriptors that were closed
    /// when the program started).
    @MainActor
    static func main(
        arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Int32 {
        let console = StandardOutput()
        guard StandardDescriptors.reserveClosedOnes() else {
            console.writeError("error: could not write the output: standard output is closed (EBADF)")
            return 1
        }
        let interruption = Interruption.onSIGINT()
        let status = await run(
            arguments: arguments, environment: environment, input: { readLine() }, console: console,
            interruption: interruption, flushesOnTermination: true)
        if interruption.isInterrupted {
            interruption.endAsTheSignalWould()
        }
        return status
    }

    /// The program's work, which tests call too.
    ///
    /// - Parameters:
    ///   - input: Reads a line of standard input (interactive mode), on a thread of its own
    ///     (the program runs the command before while the next is typed); `nil` at its end.
    ///   - interruption: Ctrl-C, or a test's stand-in for it.
    static func run(
        arguments: [String],
        environment: [String: String],
        input: @escaping @Sendable () -> String?,
        console: any Console,
        interruption: Interruption = Interruption(),
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

        // The favorites survive runs, in files; problems with them are warnings. A replay
        // keeps them in memory, unless --storage says where: it shows a session recorded
        // elsewhere, and must not change the user's own favorites.
        let problems = PersistenceProblems()
        let onError: @Sendable (PersistenceError) -> Void = { error in
            problems.append(error)
            console.writeError("warning: \(error)")
        }
        let files: FileStorage? =
            options.replay != nil && options.storage == nil
            ? nil
            : options.storage.map { FileStorage(directory: URL(fileURLWithPath: $0), onError: onError) }
                ?? FileStorage.applicationSupport(named: "repository-search", onError: onError)
        let storage: any PersistentStorage = files ?? InMemoryStorage()
        if flushesOnTermination, let files {
            // `kill` or a closed terminal within the coalescing interval of a change must not
            // lose it. (Ctrl-C is the program's own: it finishes the recording too.)
            files.flushOnTermination(signals: [SIGTERM, SIGHUP])
        }
        defer { storage.flush() }

        // The default storage of the stores made in this run (a store's `init()` takes no
        // arguments). A program with one storage for its whole life would set it once at
        // launch with `Persistence.setDefaultStorage(_:)`; this run is also called by tests,
        // in parallel.
        let status: Int32 = await Persistence.withDefaultStorage(storage) {
            let run = Run(
                options: options, session: session, console: console, interruption: interruption,
                problems: problems, storage: storage, files: files)
            return await run.start(input: input)
        }
        // The output failed (a full disk): the run did not do its job.
        return console.failure == nil ? status : 1
    }
}

/// One run of the program, in the default storage it was given.
struct Run {
    let options: Options
    let session: any GitHubSession
    let console: any Console
    let interruption: Interruption
    let problems: PersistenceProblems
    let storage: any PersistentStorage
    let files: FileStorage?

    func start(input: @escaping @Sendable () -> String?) async -> Int32 {
        // A recording starts before the first store, so that it has every state of the
        // session; after a replay, once it is done, so that it starts from where the
        // replay left the stores.
        var recorder: DispatchFileRecorder?
        do {
            if options.replay == nil {
                recorder = try startRecording()
            }
        } catch {
            console.writeError("error: \(error)")
            return 1
        }
        defer {
            if let recorder, let path = options.record {
                recorder.stop()
                let count = recorder.statistics.recorded
                let interrupted = interruption.isInterrupted ? " (interrupted by Ctrl-C: finished)" : ""
                console.write("Recorded \(count) dispatch\(count == 1 ? "" : "es") to \(path)\(interrupted).")
            }
        }
        let store = RepositoryStore.instantiate()
        if options.resetFavorites, let status = resetFavorites(store) {
            return status
        }
        let kept = store.favorites.value.count
        if kept > 0, options.replay == nil, let files {
            console.write(
                "\(kept) favorite\(kept == 1 ? "" : "s") kept from earlier runs in \(files.directory.path) "
                    + "(--reset-favorites forgets them).")
        }
        if let replay = options.replay {
            let session = self.session
            let console = self.console
            guard
                let navigator = await Replay(console: console).run(
                    replay, through: options.step,
                    makeNavigator: {
                        Navigator(
                            userAction: UserAction(session: session),
                            repositoryAction: RepositoryAction(session: session), console: console)
                    })
            else {
                return 1
            }
            guard options.interactive else { return 0 }
            do {
                recorder = try startRecording()
            } catch {
                console.writeError("error: \(error)")
                return 1
            }
            return await Interactive(console: console, log: options.log, interruption: interruption).run(
                input: input, navigator: navigator)
        }
        if !options.interactive {
            let failure = options.failure ?? .rateLimited
            let failing = StubSession(latency: options.latency ?? .milliseconds(50), failure: failure)
            return await Walkthrough(
                session: session, failingSession: failing, failure: failure, console: console,
                interruption: interruption
            ).run()
        }
        let navigator = await Navigator(
            userAction: UserAction(session: session), repositoryAction: RepositoryAction(session: session),
            console: console)
        return await Interactive(console: console, log: options.log, interruption: interruption).run(
            input: input, navigator: navigator)
    }

    /// Starts `--record FILE`'s recorder, if asked; throws if another recorder has the file.
    private func startRecording() throws(DispatchRecordingError) -> DispatchFileRecorder? {
        guard let path = options.record else { return nil }
        return try SessionRecording.start(writingTo: path) { [console] in console.writeError("warning: \($0)") }
    }

    /// `--reset-favorites`: forgets them, through the Flux flow, like any change (the store
    /// saves the empty list); a status to end with if it could not.
    private func resetFavorites(_ store: RepositoryStore) -> Int32? {
        let count = store.favorites.value.count
        let before = problems.count
        RepositoryAction(session: session).removeAllFavorites()
        storage.flush()
        let place = files?.directory.path ?? "memory"
        // A file that could not be read is not written over: nothing was forgotten.
        if let problem = problems.since(before) ?? problems.unreadable {
            console.writeError("error: could not forget the favorites kept in \(place): \(problem.reason)")
            return 1
        }
        console.write(
            count == 0
                ? "No favorites to forget." : "Forgot \(count) favorite\(count == 1 ? "" : "s") kept in \(place).")
        return nil
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
