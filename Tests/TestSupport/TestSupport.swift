public import Foundation
public import Testing

// Test bookkeeping that every test target uses: one copy here, since a test target cannot
// import another's files.

/// A value guarded by an `NSLock` (which ThreadSanitizer sees), for test bookkeeping.
public final class Locked<Value>: @unchecked Sendable {
    // Sendable: `lock` guards `stored`.
    private let lock = NSLock()
    private var stored: Value

    /// A lock around `value`.
    public init(_ value: Value) {
        stored = value
    }

    /// The value, read under the lock.
    public var value: Value {
        lock.withLock { stored }
    }

    /// Runs `body` with the value, under the lock.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}

/// Polls `condition` until it holds. The limit, ten minutes, only bounds a failing run: a
/// loaded machine (ThreadSanitizer, two cores, parallel tests) must never fail a test
/// that would pass given time.
public func waitUntil(
    _ condition: @Sendable () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(600))
    while !condition() && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(1))
    }
    #expect(condition(), sourceLocation: sourceLocation)
}

/// The first folder above the test binary that holds `path` (a built product, a module),
/// looking up to six levels: where SwiftPM put what the tests run or compile against.
public func buildFolder(holding path: String) -> URL? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    for _ in 0..<6 {
        directory.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path) {
            return directory
        }
    }
    return nil
}

/// Where the documentation samples' lines go: each target that compiles samples shadows
/// Swift's `print` with one that calls `SampleOutput.print`, so that a sample run by a test
/// writes nothing into the test log (issue 42), and a test can read what a sample prints.
public enum SampleOutput: Sendable {
    /// Who hears the lines printed in this task and its child tasks; nobody by default.
    @TaskLocal private static var listener: Locked<[String]>?

    /// A line of `items`, as `Swift.print` writes them, for the listener of this task.
    public static func print(_ items: [Any], separator: String) {
        listener?.withLock { $0.append(items.map { "\($0)" }.joined(separator: separator)) }
    }

    /// The lines `body` prints (in this task and the tasks it starts, while it runs).
    public static func lines(printedBy body: () throws -> Void) rethrows -> [String] {
        let lines = Locked<[String]>([])
        try $listener.withValue(lines, operation: body)
        return lines.value
    }
}
