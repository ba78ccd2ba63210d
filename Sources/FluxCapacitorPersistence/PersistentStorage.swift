public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where persisted values are kept: named slots of bytes.
///
/// A `Variable` made with `init(_:persistedAs:in:)` starts from what its slot holds and
/// saves every change there:
///
/// ```swift
/// let storage = FileStorage.applicationSupport(named: "repository-search")
/// let favorites = Variable<[GitHub.Repository]>(
///     [], persistedAs: "favorites", in: storage)
/// ```
///
/// FluxCapacitor ships ``FileStorage`` and ``InMemoryStorage``. A storage of your own must
/// make ``write(_:to:)`` atomic (a reader sees the old bytes or the new ones, never a
/// mix), and be safe to call from any thread. Its ``read(_:)`` returns `nil` only when the
/// slot holds nothing, and throws when it holds something it cannot read: a slot that
/// could not be read is never written over (while the values persisted there live), so
/// that the user's data is not lost to a passing permission or I/O problem.
///
/// Its methods, and the `Codable` conformances of the values persisted in it, run on a
/// background queue or inside a store's `init()` or deinit, possibly while a dispatch is
/// running: do not dispatch or instantiate stores from them synchronously; hop to another
/// queue or a `Task`.
public protocol PersistentStorage: AnyObject, Sendable {
    /// The bytes in `slot`, or `nil` if there are none.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The bytes, or `nil` only if the slot holds nothing.
    /// - Throws: If the slot holds something that cannot be read; the slot is then not
    ///   written over.
    func read(_ slot: String) throws -> Data?

    /// Replaces the bytes in `slot`, atomically.
    ///
    /// - Parameters:
    ///   - data: The new bytes.
    ///   - slot: The slot's name.
    /// - Throws: If they cannot be written; the slot then holds the old bytes.
    func write(_ data: Data, to slot: String) throws

    /// Moves what `slot` holds aside (it could not be read) and returns where it went, so
    /// that it is kept, not lost, while the slot starts afresh.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: Where the bytes went, in words the user can find (a file name, say).
    /// - Throws: If they cannot be moved.
    func setAside(_ slot: String) throws -> String

    /// Empties `slot`.
    ///
    /// - Parameter slot: The slot's name.
    /// - Throws: If the slot holds something that cannot be removed.
    func remove(_ slot: String) throws

    /// How long a value waits after a change before it is written, so that quick changes
    /// are written once. 100 ms by default.
    var coalescingInterval: Duration { get }

    /// Hears what went wrong reading or writing a slot. By default, prints a line to
    /// standard error.
    ///
    /// It runs on a background queue or inside a store's `init()` or deinit, possibly while
    /// a dispatch is running: do not dispatch or instantiate stores from it synchronously;
    /// hop to another queue or a `Task`.
    ///
    /// - Parameter error: What went wrong.
    func report(_ error: PersistenceError)
}

extension PersistentStorage {
    /// 100 ms, unless the storage says otherwise.
    public var coalescingInterval: Duration { .milliseconds(100) }

    /// Prints `error` to standard error, as one line
    /// (`FluxCapacitor: could not read persisted 'favorites' (…)`).
    ///
    /// - Parameter error: What went wrong.
    public func report(_ error: PersistenceError) {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
    }

    /// Writes, now, every change of a value persisted here that is still waiting to be
    /// written, and returns once each is written or its error reported (to
    /// ``report(_:)``). That includes a change whose setter has returned while the value's
    /// observers have yet to see it (another thread is delivering an earlier value).
    /// Values are also written when they go away (with their store). Call it before the
    /// program exits, or in a test before looking at what was written.
    ///
    /// Called from ``report(_:)`` (a handler that saves what it can), or inside a dispatch
    /// (a `reduce(with:)`, a `.current` observer, a store's `init()`), it writes what is
    /// pending before it returns but does not wait for reports being made on other threads:
    /// ``report(_:)`` may dispatch, and would wait for this thread.
    public func flush() {
        SlotRegistry.flush(self)
    }

    /// Makes the process, when it receives one of `signals` (Ctrl-C, `kill`), write every
    /// change still waiting to be written, of every persisted value of every storage, and
    /// then end as the signal would have ended it. Call it once, early in `main`; values
    /// made later are covered too, and calling it again adds nothing.
    ///
    /// ```swift
    /// let storage = FileStorage.applicationSupport(named: "my-tool")
    /// // SIGINT and SIGTERM no longer lose the last change
    /// storage.flushOnTermination()
    /// ```
    ///
    /// A signal the process was started ignoring (a background job's `SIGINT`) stays
    /// ignored. An app that handles a signal itself should call ``flush()`` from its own
    /// handler instead (not from a C signal handler: from a `DispatchSource` or a task).
    ///
    /// - Parameter signals: The signals; `SIGINT` and `SIGTERM` by default.
    public func flushOnTermination(signals: [Int32] = [SIGINT, SIGTERM]) {
        TerminationFlusher.install(signals)
    }
}
