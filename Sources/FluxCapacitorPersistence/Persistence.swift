import FluxCapacitor
import Foundation

/// Where the persisted values that name no storage are kept: the default storage, which
/// `Variable(_:persistedAs:)` uses.
///
/// `Persistence` is not a storage (``FileStorage`` and ``InMemoryStorage`` are): it holds
/// the app's choice of one. A store's `init()` takes no arguments, so a store cannot be
/// handed its storage. Set the app's once, at launch (in your `App`'s `init`, or first
/// thing in `main`), before any store is made, and every persisted value made later
/// uses it:
///
/// ```swift
/// Persistence.setDefaultStorage(FileStorage.applicationSupport(named: "MyApp"))
/// ```
///
/// ```swift
/// final class BookmarkStore: Storable {
///     typealias DispatchStateType = Dispatcher.Bookmark
///
///     let bookmarks: Constant<[GitHub.Repository]>
///     private let _bookmarks = Variable<[GitHub.Repository]>(
///         [], persistedAs: "bookmarks")
///
///     required init() {
///         bookmarks = Constant(_bookmarks)
///     }
///
///     func reduce(with state: Dispatcher.Bookmark) {
///         switch state {
///         case .add(let repository): _bookmarks.value.append(repository)
///         }
///     }
/// }
/// ```
///
/// Tests, which Swift Testing runs in parallel, give each test a storage of its own with
/// ``withDefaultStorage(_:operation:)``, for the values made inside it, without touching
/// the app's:
///
/// ```swift
/// @Test(.isolatedDispatcher) func aBookmarkIsSaved() {
///     let storage = InMemoryStorage()
///     Persistence.withDefaultStorage(storage) {
///         let store = BookmarkStore.instantiate()
///         BookmarkAction().invoke(.add(fluxCapacitor))
///         storage.flush()
///         #expect(store.bookmarks.value == [fluxCapacitor])
///         #expect(storage.writeCount(of: "bookmarks") == 1)
///     }
/// }
/// ```
///
/// A value takes its storage when it is made (when its store is first made). One made
/// while there is no default storage at all is an ordinary variable, and says so, once per
/// slot, on standard error, with the fix for a test and, unless it knows it runs in one
/// (FluxCapacitorTesting's `.isolatedDispatcher` trait tells it), the fix for an app.
public enum Persistence: Sendable {
    /// The storage bound by the innermost ``withDefaultStorage(_:operation:)``.
    @TaskLocal private static var scoped: (any PersistentStorage)?

    private static let lock = NSLock()
    // `lock` guards `app` and `warnedSlots`.
    nonisolated(unsafe) private static var app: (any PersistentStorage)?
    nonisolated(unsafe) private static var warnedSlots: Set<String> = []

    /// The default storage, which persisted values made here use: the one bound by the
    /// innermost ``withDefaultStorage(_:operation:)``, else the app's
    /// (``setDefaultStorage(_:)``), else `nil`.
    ///
    /// ```swift
    /// if Persistence.defaultStorage == nil {
    ///     print("the bookmarks will not be saved")
    /// }
    /// ```
    public static var defaultStorage: (any PersistentStorage)? {
        scoped ?? lock.withLock { app }
    }

    /// Makes `storage` the app's default storage, for every persisted value made from now
    /// on outside a ``withDefaultStorage(_:operation:)`` (`nil`: none). Call it once, at
    /// launch.
    ///
    /// ```swift
    /// Persistence.setDefaultStorage(FileStorage.applicationSupport(named: "MyApp"))
    /// ```
    ///
    /// - Parameter storage: The app's storage.
    public static func setDefaultStorage(_ storage: (any PersistentStorage)?) {
        let replaced = lock.withLock {
            defer { app = storage }
            return app
        }
        // Let go of after unlocking: a storage's deinit may be user code.
        withExtendedLifetime(replaced) {}
    }

    /// Runs `operation` with `storage` as the ``defaultStorage``: the persisted values made
    /// inside it (by the stores it instantiates, and in child tasks and `Task { }` it
    /// starts) use `storage`. For tests, and for a tool that picks its storage at run time.
    ///
    /// ```swift
    /// Persistence.withDefaultStorage(InMemoryStorage()) {
    ///     BookmarkAction().invoke(.add(fluxCapacitor))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - storage: The storage to use inside `operation`.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withDefaultStorage<Result>(
        _ storage: any PersistentStorage,
        operation: () throws -> Result
    ) rethrows -> Result {
        try $scoped.withValue(storage, operation: operation)
    }

    /// Runs the asynchronous `operation` with `storage` as the ``defaultStorage``; see
    /// ``withDefaultStorage(_:operation:)``.
    ///
    /// ```swift
    /// await Persistence.withDefaultStorage(InMemoryStorage()) {
    ///     await BookmarkAction().addLater(fluxCapacitor)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - storage: The storage to use inside `operation`.
    ///   - isolation: The caller's actor, inherited.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withDefaultStorage<Result>(
        _ storage: any PersistentStorage,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $scoped.withValue(storage, operation: operation, isolation: isolation)
    }

    /// Says on standard error, once per slot, that a value persisted as `slot` was made
    /// with no storage, and how to give it one.
    static func warnThatNothingStores(_ slot: String) {
        let isFirst = lock.withLock { warnedSlots.insert(slot).inserted }
        guard isFirst else { return }
        FileHandle.standardError.write(Data((nothingStoresWarning(slot: slot, test: RunningTest.name) + "\n").utf8))
    }

    /// The warning for a value persisted as `slot` made with no storage: in `test` (as the
    /// `.isolatedDispatcher` trait of FluxCapacitorTesting makes it known), the fix for a
    /// test; where no test is known to run, the fixes for an app and for a test.
    static func nothingStoresWarning(slot: String, test: String?) -> String {
        let made = "warning: the value persisted as \"\(slot)\" was made with no storage"
        if let test {
            return """
                \(made) in the test “\(test)”, so its changes are not saved. Give the test a storage \
                of its own: make the store inside Persistence.withDefaultStorage(InMemoryStorage()) { … }.
                """
        }
        return """
            \(made), so its changes are not saved. In an app, set the app's storage at launch, \
            before making stores: Persistence.setDefaultStorage(FileStorage.applicationSupport(named: "MyApp")). \
            In a test, make the store inside Persistence.withDefaultStorage(InMemoryStorage()) { … }.
            """
    }
}
