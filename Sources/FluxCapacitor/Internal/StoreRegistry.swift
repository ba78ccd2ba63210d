/// The type-keyed, weak registry of live stores behind ``Dispatcher``.
///
/// Keys are `ObjectIdentifier`s of store types, never type names, so two modules may
/// each have a `Dispatcher.Repository` without meeting here. Stores are held weakly:
/// the registry never keeps one alive.
///
/// Words: a type's *live instance* is its registered store, if any (looking it up never
/// makes one); to *instantiate* is to get the live instance or make and register one; to
/// *remove* is to unregister.
@usableFromInline
final class StoreRegistry: @unchecked Sendable {
    // Sendable: `mutex` guards `table`. No user code runs while `mutex` is held. `table`
    // skips the runtime's dynamic exclusivity checks.
    private let mutex = Lock()
    @exclusivity(unchecked)
    private var table = StoreTable()

    deinit {
        table.deallocate()
        mutex.deallocate()
    }

    /// The live instance registered under `key` (the `ObjectIdentifier` of its type).
    @usableFromInline
    func liveInstance(of key: ObjectIdentifier) -> AnyObject? {
        mutex.lock()
        defer { mutex.unlock() }
        guard let bucket = table.bucket(of: key) else { return nil }
        return table.store(in: bucket)
    }

    /// The live instance of `type`, if any.
    @inlinable
    func liveInstance<Store: Storable>(of type: Store.Type) -> Store? {
        // The registry keeps a `Store` under `Store`'s key, and only that.
        liveInstance(of: ObjectIdentifier(type)).map { unsafeDowncast($0, to: Store.self) }
    }

    /// The live instance of `type`, or a new one made with `init()` and registered.
    ///
    /// Call only from `Dispatcher.instantiateLocked(_:)`, which holds the dispatcher's
    /// mutex: that makes one store at a time. `init()` runs without the registry locked, so
    /// it may instantiate other stores.
    func instantiate<Store: Storable>(_ type: Store.Type) -> Store {
        let key = ObjectIdentifier(type)
        mutex.lock()
        let bucket = table.bucket(of: key) ?? table.insert(key)
        if let store = table.store(in: bucket) {
            mutex.unlock()
            return unsafeDowncast(store, to: Store.self)
        }
        let creator = table.creator(in: bucket)
        if creator != 0 {
            mutex.unlock()
            // Stores are made with the dispatcher held, so only this thread can be making it.
            preconditionFailure(
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
        table.setStore(store, in: placed)
        mutex.unlock()
        return store
    }

    /// Unregisters `store` if it is the registered instance of its type.
    func remove<Store: Storable>(_ store: Store) {
        // The registered instance is let go of after the unlock: when it is another
        // instance, that release may be its last, and run its deinit.
        var registered: AnyObject?
        mutex.lock()
        if let bucket = table.bucket(of: ObjectIdentifier(Store.self)) {
            registered = table.store(in: bucket)
            if registered === store {
                table.setStore(nil, in: bucket)
            }
        }
        mutex.unlock()
        withExtendedLifetime(registered) {}
    }

    /// Unregisters every store. Stores being made right now are registered when their
    /// `init()` returns.
    func removeAll() {
        mutex.lock()
        for bucket in table.buckets {
            table.setStore(nil, in: bucket)
        }
        mutex.unlock()
    }
}
