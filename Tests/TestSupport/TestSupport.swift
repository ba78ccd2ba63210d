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
