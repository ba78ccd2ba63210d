import Foundation

/// Where the program writes: standard output, or a buffer in tests. Writes may come from
/// any thread (progress is reported by observers), so a console serializes them.
protocol Console: Sendable {
    func write(_ line: String)

    /// Shows `text` before the user types a command (a terminal shows what is typed).
    func prompt(_ text: String)

    /// Shows a command read from input that is not a terminal, so transcripts read well.
    func echo(_ command: String)
}

extension Console {
    func prompt(_ text: String) {}

    func echo(_ command: String) {
        write("> " + Command.printable(command))
    }
}

/// Standard output, a line at a time, flushed so progress shows while requests run.
struct StandardOutput: Console {
    private static let lock = NSLock()
    /// Whether standard input is a terminal: then the user sees what they type.
    private let inputIsTerminal = isatty(STDIN_FILENO) != 0

    func write(_ line: String) {
        Self.lock.withLock {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }

    func prompt(_ text: String) {
        guard inputIsTerminal else { return }
        Self.lock.withLock {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    func echo(_ command: String) {
        guard !inputIsTerminal else { return }
        write("> " + Command.printable(command))
    }
}

/// Lines kept in memory (for tests and for reading back what was shown).
final class BufferConsole: Console, @unchecked Sendable {
    // Sendable: `lock` guards `lines`.
    private let lock = NSLock()
    private var stored: [String] = []

    func write(_ line: String) {
        lock.withLock { stored.append(line) }
    }

    var lines: [String] {
        lock.withLock { stored }
    }

    var text: String {
        lines.joined(separator: "\n")
    }
}
