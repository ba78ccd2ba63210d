import FluxCapacitor
import Foundation

/// The interactive mode: a command per line, the screen after each. Commands run while the
/// next one is typed, as in an app: a line read while a command runs waits its turn, but a
/// new `search` typed while a search runs starts at once and cancels it, as a search field
/// does (the running one's answer then reaches no store). Ctrl-C stops what runs.
@MainActor
struct Interactive {
    let console: any Console
    let log: Bool
    let interruption: Interruption

    private enum Event: Sendable {
        case line(String)
        case endOfInput
        case finished(Int)
        case interrupted
    }

    /// Reads commands from `input` (on a thread of its own) and runs them with
    /// `navigator`; returns the exit status once the input ends or `quit` comes, with
    /// nothing left running.
    func run(input: @escaping @Sendable () -> String?, navigator: Navigator) async -> Int32 {
        let logging =
            log ? Dispatcher.current.printDispatches(limit: 110) { [console] in console.write("    · \($0)") } : nil
        defer { logging?.clean() }

        let (events, continuation) = AsyncStream<Event>.makeStream()
        Thread {
            while let line = input() {
                continuation.yield(.line(line))
            }
            continuation.yield(.endOfInput)
        }.start()
        interruption.onInterrupt { continuation.yield(.interrupted) }

        console.write("FluxCapacitor repository search. Type 'help' for the commands, 'quit' to leave.")
        navigator.show()
        let commands = Commands(navigator: navigator, console: console) { continuation.yield(.finished($0)) }
        var waiting: [String] = []
        var inputEnded = false
        var quitting = false

        for await event in events {
            switch event {
            case .interrupted:
                console.write("Interrupted (Ctrl-C): stopping.")
                // What runs dispatches nothing more; fetching is off.
                navigator.cancelRequests()
                await commands.running?.task.value
                return 0
            case .endOfInput:
                inputEnded = true
            case .finished(let id):
                commands.finished(id)
            case .line(let line):
                // A new search while a search runs, with nothing else waiting: at once.
                if let current = commands.running, waiting.isEmpty, case .search = current.command,
                    case .search(let query)? = try? Command(parsing: line)
                {
                    commands.supersede(current.id)
                    console.write("  (the running search is replaced by \"\(Command.printable(query))\")")
                    commands.start(.search(query), line: line)
                } else {
                    waiting.append(line)
                }
            }
            // What waits runs in turn, once nothing runs.
            while commands.running == nil, !quitting, !waiting.isEmpty, console.failure == nil {
                let line = waiting.removeFirst()
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                let command: Command
                do {
                    command = try Command(parsing: line)
                } catch {
                    console.echo(line)
                    console.write("error: \(error)")
                    continue
                }
                switch command {
                case .quit:
                    console.echo(line)
                    quitting = true
                case .help:
                    console.echo(line)
                    Command.helpText.split(separator: "\n").forEach { console.write(String($0)) }
                default:
                    commands.start(command, line: line)
                }
            }
            if commands.running == nil, quitting || console.failure != nil || (inputEnded && waiting.isEmpty) {
                return 0
            }
        }
        return 0
    }
}

/// The commands of an interactive session: the one running, each a task of its own, and
/// those a newer search replaced (whose screen is not shown).
@MainActor
private final class Commands {
    private let navigator: Navigator
    private let console: any Console
    private let finished: @Sendable (Int) -> Void
    private(set) var running: (id: Int, command: Command, task: Task<Void, Never>)?
    private var superseded: Set<Int> = []
    private var count = 0

    init(navigator: Navigator, console: any Console, finished: @escaping @Sendable (Int) -> Void) {
        self.navigator = navigator
        self.console = console
        self.finished = finished
    }

    /// Starts `command` (read as `line`); its screen is shown when it ends, unless a newer
    /// search replaced it.
    func start(_ command: Command, line: String) {
        count += 1
        let id = count
        console.echo(line)
        let task = Task { @MainActor in
            do {
                try await navigator.run(command)
                if !superseded.contains(id) {
                    navigator.show()
                }
            } catch {
                console.write("error: \(error)")
            }
            finished(id)
        }
        running = (id, command, task)
    }

    func supersede(_ id: Int) {
        superseded.insert(id)
    }

    func finished(_ id: Int) {
        if running?.id == id {
            running = nil
        }
    }
}
