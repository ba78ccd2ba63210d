/// The type-keyed, weak registry of live stores behind ``Dispatcher``.
///
/// Keys are `ObjectIdentifier`s of store types, never type names, so two modules may
/// each have a `Dispatcher.Repository` without meeting here. Stores are held weakly:
/// the registry never keeps one alive (it holds an unowned reference, or on Apple platforms
/// a weak one for `NSObject` subclasses: see ``StoreWord``).
///
/// Words: a type's *live instance* is its registered store, if any (looking it up never
/// makes one); to *instantiate* is to get the live instance or make and register one; to
/// *remove* is to unregister.
@usableFromInline
final class StoreRegistry: @unchecked Sendable {
    // Sendable: `mutex` guards `retired` and the creators of `table`. The table's keys and
    // storage change only with both `mutex` and the dispatcher's mutex held (`instantiate`
    // is called with the dispatcher's mutex held), so a dispatch, which holds the
    // dispatcher's mutex, reads them with no lock of the registry's; store words and the
    // retired flag are atomics (see StoreTable), which `remove`/`removeAll` change under
    // `mutex` alone.
    //
    // A store word that `clear()` takes out must not be let go of while a dispatch on
    // another thread may have loaded it and be about to `swift_tryRetain` it: such words go
    // to `retired`, and the next holder of the dispatcher's mutex lets go of them, before it
    // reads the table. `clear()` does not take the dispatcher's mutex itself, so it never
    // waits for a dispatch: a `reduce` may wait for a thread that is calling `clear()`
    // without deadlocking. (A retired word keeps only the memory of a store, never its
    // life: the store's deinit runs when its last outside reference goes, as always.)
    //
    // No user code runs while `mutex` is held.
    private let mutex = Lock.make(.registry)
    private let dispatcherMutex: Lock
    // Unchecked: see above; the runtime's check of the table costs more than the lookup
    // (checked, the rows `instantiate` and `dispatch` of `Benchmarks/instructions` are
    // dearer by three quarters and by 30%, and `dispatch` goes over its budget).
    @exclusivity(unchecked)
    private var table = StoreTable()
    /// Words `clear()` took out, for the next holder of the dispatcher's mutex to let go of;
    /// `table.hasRetired` says whether there are any.
    private var retired: [StoreWord] = []

    /// A registry whose dispatches hold `dispatcherMutex` (the dispatcher's).
    init(dispatcherMutex: Lock) {
        self.dispatcherMutex = dispatcherMutex
    }

    deinit {
        // The table lets go of its own words.
        retired.forEach { $0.letGo() }
    }

    /// The live instance registered under `key` (the `ObjectIdentifier` of its type), read
    /// under the registry's lock: from any thread.
    @usableFromInline
    func liveInstance(of key: ObjectIdentifier) -> AnyObject? {
        mutex.lock()
        defer { mutex.unlock() }
        guard let bucket = table.bucket(of: key) else { return nil }
        return table.word(in: bucket).liveStore()
    }

    /// The live instance of `type`, if any; from any thread.
    @inlinable
    func liveInstance<Store: Storable>(of type: Store.Type) -> Store? {
        // The registry keeps a `Store` under `Store`'s key, and only that.
        liveInstance(of: ObjectIdentifier(type)).map { unsafeDowncast($0, to: Store.self) }
    }

    /// The live instance registered under `key`, read without the registry's lock: call
    /// only with the dispatcher's mutex held (a dispatch).
    @usableFromInline
    func liveInstanceDispatching(of key: ObjectIdentifier) -> AnyObject? {
        if _slowPath(table.hasRetired) {
            letGoOfRetired()
        }
        guard let bucket = table.bucket(of: key) else { return nil }
        return table.word(in: bucket).liveStore()
    }

    /// The live instance of `type`, if any: call only with the dispatcher's mutex held.
    @inlinable
    func liveInstanceDispatching<Store: Storable>(of type: Store.Type) -> Store? {
        liveInstanceDispatching(of: ObjectIdentifier(type)).map { unsafeDowncast($0, to: Store.self) }
    }

    /// Lets go of the words `clear()` retired. Called with the dispatcher's mutex held and
    /// before reading the table: no dispatch is between loading a word and retaining it.
    private func letGoOfRetired() {
        assert(dispatcherMutex.isHeldByCurrentThread, "StoreRegistry.letGoOfRetired: dispatcher's mutex not held")
        mutex.lock()
        let words = retired
        retired = []
        table.hasRetired = false
        mutex.unlock()
        words.forEach { $0.letGo() }
    }

    /// The live instance of `type`, or a new one made with `init()` and registered.
    ///
    /// Call only from `Dispatcher.instantiateLocked(_:)`, which holds the dispatcher's
    /// mutex: that makes one store at a time. `init()` runs without the registry locked, so
    /// it may instantiate other stores.
    func instantiate<Store: Storable>(_ type: Store.Type) -> Store {
        assert(dispatcherMutex.isHeldByCurrentThread, "StoreRegistry.instantiate: dispatcher's mutex not held")
        if table.hasRetired {
            letGoOfRetired()
        }
        let key = ObjectIdentifier(type)
        mutex.lock()
        let bucket = table.bucket(of: key) ?? table.insert(key)
        if let store = table.word(in: bucket).liveStore() {
            mutex.unlock()
            return unsafeDowncast(store, to: Store.self)
        }
        let creator = table.creator(in: bucket)
        if creator != 0 {
            mutex.unlock()
            // Stores are made with the dispatcher held, so only this thread can be making it.
            fatalError(
                "\(Store.self).init() led to \(Store.self).instantiate() on the same thread. "
                    + "A store cannot instantiate itself while it is being made: "
                    + "remove the call, or move it out of init().")
        }
        table.setCreator(ThreadID.current, in: bucket)
        mutex.unlock()

        let store = Store()

        mutex.lock()
        // Buckets move when the table grows (another type may have been added meanwhile).
        let placed = table.bucket(of: key)!
        table.setCreator(0, in: placed)
        // The word replaced, if any, is a dead store's or none: let go of it at once, as no
        // dispatch is reading (this thread holds the dispatcher's mutex) and no other reader
        // can see it after the unlock.
        let replaced = table.exchangeWord(StoreWord(registering: store), in: placed)
        mutex.unlock()
        replaced.letGo()
        return store
    }

    /// Unregisters `store` if it is the registered instance of its type.
    func remove<Store: Storable>(_ store: Store) {
        mutex.lock()
        var taken = StoreWord.none
        if let bucket = table.bucket(of: ObjectIdentifier(Store.self)), table.word(in: bucket).registers(store) {
            taken = table.exchangeWord(.none, in: bucket)
        }
        taken = retireUnlessDispatching(taken)
        mutex.unlock()
        taken.letGo()
    }

    /// Unregisters every store. Stores being made right now are registered when their
    /// `init()` returns.
    func removeAll() {
        mutex.lock()
        var taken: [StoreWord] = []
        for bucket in table.buckets {
            let word = retireUnlessDispatching(table.exchangeWord(.none, in: bucket))
            if word != .none {
                taken.append(word)
            }
        }
        mutex.unlock()
        taken.forEach { $0.letGo() }
    }

    /// `word`, to let go of now, if this thread holds the dispatcher's mutex (then no
    /// dispatch is reading the table); else `.none`, with `word` retired. Call with `mutex`
    /// held.
    private func retireUnlessDispatching(_ word: StoreWord) -> StoreWord {
        guard word != .none, !dispatcherMutex.isHeldByCurrentThread else {
            return word
        }
        retired.append(word)
        table.hasRetired = true
        return .none
    }
}
