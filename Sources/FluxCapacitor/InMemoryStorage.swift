public import Foundation

/// A ``PersistentStorage`` in memory, for tests: it keeps slots for as long as it lives,
/// counts writes, and can be made to fail.
///
/// ```swift
/// let storage = InMemoryStorage()
/// let first = Variable(0, persistedAs: "count", in: storage)
/// first.value = 3
/// storage.flush()
/// let second = Variable(0, persistedAs: "count", in: storage) // 3
/// ```
public final class InMemoryStorage: PersistentStorage, @unchecked Sendable {
    // Sendable: `lock` guards `slots`, `writes`, `readFailure`, `writeFailure` and `errors`.
    private let lock = NSLock()
    private var slots: [String: Data] = [:]
    private var writes: [String: Int] = [:]
    private var readFailure: (any Error)?
    private var writeFailure: (any Error)?
    private var errors: [PersistenceError] = []

    /// How long a value waits after a change before it is written.
    ///
    /// ```swift
    /// let storage = InMemoryStorage(coalescingInterval: .zero) // writes each change at once
    /// ```
    public let coalescingInterval: Duration

    /// An empty storage.
    ///
    /// - Parameter coalescingInterval: 100 ms by default.
    ///
    /// ```swift
    /// let storage = InMemoryStorage()
    /// ```
    public init(coalescingInterval: Duration = .milliseconds(100)) {
        self.coalescingInterval = coalescingInterval
    }

    /// The bytes in `slot`, if any; throws the failure set with ``failReads(with:)``.
    ///
    /// ```swift
    /// let data = try storage.read("favorites")
    /// ```
    public func read(_ slot: String) throws -> Data? {
        try lock.withLock {
            if let readFailure { throw readFailure }
            return slots[slot]
        }
    }

    /// Replaces the bytes in `slot`; throws the failure set with ``failWrites(with:)``.
    ///
    /// ```swift
    /// try storage.write(Data("[]".utf8), to: "favorites")
    /// ```
    public func write(_ data: Data, to slot: String) throws {
        try lock.withLock {
            if let writeFailure { throw writeFailure }
            slots[slot] = data
            writes[slot, default: 0] += 1
        }
    }

    /// Moves the slot to `slot.corrupt` (or `slot.corrupt-2`, …) and returns that name.
    ///
    /// ```swift
    /// let keptAs = try storage.setAside("favorites") // "favorites.corrupt"
    /// ```
    public func setAside(_ slot: String) throws -> String {
        lock.withLock {
            var name = "\(slot).corrupt"
            var counter = 1
            while slots[name] != nil {
                counter += 1
                name = "\(slot).corrupt-\(counter)"
            }
            slots[name] = slots.removeValue(forKey: slot)
            return name
        }
    }

    /// Empties `slot`.
    ///
    /// ```swift
    /// try storage.remove("favorites")
    /// ```
    public func remove(_ slot: String) throws {
        _ = lock.withLock { slots.removeValue(forKey: slot) }
    }

    /// Keeps `error`; read them back with ``reportedErrors``.
    ///
    /// ```swift
    /// storage.report(error)
    /// #expect(storage.reportedErrors.count == 1)
    /// ```
    public func report(_ error: PersistenceError) {
        lock.withLock { errors.append(error) }
    }

    // MARK: For tests

    /// Puts `data` in `slot` directly (to seed it with bad data, say).
    ///
    /// ```swift
    /// storage.seed(Data("not json".utf8), in: "favorites")
    /// ```
    public func seed(_ data: Data?, in slot: String) {
        lock.withLock { slots[slot] = data }
    }

    /// The bytes in `slot`, without failing.
    ///
    /// ```swift
    /// let stored = storage.contents(of: "favorites")
    /// ```
    public func contents(of slot: String) -> Data? {
        lock.withLock { slots[slot] }
    }

    /// How many times `slot` was written.
    ///
    /// ```swift
    /// #expect(storage.writeCount(of: "count") == 1)
    /// ```
    public func writeCount(of slot: String) -> Int {
        lock.withLock { writes[slot, default: 0] }
    }

    /// Makes writes throw `error` (a full disk, say), or work again with `nil`.
    ///
    /// ```swift
    /// storage.failWrites(with: POSIXError(.ENOSPC))
    /// ```
    public func failWrites(with error: (any Error)?) {
        lock.withLock { writeFailure = error }
    }

    /// Makes reads throw `error` (an unreadable disk, say), or work again with `nil`.
    ///
    /// ```swift
    /// storage.failReads(with: POSIXError(.EIO))
    /// ```
    public func failReads(with error: (any Error)?) {
        lock.withLock { readFailure = error }
    }

    /// Every error reported so far.
    ///
    /// ```swift
    /// #expect(storage.reportedErrors.isEmpty)
    /// ```
    public var reportedErrors: [PersistenceError] {
        lock.withLock { errors }
    }
}
