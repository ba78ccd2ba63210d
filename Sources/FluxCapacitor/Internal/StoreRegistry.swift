/// The type-keyed, weak registry of live stores behind ``Dispatcher``.
///
/// Keys are `ObjectIdentifier`s of store types, never type names, so two modules may
/// each have a `Dispatcher.Repository` without meeting here. Stores are held weakly:
/// the registry never keeps one alive.
@usableFromInline
final class StoreRegistry: @unchecked Sendable {
    // Sendable: `mutex` guards `table`. No user code runs while `mutex` is held. `table`
    // skips the runtime's dynamic exclusivity checks.
    private let mutex = Lock()
    private let creationFinished = CreationGate()
    @exclusivity(unchecked)
    private var table = StoreTable()

    deinit {
        table.deallocate()
        mutex.deallocate()
    }

    /// The live instance registered under `key` (the `ObjectIdentifier` of its type).
    @usableFromInline
    func liveObject(of key: ObjectIdentifier) -> AnyObject? {
        mutex.lock()
        defer { mutex.unlock() }
        guard let bucket = table.bucket(of: key) else { return nil }
        return table.store(in: bucket)
    }

    /// The live instance of `type`, if any.
    @inline(__always)
    func liveInstance<Store: Storable>(of type: Store.Type) -> Store? {
        // The registry keeps a `Store` under `Store`'s key, and only that.
        liveObject(of: ObjectIdentifier(type)).map { unsafeDowncast($0, to: Store.self) }
    }

    /// The live instance of `type`, or a new one made with `init()` and registered.
    ///
    /// One `init()` runs per store type at a time: threads that ask for a store another
    /// thread is making wait for it and get the same instance. `init()` runs without the
    /// registry locked, so it may instantiate other stores.
    @usableFromInline
    func instance<Store: Storable>(of type: Store.Type) -> Store {
        let key = ObjectIdentifier(type)
        mutex.lock()
        if let bucket = table.bucket(of: key), let store = table.store(in: bucket) {
            mutex.unlock()
            return unsafeDowncast(store, to: Store.self)
        }
        return makeInstanceLocked(of: type)
    }

    /// The slow path of `instance(of:)`: wait for another thread making the store, or make
    /// it. Call with `mutex` held; unlocks.
    private func makeInstanceLocked<Store: Storable>(of type: Store.Type) -> Store {
        let key = ObjectIdentifier(type)
        let me = ThreadID.current
        while true {
            let bucket = table.bucket(of: key) ?? table.insert(key)
            if let store = table.store(in: bucket) {
                mutex.unlock()
                return unsafeDowncast(store, to: Store.self)
            }
            let creator = table.creator(in: bucket)
            if creator == 0 {
                table.setCreator(me, in: bucket)
                break
            }
            if creator == me {
                mutex.unlock()
                preconditionFailure(
                    "\(Store.self).init() led to \(Store.self).instantiate() on the same thread. "
                        + "A store cannot instantiate itself while it is being made: "
                        + "remove the call, or move it out of init().")
            }
            let generation = creationFinished.currentGeneration
            mutex.unlock()
            creationFinished.wait(whileGenerationIs: generation)
            mutex.lock()
        }
        mutex.unlock()

        let store = Store()

        mutex.lock()
        // Buckets move when the table grows (another type may have been added meanwhile).
        let bucket = table.bucket(of: key)!
        table.setCreator(0, in: bucket)
        table.setStore(store, in: bucket)
        mutex.unlock()
        creationFinished.open()
        return store
    }

    /// Forgets `store` if it is the registered instance of its type.
    func unregister<Store: Storable>(_ store: Store) {
        mutex.lock()
        if let bucket = table.bucket(of: ObjectIdentifier(Store.self)), table.store(in: bucket) === store {
            table.setStore(nil, in: bucket)
        }
        mutex.unlock()
    }

    /// Forgets every registered store. Stores being made right now are registered when
    /// their `init()` returns.
    func unregisterAll() {
        mutex.lock()
        for bucket in table.buckets {
            table.setStore(nil, in: bucket)
        }
        mutex.unlock()
    }

    /// The number of live stores, for tests and diagnostics.
    var liveCount: Int {
        mutex.withLock { table.buckets.count(where: { table.store(in: $0) != nil }) }
    }
}
