import Foundation

/// The storage of the persisted values made with no storage of their own:
/// `Variable(_:persistedAs:)`, or `persistedAs:in:` given `nil`.
///
/// A store's `init()` takes no arguments, so a store cannot be handed its storage. Set the
/// app's once, at launch (in your `App`'s `init`, or first thing in `main`), before any
/// store is made, and every persisted value made later uses it:
///
/// ```swift
/// DefaultStorage.set(FileStorage.applicationSupport(named: "MyApp"))
/// ```
///
/// ```swift
/// final class BookmarkStore: Storable {
///     typealias DispatchStateType = Dispatcher.Bookmark
///
///     let bookmarks: Constant<[GitHub.Repository]>
///     private let _bookmarks = Variable<[GitHub.Repository]>([], persistedAs: "bookmarks")
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
/// ``withCurrent(_:operation:)``, for the values made inside it, without touching the app's:
///
/// ```swift
/// @Test(.isolatedDispatcher) func aBookmarkIsSaved() {
///     let storage = InMemoryStorage()
///     DefaultStorage.withCurrent(storage) {
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
/// slot, on standard error.
public enum DefaultStorage: Sendable {
    /// The storage bound by the innermost ``withCurrent(_:operation:)``.
    @TaskLocal private static var scoped: (any PersistentStorage)?

    private static let lock = NSLock()
    // `lock` guards `app` and `warnedSlots`.
    nonisolated(unsafe) private static var app: (any PersistentStorage)?
    nonisolated(unsafe) private static var warnedSlots: Set<String> = []

    /// The storage that persisted values made here use: the one bound by the innermost
    /// ``withCurrent(_:operation:)``, else the app's (``set(_:)``), else `nil`.
    ///
    /// ```swift
    /// if DefaultStorage.current == nil { print("the bookmarks will not be saved") }
    /// ```
    public static var current: (any PersistentStorage)? {
        scoped ?? lock.withLock { app }
    }

    /// Makes `storage` the app's default storage, for every persisted value made from now
    /// on outside a ``withCurrent(_:operation:)`` (`nil`: none). Call it once, at launch.
    ///
    /// ```swift
    /// DefaultStorage.set(FileStorage.applicationSupport(named: "MyApp"))
    /// ```
    ///
    /// - Parameter storage: The app's storage.
    public static func set(_ storage: (any PersistentStorage)?) {
        lock.withLock { app = storage }
    }

    /// Runs `operation` with `storage` as ``current``: the persisted values made inside it
    /// (by the stores it instantiates, and in child tasks and `Task { }` it starts) use
    /// `storage`. For tests, and for a tool that picks its storage at run time.
    ///
    /// ```swift
    /// DefaultStorage.withCurrent(InMemoryStorage()) {
    ///     BookmarkAction().invoke(.add(fluxCapacitor))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - storage: The storage to use inside `operation`.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withCurrent<Result>(
        _ storage: any PersistentStorage,
        operation: () throws -> Result
    ) rethrows -> Result {
        try $scoped.withValue(storage, operation: operation)
    }

    /// Runs the asynchronous `operation` with `storage` as ``current``; see
    /// ``withCurrent(_:operation:)``.
    ///
    /// ```swift
    /// await DefaultStorage.withCurrent(InMemoryStorage()) {
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
    public static func withCurrent<Result>(
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
        FileHandle.standardError.write(
            Data(
                """
                warning: the value persisted as "\(slot)" was made with no storage, so its changes are \
                not saved. Set the app's storage at launch, before making stores: \
                DefaultStorage.set(FileStorage.applicationSupport(named: "MyApp")).\n
                """.utf8))
    }
}
