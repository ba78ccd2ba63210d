/// The single dispatcher of Flux: a registry of live stores, keyed by type, that routes
/// every dispatched ``DispatchState`` to the live instance of its store.
///
/// You rarely call the dispatcher yourself: actions dispatch with
/// ``Actionable/invoke(_:)`` and stores register with ``Storable/instantiate()``. Nest
/// your dispatch states in an extension of it (``DispatchState`` shows a whole one):
///
/// <!-- not compiled: an outline, the cases left out -->
/// ```swift
/// extension Dispatcher {
///     enum Repository: DispatchState { … }
/// }
/// ```
///
/// ## Threading and reentrancy
///
/// - **Synchronous.** A dispatch runs on the thread that invokes it. When `invoke`
///   returns, the store has reduced the state and every ``ExecuteQueue/current`` observer
///   has run. (An observer still being added on another thread, whose `observe` call is
///   still delivering its first value, gets the change from that thread right after it.)
/// - **Ordered and reentrant.** A dispatch made while one is running on the same thread
///   (from `reduce(with:)`, from an observer or from a dispatch-log subscriber) is queued,
///   and runs after the current one and before the outermost `invoke` returns. Chains of
///   any length use constant stack.
/// - **Thread-safe.** Any thread may dispatch, observe, clean and instantiate at once.
///   Dispatches of one dispatcher run one at a time, in the order they took the
///   dispatcher, so reductions of a store never overlap. A thread that dispatches while
///   another thread's dispatch runs waits for it; so do not make a `reduce(with:)` or a
///   `.current` observer wait for another thread that may dispatch (use
///   ``ExecuteQueue/main`` or ``ExecuteQueue/queue(_:)`` observers for such work).
/// - **Making stores.** A store's `init()` runs holding the dispatcher, like a dispatch:
///   what it dispatches is reduced once it has returned and the store is registered.
/// - **No live store.** A state whose store has no live instance is dropped: nothing
///   crashes, nothing is kept, and the drop is reported to the dispatch log with the phase
///   ``DispatchEvent/Phase-swift.enum/droppedWithoutStore``.
public final class Dispatcher: @unchecked Sendable {
    // Sendable: `mutex` guards `hasLogSubscribers`, `queued` and `logSubscribers`, and is
    // held for the whole of a dispatch, so a thread that holds it is the dispatching thread
    // (`Lock` knows its owner, which is how reentrant calls are recognized). `registry` has
    // its own lock. The mutex-guarded fields skip the runtime's dynamic exclusivity checks,
    // which would cost more than the rest of a dispatch.

    /// The dispatcher that ``Storable/instantiate()`` and ``Actionable/invoke(_:)`` use.
    public static let shared = Dispatcher()

    @usableFromInline
    let registry = StoreRegistry()
    @usableFromInline
    let mutex = Lock()
    /// Whether `logSubscribers` is not empty: the common path checks this one flag.
    @usableFromInline
    @exclusivity(unchecked)
    var hasLogSubscribers = false
    @exclusivity(unchecked)
    private var queued = DispatchQueueBuffer()
    /// Whether `queued` holds anything: the common path checks this one flag.
    @usableFromInline
    @exclusivity(unchecked)
    var hasQueued = false
    @exclusivity(unchecked)
    private var logSubscribers: [DispatchLogSubscriber] = []

    /// Makes a dispatcher with a registry of its own, empty.
    public init() {}

    deinit {
        mutex.deallocate()
    }

    /// Unregisters every store: later dispatches are dropped until stores are instantiated
    /// again, and the next ``Storable/instantiate()`` of each type makes a new instance.
    public func unregisterAll() {
        registry.unregisterAll()
    }

    /// The live instance of `Store`, or a new one. See ``Storable/instantiate()``.
    @inlinable
    func instance<Store: Storable>(of type: Store.Type) -> Store {
        registry.liveInstance(of: type) ?? makeInstance(of: type)
    }

    /// Makes and registers a `Store` (unless another thread just did) holding `mutex`,
    /// like a dispatch: stores are made one at a time and never while another thread
    /// dispatches. So a dispatch whose `reduce` or observer instantiates a store never
    /// waits for an `init()` on another thread, which might itself be waiting to dispatch.
    /// What `init()` dispatches is queued, and runs once the store is registered.
    @usableFromInline
    func makeInstance<Store: Storable>(of type: Store.Type) -> Store {
        if mutex.isHeldByCurrentThread {
            // Inside a dispatch (or a store's init) on this thread.
            return registry.instance(of: type)
        }
        mutex.lock()
        let store = registry.instance(of: type)
        finishDispatching()
        return store
    }

    /// Dispatches `state` to the live instance of its store. See ``Actionable/invoke(_:)``.
    ///
    /// Inlinable, so that the common path runs specialized for the state type in the
    /// caller's module.
    @inlinable
    func dispatch<State: DispatchState>(_ state: State) {
        if mutex.isHeldByCurrentThread {
            // A dispatch is running on this thread: run this one after it.
            enqueue(state)
            return
        }
        mutex.lock()
        deliver(state)
        finishDispatching()
    }

    /// Reduces `state` in its live store and tells the log. Runs with `mutex` held.
    @inlinable
    func deliver<State: DispatchState>(_ state: State) {
        if _slowPath(hasLogSubscribers) {
            deliverLogged(state)
            return
        }
        registry.liveInstance(of: State.RelatedStoreType.self)?.reduce(with: state)
    }

    /// A dispatch made while one runs on this thread (which holds `mutex`): run it after
    /// the current one.
    @usableFromInline
    func enqueue<State: DispatchState>(_ state: State) {
        queued.append { dispatcher in dispatcher.deliver(state) }
        hasQueued = true
    }

    /// Lets other threads dispatch, after running what was queued meanwhile, if anything.
    /// Call with `mutex` held; unlocks.
    @inlinable
    func finishDispatching() {
        if hasQueued {
            finishDispatchingLocked()
        } else {
            mutex.unlock()
        }
    }

    /// Runs the dispatches queued meanwhile, then lets other threads dispatch. Call with
    /// `mutex` held; unlocks.
    @usableFromInline
    func finishDispatchingLocked() {
        while let next = queued.popFirst() {
            next(self)
        }
        hasQueued = false
        mutex.unlock()
    }

    @usableFromInline
    func deliverLogged<State: DispatchState>(_ state: State) {
        let store = registry.liveInstance(of: State.RelatedStoreType.self)
        let subscribers = liveLogSubscribers()
        guard let store else {
            log(DispatchEvent(phase: .droppedWithoutStore, state: state, store: nil), to: subscribers)
            return
        }
        log(DispatchEvent(phase: .willReduce, state: state, store: store), to: subscribers)
        store.reduce(with: state)
        log(DispatchEvent(phase: .didReduce, state: state, store: store), to: subscribers)
    }

    /// The subscribers that are not cleaned; forgets the cleaned ones. Runs with `mutex`
    /// held.
    private func liveLogSubscribers() -> [DispatchLogSubscriber] {
        if logSubscribers.contains(where: { $0.isCleaned }) {
            logSubscribers.removeAll { $0.isCleaned }
            hasLogSubscribers = !logSubscribers.isEmpty
        }
        return logSubscribers
    }

    private func log(_ event: DispatchEvent, to subscribers: [DispatchLogSubscriber]) {
        for subscriber in subscribers {
            // Read at each call: a subscriber cleaned meanwhile (by a handler, say) is not
            // called again.
            if let handler = subscriber.handler {
                handler(event)
            }
        }
    }

    /// Calls `handler` for every dispatch of this dispatcher, until the returned ``Dust``
    /// is cleaned: before and after the store reduces the state, or once when no live
    /// store receives it.
    ///
    /// The handler runs on the dispatching thread, in dispatch order, while the dispatch
    /// runs; it may dispatch (the dispatch is queued) but must not wait for other threads
    /// that dispatch.
    ///
    /// ```swift
    /// Dispatcher.shared
    ///     .observeDispatches { event in
    ///         if event.phase == .droppedWithoutStore { print("dropped:", event.state) }
    ///     }
    ///     .cleaned(by: dustBuster)
    /// ```
    ///
    /// - Parameter handler: Called with each ``DispatchEvent``.
    /// - Returns: A ``Dust`` that ends the subscription.
    public func observeDispatches(_ handler: @escaping @Sendable (DispatchEvent) -> Void) -> Dust {
        let subscriber = DispatchLogSubscriber(handler: handler)
        withMutex {
            logSubscribers.append(subscriber)
            hasLogSubscribers = true
        }
        return subscriber
    }

}

extension Dispatcher {
    /// Runs `body` holding `mutex`: locks it, unless this thread holds it already because
    /// it is dispatching (a log subscriber or observer subscribing or cleaning).
    private func withMutex<Result>(_ body: () -> Result) -> Result {
        if mutex.isHeldByCurrentThread {
            return body()
        }
        return mutex.withLock(body)
    }
}

/// A dispatch-log subscription. Cleaning it lets go of the handler at once; the
/// dispatcher forgets the subscription at its next logged dispatch. (Cleaning never waits
/// for the dispatcher, which is busy while a dispatch runs user code.)
final class DispatchLogSubscriber: Dust, @unchecked Sendable {
    // Sendable: `storedHandler` is guarded by the striped mutex for this object.
    private var storedHandler: (@Sendable (DispatchEvent) -> Void)?

    init(handler: @escaping @Sendable (DispatchEvent) -> Void) {
        storedHandler = handler
        super.init()
    }

    /// The handler, or `nil` once cleaned.
    var handler: (@Sendable (DispatchEvent) -> Void)? {
        StripedLocks.mutex(for: self).withLock { storedHandler }
    }

    override func cleanUp() {
        let handler = StripedLocks.mutex(for: self).withLock {
            defer { storedHandler = nil }
            return storedHandler
        }
        // Released outside the lock: its captures may run user deinit code.
        _ = handler
    }
}
