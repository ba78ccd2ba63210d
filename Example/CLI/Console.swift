import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the program writes: standard output and standard error, or a buffer in tests.
/// Writes may come from any thread (progress is reported by observers), so a console
/// serializes them.
protocol Console: Sendable {
    func write(_ line: String)

    /// Writes a usage error or a warning: on standard error, so that it is seen even when
    /// the output goes to a file or a pipe, and does not mix with it.
    func writeError(_ line: String)

    /// Shows `text` before the user types a command (a terminal shows what is typed).
    func prompt(_ text: String)

    /// Shows a command read from input that is not a terminal, so transcripts read well.
    func echo(_ command: String)

    /// Why the output could not be written (a full disk, a closed descriptor), once it
    /// failed; the program then stops and exits non-zero.
    var failure: String? { get }
}

extension Console {
    func prompt(_ text: String) {}

    func echo(_ command: String) {
        write("> " + Command.printable(command))
    }

    var failure: String? { nil }
}

/// Standard output, a line at a time, flushed so progress shows while requests run.
///
/// A write that fails (`> /dev/full`, a closed descriptor) is reported once on standard
/// error and ends the output: later lines are dropped, and ``failure`` says why, so that
/// the program stops and exits non-zero instead of crashing. A closed pipe still ends the
/// program by `SIGPIPE`, as for any command-line tool.
final class StandardOutput: Console, @unchecked Sendable {
    // Sendable: `Self.lock` guards `failed`.
    private static let lock = NSLock()
    private var failed: String?
    /// Whether standard input is a terminal: then the user sees what they type.
    private let inputIsTerminal = isatty(STDIN_FILENO) != 0

    func write(_ line: String) {
        send(line + "\n")
    }

    func writeError(_ line: String) {
        _ = Self.lock.withLock { Self.writeAll(Data((line + "\n").utf8), to: STDERR_FILENO) }
    }

    func prompt(_ text: String) {
        guard inputIsTerminal else { return }
        send(text)
    }

    func echo(_ command: String) {
        guard !inputIsTerminal else { return }
        write("> " + Command.printable(command))
    }

    var failure: String? {
        Self.lock.withLock { failed }
    }

    private func send(_ text: String) {
        Self.lock.withLock {
            guard failed == nil else { return }
            if let code = Self.writeAll(Data(text.utf8), to: STDOUT_FILENO) {
                let reason = FileStorageError(operation: "writing", path: "standard output", code: code)
                failed = "\(reason)"
                Self.writeAll(Data("error: could not write the output: \(reason)\n".utf8), to: STDERR_FILENO)
            }
        }
    }

    /// Writes all of `data` to `descriptor`; returns the error code if it could not.
    @discardableResult
    private static func writeAll(_ data: Data, to descriptor: Int32) -> POSIXErrorCode? {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return POSIXErrorCode(rawValue: errno) ?? .EIO
                }
                offset += count
            }
            return nil
        }
    }
}

#if canImport(Darwin)
private let systemWrite = Darwin.write
#else
private let systemWrite = Glibc.write
#endif

/// Lines kept in memory (for tests and for reading back what was shown): both streams in
/// the order written, as a terminal shows them, and standard error's alone.
final class BufferConsole: Console, @unchecked Sendable {
    // Sendable: `lock` guards `stored` and `storedErrors`.
    private let lock = NSLock()
    private var stored: [String] = []
    private var storedErrors: [String] = []

    func write(_ line: String) {
        lock.withLock { stored.append(line) }
    }

    func writeError(_ line: String) {
        lock.withLock {
            stored.append(line)
            storedErrors.append(line)
        }
    }

    var lines: [String] {
        lock.withLock { stored }
    }

    var text: String {
        lines.joined(separator: "\n")
    }

    /// What went to standard error.
    var errorText: String {
        lock.withLock { storedErrors.joined(separator: "\n") }
    }
}
