/// The single dispatcher of Flux: a registry of live stores, keyed by type, that routes
/// every dispatched ``DispatchState`` to the live instance of its store.
///
/// You rarely call the dispatcher yourself: actions dispatch with
/// ``Actionable/invoke(_:)`` and stores register with ``Storable/instantiate()``. Nest
/// your dispatch states in an extension of it:
///
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
///   has run.
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
/// - **No live store.** A state whose store has no live instance is dropped: nothing
///   crashes, nothing is kept, and the drop is reported to the dispatch log with the phase
///   ``DispatchEvent/Phase-swift.enum/droppedWithoutStore``.
public final class Dispatcher: @unchecked Sendable {
    // Sendable: `mutex` (recursive, so the dispatching thread can re-enter to queue work)
    // guards `isDispatching`, `queued` and `logSubscribers`. `registry` has its own lock.

    /// The dispatcher that ``Storable/instantiate()`` and ``Actionable/invoke(_:)`` use.
    public static let shared = Dispatcher()

    let registry = StoreRegistry()
    private let mutex = PThreadMutex(recursive: true)
    private var isDispatching = false
    private var queued = DispatchQueueBuffer()
    private var logSubscribers: [DispatchLogSubscriber] = []

    /// Makes a dispatcher with a registry of its own, empty.
    ///
    /// ```swift
    /// let dispatcher = Dispatcher()
    /// ```
    public init() {}

    deinit {
        mutex.deallocate()
    }

    /// Unregisters every store: later dispatches are dropped until stores are instantiated
    /// again, and the next ``Storable/instantiate()`` of each type makes a new instance.
    ///
    /// ```swift
    /// Dispatcher.shared.unregisterAll()
    /// ```
    public func unregisterAll() {
        registry.unregisterAll()
    }

    /// Dispatches `state` to the live instance of its store. See ``Actionable/invoke(_:)``.
    @usableFromInline
    func dispatch<State: DispatchState>(_ state: State) {
        mutex.lock()
        if isDispatching {
            // Reentrant call on the dispatching thread: run it after the current one.
            queued.append { dispatcher in dispatcher.deliver(state) }
            mutex.unlock()
            return
        }
        isDispatching = true
        deliver(state)
        while let next = queued.popFirst() {
            next(self)
        }
        isDispatching = false
        mutex.unlock()
    }

    /// Reduces `state` in its live store and tells the log. Runs with `mutex` held.
    @inline(__always)
    private func deliver<State: DispatchState>(_ state: State) {
        let store = registry.liveInstance(of: State.RelatedStoreType.self)
        if logSubscribers.isEmpty {
            store?.reduce(with: state)
            return
        }
        let subscribers = logSubscribers
        guard let store else {
            log(DispatchEvent(phase: .droppedWithoutStore, state: state, store: nil), to: subscribers)
            return
        }
        log(DispatchEvent(phase: .willReduce, state: state, store: store), to: subscribers)
        store.reduce(with: state)
        log(DispatchEvent(phase: .didReduce, state: state, store: store), to: subscribers)
    }

    private func log(_ event: DispatchEvent, to subscribers: [DispatchLogSubscriber]) {
        for subscriber in subscribers {
            // A local copy: the handler may unsubscribe itself, which lets go of it.
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
    public func observeDispatches(_ handler: @escaping @Sendable (DispatchEvent) -> Void) -> Dust {
        let subscriber = DispatchLogSubscriber(dispatcher: self, handler: handler)
        mutex.withLock { logSubscribers.append(subscriber) }
        return subscriber
    }

    func removeLogSubscriber(_ subscriber: DispatchLogSubscriber) {
        let handler = mutex.withLock {
            logSubscribers.removeAll { $0 === subscriber }
            defer { subscriber.handler = nil }
            return subscriber.handler
        }
        // Released outside the lock: its captures may run user deinit code.
        _ = handler
    }
}

/// A dispatch-log subscription; cleaning it unsubscribes.
final class DispatchLogSubscriber: Dust, @unchecked Sendable {
    // Sendable: `handler` is read and cleared with the dispatcher's mutex held.
    var handler: (@Sendable (DispatchEvent) -> Void)?
    private weak var dispatcher: Dispatcher?

    init(dispatcher: Dispatcher, handler: @escaping @Sendable (DispatchEvent) -> Void) {
        self.dispatcher = dispatcher
        self.handler = handler
        super.init()
    }

    override func cleanUp() {
        dispatcher?.removeLogSubscriber(self)
    }
}
