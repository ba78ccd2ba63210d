import Foundation
import Testing

// The test bookkeeping of FluxCapacitorTests/Support (a test target cannot import another's
// files), for the persistence tests.

/// A value guarded by an `NSLock` (which ThreadSanitizer sees), for test bookkeeping.
final class Locked<Value>: @unchecked Sendable {
    // Sendable: `lock` guards `stored`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.withLock { stored }
    }

    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}

/// Polls `condition` until it holds. The limit, ten minutes, only bounds a failing run: a
/// loaded machine (ThreadSanitizer, two cores, parallel tests) must never fail a test
/// that would pass given time.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(600))
    while !condition() && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(1))
    }
    #expect(condition())
}
