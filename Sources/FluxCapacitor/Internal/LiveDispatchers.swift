/// The mutexes of the dispatchers alive, so that a thread can ask whether it holds any
/// (`Dispatcher.isDispatchingOnThisThread`). A dispatch pays nothing for it: a dispatcher
/// is added when it is made and removed when it goes, and only the question walks the
/// table. (A count of the dispatchers each thread holds, kept in a thread-local word, would
/// answer in O(1) but cost every dispatch its increment and decrement.)
enum LiveDispatchers {
    // Unsafe: never changed after it is made, and a mutex is made to be shared.
    nonisolated(unsafe) private static let lock = Lock.make(.liveDispatchers)
    // `lock` guards `mutexes`: each live dispatcher's mutex, by the mutex's identity.
    nonisolated(unsafe) private static var mutexes: [ObjectIdentifier: Lock] = [:]

    static func add(_ mutex: Lock) {
        lock.withLock { mutexes[ObjectIdentifier(mutex)] = mutex }
    }

    static func remove(_ mutex: Lock) {
        let removed = lock.withLock { mutexes.removeValue(forKey: ObjectIdentifier(mutex)) }
        // Let go of after unlocking, as everywhere.
        withExtendedLifetime(removed) {}
    }

    /// Whether the calling thread holds the mutex of a live dispatcher. Never blocks for
    /// long: the lock is held for one look at each mutex's owner.
    static var isAnyHeldByCurrentThread: Bool {
        lock.withLock { mutexes.values.contains { $0.isHeldByCurrentThread } }
    }
}

extension Dispatcher {
    /// Whether the calling thread holds a dispatcher's mutex: it is running a dispatch (a
    /// `reduce(with:)`, a `.current` observer, a dispatch-log handler, a combined value's
    /// recomputation) or a store's `init()`, or a deinit that one of these let go of. Code
    /// that would wait for work that may dispatch (a storage's `report(_:)`, a recorder's
    /// `onError`) must not wait then: that work may be waiting for this very thread.
    ///
    /// For FluxCapacitorPersistence. It walks the live dispatchers under a lock (a few
    /// loads each); a dispatch pays nothing for it.
    package static var isDispatchingOnThisThread: Bool {
        LiveDispatchers.isAnyHeldByCurrentThread
    }
}
