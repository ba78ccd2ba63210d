public import FluxCapacitor

extension PrimitiveValue where Trait == MutableTrait, Element: Codable {
    /// Makes a variable that starts from what `storage` holds in `slot` (or from
    /// `defaultValue` if it holds nothing usable), and saves every change there.
    ///
    /// Declare it in a store like any variable, with `storage` the app's storage (one
    /// ``FileStorage``, made once):
    ///
    /// ```swift
    /// final class FavoriteStore: Storable {
    ///     typealias DispatchStateType = Dispatcher.Favorite
    ///
    ///     let favorites: Constant<[GitHub.Repository]>
    ///     private let _favorites = Variable<[GitHub.Repository]>(
    ///         [], persistedAs: "favorites", in: storage)
    ///
    ///     required init() {
    ///         favorites = Constant(_favorites)
    ///     }
    ///
    ///     func reduce(with state: Dispatcher.Favorite) {
    ///         switch state {
    ///         case .add(let repository):
    ///             _favorites.value.append(repository)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// To use the app's default storage (``Persistence/defaultStorage``), leave `in:` out:
    /// ``init(_:persistedAs:)``.
    ///
    /// The value is encoded as JSON. A change is written after the storage's
    /// `coalescingInterval`, on a background queue, so quick changes are written once and
    /// the last one wins; ``PersistentStorage/flush()`` writes at once, and the variable
    /// writes what is pending when it goes away (with its store; inside a dispatch, on the
    /// background queue, which `flush()` waits for). Writes are atomic: a crash loses at
    /// most the changes since the last write, never the file.
    ///
    /// `Element`'s `Codable` conformance is used off the thread that changed the value: in
    /// an Xcode 26 app target, declare the model `nonisolated` (see
    /// <doc:Xcode26AppTargets>).
    ///
    /// What goes wrong is reported to the storage (``PersistentStorage/report(_:)``): a slot
    /// that the type cannot decode is set aside (kept, renamed) and the variable starts
    /// from `defaultValue`; a write that fails (a full disk) leaves the value in memory
    /// working, and the next change tries again.
    ///
    /// - Parameters:
    ///   - defaultValue: The value when the slot is empty or unusable.
    ///   - slot: The name of the value in the storage (`favorites` → `favorites.json`).
    ///   - storage: Where it is kept.
    public convenience init(_ defaultValue: Element, persistedAs slot: String, in storage: any PersistentStorage) {
        let persister = TypedPersister<Element>(slot: slot, storage: storage)
        // The variable hands the persister its last value when it goes, and the persister
        // writes what is pending then.
        self.init(persister.restore() ?? defaultValue) { last, version in
            persister.valueWent(last, version: version)
        }
        // The persister reads the variable's value itself (so `flush()` sees a value set
        // while another thread's round has yet to deliver it, and a waiting write holds no
        // copy of it); the observation tells it of each change.
        persister.attach(to: self)
        // Not generic, and it reads nothing: a change's own share of its persistence.
        let changes: Persister = persister
        _ = observe(on: .current, ignoreFirst: true) { _ in changes.noteChange() }
    }

    /// Makes a variable persisted as `slot` in the default storage
    /// (``Persistence/defaultStorage``): the app's, set at launch, or the one a test binds.
    /// See ``init(_:persistedAs:in:)-(_,_,PersistentStorage)``.
    ///
    /// ```swift
    /// private let _bookmarks = Variable<[GitHub.Repository]>(
    ///     [], persistedAs: "bookmarks")
    /// ```
    ///
    /// With no default storage when it is made, it is an ordinary variable, and says so on
    /// standard error (once per slot), naming the fix for a test
    /// (``Persistence/withDefaultStorage(_:operation:)`` with an ``InMemoryStorage``) and,
    /// unless a test run with FluxCapacitorTesting's `.isolatedDispatcher` trait made it,
    /// the one for an app (``Persistence/setDefaultStorage(_:)``).
    ///
    /// - Parameters:
    ///   - defaultValue: The value when the slot is empty or unusable.
    ///   - slot: The name of the value in the storage (`favorites` → `favorites.json`).
    public convenience init(_ defaultValue: Element, persistedAs slot: String) {
        guard let storage = Persistence.defaultStorage else {
            Persistence.warnThatNothingStores(slot)
            self.init(defaultValue)
            return
        }
        self.init(defaultValue, persistedAs: slot, in: storage)
    }

    /// Makes a variable persisted as `slot` in `storage`, or, given `nil`, in the default
    /// storage: the optional form this had before 1.0, kept for source compatibility. Leave
    /// `in:` out for the default storage (``init(_:persistedAs:)``), and pass a storage
    /// that is there as one (``init(_:persistedAs:in:)-(_,_,PersistentStorage)``).
    @available(
        *, deprecated,
        message: "leave out 'in:' for the default storage, or pass a storage that is not optional"
    )
    public convenience init(_ defaultValue: Element, persistedAs slot: String, in storage: (any PersistentStorage)?) {
        if let storage {
            self.init(defaultValue, persistedAs: slot, in: storage)
        } else {
            self.init(defaultValue, persistedAs: slot)
        }
    }
}
