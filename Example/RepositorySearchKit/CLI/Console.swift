import Foundation

/// Where the program writes: standard output, or a buffer in tests. Writes may come from
/// any thread (progress is reported by observers), so a console serializes them.
protocol Console: Sendable {
    func write(_ line: String)
}

/// Standard output, a line at a time, flushed so progress shows while requests run.
struct StandardOutput: Console {
    private static let lock = NSLock()

    func write(_ line: String) {
        Self.lock.withLock {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
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
