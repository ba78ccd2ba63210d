/// The type-keyed, weak registry of live stores behind ``Dispatcher``.
///
/// Keys are `ObjectIdentifier`s of store types, never type names, so two modules may
/// each have a `Dispatcher.Repository` without meeting here. Stores are held weakly:
/// the registry never keeps one alive.
final class StoreRegistry: @unchecked Sendable {
    // Sendable: `mutex` guards `slots` and every `Slot`'s fields; `creationFinished` is
    // waited on with `mutex` held. No user code runs while `mutex` is held.
    private let mutex = PThreadMutex()
    private let creationFinished = PThreadCondition()
    private var slots: [ObjectIdentifier: Slot] = [:]

    private final class Slot {
        weak var store: AnyObject?
        /// The thread running this store type's `init()` from `instance(of:)`, or 0.
        var creator: UInt = 0
    }

    deinit {
        creationFinished.deallocate()
        mutex.deallocate()
    }

    /// The live instance of `type`, if any.
    @inline(__always)
    func liveInstance<Store: Storable>(of type: Store.Type) -> Store? {
        mutex.lock()
        let store = slots[ObjectIdentifier(type)]?.store
        mutex.unlock()
        // The slot for `Store` only ever holds a `Store`.
        return store.map { unsafeDowncast($0, to: Store.self) }
    }

    /// The live instance of `type`, or a new one made with `init()` and registered.
    ///
    /// One `init()` runs per store type at a time: threads that ask for a store another
    /// thread is making wait for it and get the same instance. `init()` runs without the
    /// registry locked, so it may instantiate other stores.
    func instance<Store: Storable>(of type: Store.Type) -> Store {
        let key = ObjectIdentifier(type)
        let me = ThreadID.current
        mutex.lock()
        let slot: Slot
        while true {
            guard let existing = slots[key] else {
                slot = Slot()
                slots[key] = slot
                break
            }
            if let store = existing.store {
                mutex.unlock()
                return unsafeDowncast(store, to: Store.self)
            }
            if existing.creator == 0 {
                slot = existing
                break
            }
            if existing.creator == me {
                mutex.unlock()
                preconditionFailure(
                    "\(Store.self).init() led to \(Store.self).instantiate() on the same thread. "
                        + "A store cannot instantiate itself while it is being made: "
                        + "remove the call, or move it out of init().")
            }
            creationFinished.wait(mutex)
        }
        slot.creator = me
        mutex.unlock()

        let store = Store()

        mutex.lock()
        slot.creator = 0
        if slots[key] !== slot {
            // `unregisterAll()` ran while `init()` did: register the new store again.
            slots[key] = slot
        }
        slot.store = store
        creationFinished.broadcast()
        mutex.unlock()
        return store
    }

    /// Forgets `store` if it is the registered instance of its type.
    func unregister<Store: Storable>(_ store: Store) {
        let key = ObjectIdentifier(Store.self)
        mutex.lock()
        if let slot = slots[key], slot.store === store {
            slot.store = nil
            if slot.creator == 0 {
                slots[key] = nil
            }
        }
        mutex.unlock()
    }

    /// Forgets every registered store. Stores being made right now are registered when
    /// their `init()` returns.
    func unregisterAll() {
        mutex.lock()
        slots = slots.filter { $0.value.creator != 0 }
        for slot in slots.values {
            slot.store = nil
        }
        mutex.unlock()
    }

    /// The number of live stores, for tests and diagnostics.
    var liveCount: Int {
        mutex.withLock { slots.values.count(where: { $0.store != nil }) }
    }
}
