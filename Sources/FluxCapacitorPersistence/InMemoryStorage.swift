public import Foundation

/// A ``PersistentStorage`` in memory, for tests: it keeps slots for as long as it lives,
/// counts writes, and can be made to fail.
///
/// A second variable of the same slot starts from what the first one saved:
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
    public let coalescingInterval: Duration

    /// An empty storage.
    ///
    /// - Parameter coalescingInterval: How long a value waits after a change before it is
    ///   written: 100 ms by default; `.zero` writes each change at once (still off the
    ///   changing thread).
    public init(coalescingInterval: Duration = .milliseconds(100)) {
        self.coalescingInterval = coalescingInterval
    }

    /// The bytes in `slot`, if any.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The bytes, or `nil` if the slot is empty.
    /// - Throws: The failure set with ``failReads(with:)``, if any.
    public func read(_ slot: String) throws -> Data? {
        try lock.withLock {
            if let readFailure { throw readFailure }
            return slots[slot]
        }
    }

    /// Replaces the bytes in `slot`, and counts the write (``writeCount(of:)``).
    ///
    /// - Parameters:
    ///   - data: The new bytes.
    ///   - slot: The slot's name.
    /// - Throws: The failure set with ``failWrites(with:)``, if any; then nothing changes.
    public func write(_ data: Data, to slot: String) throws {
        try lock.withLock {
            if let writeFailure { throw writeFailure }
            slots[slot] = data
            writes[slot, default: 0] += 1
        }
    }

    /// Moves the slot to `slot.corrupt` (or `slot.corrupt-2`, …) and returns that name.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The slot that now holds the bytes, `favorites.corrupt` say.
    /// - Throws: Never; a storage of your own may.
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
    /// - Parameter slot: The slot's name.
    /// - Throws: Never; a storage of your own may.
    public func remove(_ slot: String) throws {
        _ = lock.withLock { slots.removeValue(forKey: slot) }
    }

    /// Keeps `error`; read them back with ``reportedErrors``.
    ///
    /// - Parameter error: What went wrong.
    public func report(_ error: PersistenceError) {
        lock.withLock { errors.append(error) }
    }

    // MARK: For tests

    /// Puts `data` in `slot` directly, without counting a write: to test what a value does
    /// with bad data, say.
    ///
    /// ```swift
    /// @Test func favoritesThatCannotBeDecodedAreKeptAside() {
    ///     let storage = InMemoryStorage()
    ///     storage.seed(Data("not json".utf8), in: "favorites")
    ///     let favorites = Variable<[String]>(
    ///         [], persistedAs: "favorites", in: storage)
    ///     #expect(favorites.value == [])
    ///     #expect(storage.contents(of: "favorites.corrupt") == Data("not json".utf8))
    ///     #expect(
    ///         storage.reportedErrors.map(\.kind)
    ///             == [.incompatible(setAsideAs: "favorites.corrupt")])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - data: The bytes; `nil` empties the slot.
    ///   - slot: The slot's name.
    public func seed(_ data: Data?, in slot: String) {
        lock.withLock { slots[slot] = data }
    }

    /// The bytes in `slot`, without failing.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The bytes, or `nil` if the slot is empty.
    public func contents(of slot: String) -> Data? {
        lock.withLock { slots[slot] }
    }

    /// How many times `slot` was written (successfully): quick changes of a value are
    /// written once.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The number of writes since the storage was made.
    public func writeCount(of slot: String) -> Int {
        lock.withLock { writes[slot, default: 0] }
    }

    /// Makes writes throw `error` (a full disk, say), or work again with `nil`.
    ///
    /// ```swift
    /// @Test func aFullDiskIsReportedAndTheValueKeepsWorking() {
    ///     let storage = InMemoryStorage()
    ///     storage.failWrites(with: POSIXError(.ENOSPC))
    ///     let count = Variable(0, persistedAs: "count", in: storage)
    ///     count.value = 1
    ///     storage.flush()
    ///     #expect(count.value == 1)
    ///     #expect(storage.reportedErrors.map(\.kind) == [.writeFailed])
    /// }
    /// ```
    ///
    /// - Parameter error: The error writes throw, or `nil`.
    public func failWrites(with error: (any Error)?) {
        let replaced = lock.withLock {
            defer { writeFailure = error }
            return writeFailure
        }
        // An error may be a class of the test's, with a deinit: let go of after unlocking.
        withExtendedLifetime(replaced) {}
    }

    /// Makes reads throw `error` (an unreadable disk, say), or work again with `nil`.
    ///
    /// - Parameter error: The error reads throw, or `nil`.
    public func failReads(with error: (any Error)?) {
        let replaced = lock.withLock {
            defer { readFailure = error }
            return readFailure
        }
        withExtendedLifetime(replaced) {}
    }

    /// Every error reported so far, oldest first.
    public var reportedErrors: [PersistenceError] {
        lock.withLock { errors }
    }
}
