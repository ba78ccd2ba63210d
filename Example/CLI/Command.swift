/// A command of the interactive mode.
enum Command: Equatable, Sendable {
    case search(String)
    case more
    case open(Int)
    case favorite(Int?)
    case favorites
    case back
    case help
    case quit

    static let helpText = """
        Commands:
          search QUERY   search GitHub users whose login or name contains QUERY
          more           load the next page of the list shown
          open N         open user N, repository N or favorite N of the list shown
          fav N          star or unstar repository N of a user's list (open the user
                         first) or of the favorites; on an open repository, fav alone
          favorites      show the favorite repositories
          back           go back to the previous screen
          help           show this help
          quit           leave (so does the end of the input)
        """

    /// The longest query GitHub's search accepts.
    static let maximumQueryLength = 256

    /// Reads one line of input; throws a one-line message for anything else.
    init(parsing line: String) throws(CommandError) {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let name = words.first?.lowercased() else {
            throw CommandError("type a command, or 'help'")
        }
        let rest = words.dropFirst()
        func index() throws(CommandError) -> Int {
            guard rest.count == 1, let word = rest.first, !word.isEmpty, word.allSatisfy(\.isASCIIDigit) else {
                throw CommandError("'\(name)' needs one number, like '\(name) 1'")
            }
            guard let number = Int(word) else {
                throw CommandError("\(word.prefix(20))… is no number on this screen")
            }
            guard number >= 1 else {
                throw CommandError("numbers start at 1")
            }
            return number - 1
        }
        func noArguments() throws(CommandError) {
            guard rest.isEmpty else {
                throw CommandError("'\(name)' takes nothing after it")
            }
        }
        switch name {
        case "search":
            let query = rest.joined(separator: " ")
            guard !query.isEmpty else {
                throw CommandError("search needs a query, like 'search mar'")
            }
            guard query.count <= Self.maximumQueryLength else {
                throw CommandError("a query has at most \(Self.maximumQueryLength) characters")
            }
            guard !query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw CommandError("a query cannot contain control characters")
            }
            self = .search(query)
        case "more":
            try noArguments()
            self = .more
        case "open":
            self = .open(try index())
        case "fav":
            self = .favorite(rest.isEmpty ? nil : try index())
        case "favorites":
            try noArguments()
            self = .favorites
        case "back":
            try noArguments()
            self = .back
        case "help":
            try noArguments()
            self = .help
        case "quit", "exit":
            try noArguments()
            self = .quit
        default:
            throw CommandError("unknown command '\(Self.printable(name))'; type 'help'")
        }
    }
}

extension Command {
    /// `text` with control characters shown as `?`, at most 40 characters: safe to echo.
    static func printable(_ text: String) -> String {
        let cleaned = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        return cleaned.count > 40 ? cleaned.prefix(40) + "…" : cleaned
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// Why a command could not be run: one line for the user.
struct CommandError: Error, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
