/// The command line of `repository-search`.
struct Options: Equatable {
    var interactive = false
    var live = false
    var latency: Duration?
    var failure: StubSession.Failure?
    var log = false
    var help = false
    var storage: String?
    var resetFavorites = false
    var record: String?
    var replay: String?
    var step: UInt64?

    /// The stub's latencies, in milliseconds: up to a minute (more looks like a hang).
    static let latencyRange = 0...60_000

    static let usage = """
        USAGE: repository-search [--interactive] [--live] [--latency MS] [--fail MODE] [--log]
                                 [--storage DIR] [--reset-favorites] [--record FILE]
                                 [--replay FILE [--step N]]

        Searches GitHub users, lists a user's repositories page by page and keeps favorite
        repositories, through FluxCapacitor's Flux flow: view models ask actions, actions
        dispatch states, stores reduce them, view models observe the stores.

        With no options it runs a scripted walk-through against a stub GitHub (fixture JSON,
        no network), printing for each step the action invoked, the states dispatched and
        what the screen shows.

        OPTIONS:
          --interactive   read commands from standard input instead (type 'help')
          --live          use the real GitHub GraphQL API, interactively; needs
                          GITHUB_TOKEN in the environment (a token with no scopes is enough)
          --latency MS    make the stub wait MS milliseconds per request, 0 to 60000
                          (default: 50 in the walk-through, 300 interactively)
          --fail MODE     the stub's failure: rate-limit, unauthorized, graphql,
                          malformed or offline. Interactively every request fails so;
                          in the walk-through, its last step shows that failure
                          (rate-limit by default)
          --log           print every dispatched state (the walk-through always does)
          --storage DIR   keep the favorites in DIR (default: the application-support
                          folder, ~/.local/share/repository-search on Linux). Two
                          sessions at once: the last to save wins, and the version it
                          replaced is kept as favorites.replaced-<date>.json (a warning
                          says so). A favorites file that cannot be read is left as it
                          is and not written over.
          --reset-favorites
                          forget the favorites kept from earlier runs
          --record FILE   write every dispatched state of the session to FILE, one
                          JSON line each (the last 10,000), with the values the stores
                          started from, for --replay or a test to replay; a FILE
                          already there is kept as FILE's name with .previous.
                          Ctrl-C finishes the recording
          --replay FILE   play a recorded session into this program's stores and show
                          where it leaves them; with --interactive, go on from there
                          (and --record records the rest). The favorites it shows are
                          kept in memory, unless --storage says where
          --step N        with --replay, stop after step N (0: where the session
                          started)
          --help          show this help

        \(Command.helpText)
        """

    /// Reads `arguments` (without the program name); throws a one-line message.
    init(parsing arguments: [String]) throws(CommandError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--interactive", "-i":
                interactive = true
            case "--live":
                live = true
            case "--log":
                log = true
            case "--help", "-h":
                help = true
            case "--reset-favorites":
                resetFavorites = true
            case "--storage":
                guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("--") else {
                    throw CommandError("--storage needs a directory, like '--storage /tmp/favorites'")
                }
                storage = value
            case "--record":
                guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("--") else {
                    throw CommandError("--record needs a file, like '--record session.jsonl'")
                }
                record = value
            case "--replay":
                guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("--") else {
                    throw CommandError("--replay needs a file, like '--replay session.jsonl'")
                }
                replay = value
            case "--step":
                guard let value = remaining.popFirst(), let number = UInt64(value) else {
                    throw CommandError("--step needs the number of a step, like '--step 12'")
                }
                step = number
            case "--latency":
                guard let value = remaining.popFirst(), let milliseconds = Int(value),
                    Self.latencyRange.contains(milliseconds)
                else {
                    throw CommandError(
                        "--latency needs a number of milliseconds from \(Self.latencyRange.lowerBound) to "
                            + "\(Self.latencyRange.upperBound), like '--latency 300'")
                }
                latency = .milliseconds(milliseconds)
            case "--fail":
                let modes = StubSession.Failure.allCases.map(\.rawValue).joined(separator: ", ")
                guard let value = remaining.popFirst(), let failure = StubSession.Failure(rawValue: value) else {
                    throw CommandError("--fail needs one of: \(modes)")
                }
                self.failure = failure
            default:
                throw CommandError("unknown option '\(argument)'; see --help")
            }
        }
        if live && (failure != nil || latency != nil) {
            throw CommandError("--fail and --latency apply to the stub, not to --live")
        }
        if step != nil && replay == nil {
            throw CommandError("--step goes with --replay, like '--replay session.jsonl --step 12'")
        }
        if replay != nil && resetFavorites {
            throw CommandError("--reset-favorites does not go with --replay, whose favorites are the recording's")
        }
        if let replay, replay == record {
            throw CommandError("--record and --replay name one file: record to another")
        }
        if live {
            // The walk-through's steps are written for the stub's data.
            interactive = true
        }
    }
}
