public import CFluxCapacitorShims

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
///   still delivering its first value, gets the change from that thread right after it.
///   A value the reduce sets while another thread, outside any dispatch, is delivering a
///   change of it is handed to that thread, not waited for: see
///   <doc:ThreadingAndReentrancy>.)
/// - **Ordered and reentrant.** A dispatch made while one is running on the same thread
///   (from `reduce(with:)`, from an observer or from a dispatch-log subscriber) is queued,
///   and runs after the current one and before the outermost `invoke` returns. Chains of
///   any length use constant stack.
/// - **Thread-safe.** Any thread may dispatch, observe, clean and instantiate at once.
///   Dispatches of one dispatcher run one at a time, in the order they took the
///   dispatcher, so reductions of a store never overlap. A thread that dispatches while
///   another thread's dispatch runs waits for it, and so does a set, outside any
///   dispatch, of a source of a value combined in this dispatcher
///   (``PrimitiveValue/init(combining:transform:)``). So do not make a `reduce(with:)` or
///   a `.current` observer wait for another thread that may dispatch or set such a source
///   (use ``ExecuteQueue/main`` or ``ExecuteQueue/queue(_:)`` observers for such work).
/// - **Making stores.** A store's `init()` runs holding the dispatcher, like a dispatch:
///   what it dispatches is reduced once it has returned and the store is registered.
/// - **No live store.** A state whose store has no live instance is dropped: nothing
///   crashes, nothing is kept, and the drop is reported to the dispatch log with the phase
///   ``DispatchEvent/Phase-swift.enum/droppedWithoutStore``.
public final class Dispatcher: @unchecked Sendable {
    // Sendable: `mutex` guards `dispatching` and `logSubscribers`, and is held for the whole
    // of a dispatch, so a thread that holds it is the dispatching thread (`Lock` knows its
    // owner, which is how reentrant calls are recognized). `registry` has its own lock.
    //
    // Words (see Internal/README.md): to *reduce* is to have the live store reduce a state;
    // a *live instance* is the registered store of a type, if any (looking it up never makes
    // one); to *instantiate* is to get the live instance or make and register one. A method
    // named `…Locked` is called with `mutex` held and returns with it held; one named
    // `…AndUnlock` is called with it held and unlocks it.

    /// The dispatcher that ``Storable/instantiate()`` and ``Actionable/invoke(_:)`` use.
    public static let shared = Dispatcher()

    @usableFromInline
    let registry: StoreRegistry
    @usableFromInline
    let mutex: Lock
    /// What a dispatch looks at besides its store: whether anything logs, and what waits
    /// for the dispatching thread (one field, so that a dispatch's accesses are one).
    // Unchecked: `mutex` serializes every access; checked, the row `dispatch` of
    // `Benchmarks/instructions` is over a quarter dearer, over its budget.
    @usableFromInline
    @exclusivity(unchecked)
    var dispatching = Dispatching()
    // Unchecked: `mutex` serializes every access; checked, the rows `dispatchLogged` and
    // `dispatchRecorderOn` of `Benchmarks/instructions` are 8% and 13% dearer.
    @usableFromInline
    @exclusivity(unchecked)
    var logSubscribers: [DispatchLogSubscriber] = []
    /// The recorders' tapes (a narrower hook than the log, see `DispatchTape`), guarded by
    /// `mutex` too.
    // Unchecked: `mutex` serializes every access; checked, the row `dispatchRecorderOn` of
    // `Benchmarks/instructions` is 13% dearer.
    @usableFromInline
    @exclusivity(unchecked)
    var tapes: [DispatchTape] = [] {
        didSet { firstTape = tapes.first.map(Unmanaged.passUnretained) }
    }
    /// The first of `tapes`, unretained (`tapes` holds it): a recorded dispatch reaches it
    /// with no retain or release of the array or the tape (with them, the row
    /// `dispatchRecorderOn` of `Benchmarks/instructions` is a fifth dearer).
    @usableFromInline
    @exclusivity(unchecked)
    var firstTape: Unmanaged<DispatchTape>?

    /// Makes a dispatcher with a registry of its own, empty.
    public init() {
        let mutex = Lock.make(.dispatcher)
        self.mutex = mutex
        // A dispatch reads the registry's table with this mutex held and no lock of the
        // registry's (see StoreRegistry).
        registry = StoreRegistry(dispatcherMutex: mutex)
    }

    /// Unregisters every store: later dispatches are dropped until stores are instantiated
    /// again, and the next ``Storable/instantiate()`` of each type makes a new instance.
    public func unregisterAll() {
        registry.removeAll()
    }

    /// The live instance of `Store`, or a new one. See ``Storable/instantiate()``.
    @inlinable
    func instantiate<Store: Storable>(_ type: Store.Type) -> Store {
        registry.liveInstance(of: type) ?? instantiateHoldingMutex(type)
    }

    /// Makes and registers a `Store` (unless another thread just did) holding `mutex`,
    /// like a dispatch: stores are made one at a time and never while another thread
    /// dispatches. So a dispatch whose `reduce` or observer instantiates a store never
    /// waits for an `init()` on another thread, which might itself be waiting to dispatch.
    /// What `init()` dispatches is queued, and runs once the store is registered.
    @usableFromInline
    func instantiateHoldingMutex<Store: Storable>(_ type: Store.Type) -> Store {
        if mutex.isHeldByCurrentThread {
            // Inside a dispatch (or a store's init) on this thread.
            return instantiateLocked(type)
        }
        lockForDispatch()
        let store = instantiateLocked(type)
        finishDispatchingAndUnlock()
        return store
    }

    /// The live instance of `Store`, or a new one made and registered. Call with `mutex`
    /// held; returns with it held.
    private func instantiateLocked<Store: Storable>(_ type: Store.Type) -> Store {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.instantiateLocked: mutex not held")
        guard _slowPath(!tapes.isEmpty) else {
            return registry.instantiate(type)
        }
        // A recorder hears of each store made (it writes down what the store started from).
        if let live = registry.liveInstanceDispatching(of: type) {
            return live
        }
        let store = registry.instantiate(type)
        for tape in tapes {
            tape.didMake(store)
        }
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
            enqueueLocked(state)
            return
        }
        lockForDispatch()
        reduceLocked(state)
        finishDispatchingAndUnlock()
    }

    /// Dispatches `state` unless `task` is cancelled, checked with `mutex` held: when it is
    /// reduced, not when it is asked for. A dispatch queued behind the one running on this
    /// thread is checked when its turn comes. See ``Actionable/invoke(_:unlessCancelled:)``.
    /// (Not a hot path: separate from `dispatch(_:)`, which it leaves as it was.)
    func dispatch<State: DispatchState>(_ state: State, unlessCancelled task: InFlightTask) {
        if mutex.isHeldByCurrentThread {
            dispatching.queued.append { dispatcher in
                dispatcher.reduceLocked(state, unlessCancelled: task)
            }
            return
        }
        lockForDispatch()
        reduceLocked(state, unlessCancelled: task)
        finishDispatchingAndUnlock()
    }

    /// Reduces `state` unless `task` is cancelled; while it is reduced, a cancellation of
    /// `task` on another thread waits for it (see ``InFlightTask``). Call with `mutex` held.
    private func reduceLocked<State: DispatchState>(_ state: State, unlessCancelled task: InFlightTask) {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.reduceLocked(_:unlessCancelled:): mutex not held")
        if task.beginDispatch() {
            reduceLocked(state)
            task.endDispatch()
        }
    }

    /// Reduces `state` in its live store and tells the log. Call with `mutex` held;
    /// returns with it held.
    @inlinable
    func reduceLocked<State: DispatchState>(_ state: State) {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.reduceLocked: mutex not held")
        if _slowPath(dispatching.hasLogSubscribers) {
            reduceLoggedLocked(state)
            return
        }
        registry.liveInstanceDispatching(of: State.RelatedStoreType.self)?.reduce(with: state)
    }

    /// Queues a dispatch made while one runs on this thread, to run after the current one.
    /// Call with `mutex` held; returns with it held.
    @usableFromInline
    func enqueueLocked<State: DispatchState>(_ state: State) {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.enqueueLocked: mutex not held")
        dispatching.queued.append { dispatcher in dispatcher.reduceLocked(state) }
    }

    /// Lets other threads dispatch, after running what was queued meanwhile, if anything.
    /// Call with `mutex` held; unlocks it.
    @inlinable
    func finishDispatchingAndUnlock() {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.finishDispatchingAndUnlock: mutex not held")
        if dispatching.nothingWaits {
            unlockAfterDispatch()
        } else {
            runWaitingAndUnlock()
        }
    }

    /// Runs what waits (recomputations first, then the next queued dispatch, until none is
    /// left), then lets other threads dispatch. Call with `mutex` held; unlocks it.
    @usableFromInline
    func runWaitingAndUnlock() {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.runWaitingAndUnlock: mutex not held")
        while true {
            // What the reduce that just ended asked to recompute goes first, lowest level
            // first; a recomputation may ask for more, of higher levels.
            while let combination = dispatching.nextRecomputation() {
                combination.recompute()
            }
            guard let next = dispatching.queued.popFirst() else {
                break
            }
            next(self)
        }
        unlockAfterDispatch()
    }

    /// Recomputes `combination` once the reduce running on this thread has ended (with its
    /// `.current` observers), before the next queued dispatch, still holding `mutex`: no
    /// other dispatch of this dispatcher is halfway then. Call with `mutex` held; returns
    /// with it held.
    func recomputeAfterThisReduceLocked(_ combination: Combination) {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.recomputeAfterThisReduceLocked: mutex not held")
        dispatching.addRecomputation(combination)
    }

    /// Runs `body` inside this thread's dispatch of this dispatcher, or else as a dispatch
    /// of its own: holding `mutex`, and then running what it led to (recomputations it
    /// asked for, dispatches queued) before unlocking.
    func asPartOfADispatch(_ body: () -> Void) {
        if mutex.isHeldByCurrentThread {
            body()
            return
        }
        lockForDispatch()
        body()
        finishDispatchingAndUnlock()
    }

    /// Records `state` on the tapes, then reduces it in its live store between two log events,
    /// or logs that it was dropped. Call with `mutex` held; returns with it held.
    ///
    /// Inlinable, so that it runs specialized for the state type in the caller's module:
    /// unspecialized, the store's look-up and the events make the row `dispatchLogged` of
    /// `Benchmarks/instructions` two thirds dearer.
    @inlinable
    func reduceLoggedLocked<State: DispatchState>(_ state: State) {
        assert(mutex.isHeldByCurrentThread, "Dispatcher.reduceLoggedLocked: mutex not held")
        let store = registry.liveInstanceDispatching(of: State.RelatedStoreType.self)
        if let firstTape {
            firstTape._withUnsafeGuaranteedRef { $0.record(state, reachesStore: store != nil) }
            for tape in tapes.dropFirst() {
                tape.record(state, reachesStore: store != nil)
            }
        }
        guard !logSubscribers.isEmpty else {
            store?.reduce(with: state)
            return
        }
        // A copy (one retain): a handler may subscribe another, which hears the next dispatch.
        let subscribers = logSubscribers
        guard let store else {
            log(DispatchEvent(droppedWithoutStore: state), to: subscribers)
            return
        }
        log(DispatchEvent(.willReduce, state, in: store), to: subscribers)
        store.reduce(with: state)
        log(DispatchEvent(.didReduce, state, in: store), to: subscribers)
    }

    /// Calls each subscriber's handler with `event`; lets go of the subscribers found
    /// cleaned. Call with `mutex` held; returns with it held.
    @usableFromInline
    func log(_ event: DispatchEvent, to subscribers: [DispatchLogSubscriber]) {
        var foundCleaned = false
        for subscriber in subscribers {
            // Read at each call: a subscriber cleaned meanwhile (by a handler, say) is not
            // called again.
            if let handler = subscriber.handler {
                handler(event)
            } else {
                foundCleaned = true
            }
        }
        if foundCleaned {
            logSubscribers.removeAll { $0.isCleaned }
            dispatching.hasLogSubscribers = !logSubscribers.isEmpty || !tapes.isEmpty
        }
    }

    /// Calls `handler` for every dispatch of this dispatcher, until the returned ``Dust``
    /// is cleaned: before and after the store reduces the state, or once when no live
    /// store receives it. A dispatch of cancelled work
    /// (``Actionable/invoke(_:unlessCancelled:)`` after its ``InFlightTask`` was
    /// cancelled) is not a dispatch: it reaches no store and no handler.
    ///
    /// The handler runs on the dispatching thread, in dispatch order, while the dispatch
    /// runs; it may dispatch (the dispatch is queued) but must not wait for other threads
    /// that dispatch.
    ///
    /// ```swift
    /// Dispatcher.shared
    ///     .observeDispatches { event in
    ///         if event.phase == .droppedWithoutStore {
    ///             print("dropped:", event.state)
    ///         }
    ///     }
    ///     .cleaned(by: dustBuster)
    /// ```
    ///
    /// The other ways of watching dispatches are each made for one purpose; reach for
    /// them first. In a test, `DispatchTester` asserts what was dispatched and
    /// `DispatchRecorder` collects it (FluxCapacitorTesting); in an app,
    /// `DispatchFileRecorder` writes a session to a file that replays
    /// (FluxCapacitorPersistence).
    ///
    /// - Parameter handler: Called with each ``DispatchEvent``.
    /// - Returns: A ``Dust`` that ends the subscription.
    @preconcurrency
    public func observeDispatches(_ handler: @escaping @Sendable (DispatchEvent) -> Void) -> Dust {
        let subscriber = DispatchLogSubscriber(handler: handler)
        withMutex {
            logSubscribers.append(subscriber)
            dispatching.hasLogSubscribers = true
        }
        return subscriber
    }

}

extension Dispatcher {
    /// Runs `body` holding `mutex`, so that no dispatch is halfway through a reduce
    /// meanwhile: locks it, unless this thread holds it already because it is dispatching
    /// (a log subscriber or observer subscribing, a combined value made in a reduce).
    @usableFromInline
    func withMutex<Result>(_ body: () -> Result) -> Result {
        if mutex.isHeldByCurrentThread {
            return body()
        }
        lockForDispatch()
        defer { unlockAfterDispatch() }
        return body()
    }

    /// Takes `mutex` for a dispatch (or anything else that runs holding it), and records
    /// on this thread that it holds a dispatcher's mutex: code running on a thread that
    /// holds one is synchronous, which is what lets an in-place change of a value hold it
    /// for the change (`Variable.value`). Two thread-local writes per dispatch
    /// (`Benchmarks/instructions --filter dispatch`).
    @inlinable
    func lockForDispatch() {
        mutex.lock()
        cflux_enter_dispatch()
    }

    /// Lets go of `mutex` taken by `lockForDispatch()`.
    @inlinable
    func unlockAfterDispatch() {
        cflux_leave_dispatch()
        mutex.unlock()
    }

    /// How a failure names this dispatcher: `Dispatcher.shared`, or a dispatcher of its own
    /// by its address.
    var nameForMessages: String {
        self === Dispatcher.shared
            ? "Dispatcher.shared"
            : "the Dispatcher at \(ObjectIdentifier(self).debugDescription.dropFirst(17).dropLast())"
    }

    /// Whether the calling thread holds a dispatcher's mutex: it is running a dispatch (a
    /// `reduce(with:)`, a `.current` observer, a dispatch-log handler, a combined value's
    /// recomputation) or a store's `init()`, or a deinit that one of these let go of. Code
    /// that would wait for work that may dispatch (a storage's `report(_:)`, a recorder's
    /// `onError`) must not wait then: that work may be waiting for this very thread.
    ///
    /// For FluxCapacitorPersistence: one thread-local load.
    package static var isDispatchingOnThisThread: Bool {
        cflux_is_dispatching()
    }
}

extension Dispatcher {
    /// What a dispatch looks at besides its store, guarded by the dispatcher's mutex:
    /// whether anything logs, and what waits for the thread that holds the mutex
    /// (dispatches queued while one runs, and combined values to recompute after the
    /// current reduce).
    @usableFromInline
    struct Dispatching {
        /// Whether `logSubscribers` or `tapes` is not empty: the common path checks this one
        /// flag.
        @usableFromInline
        var hasLogSubscribers = false
        /// The dispatches made while one runs on the dispatching thread, to run after it.
        @usableFromInline
        var queued = FIFO<(Dispatcher) -> Void>()
        /// The combined value to recompute first, then the others, lowest level first
        /// (equal levels in the order they asked). The first apart, so that the usual reduce,
        /// which changes one combined value, appends to no array (one array for all made the
        /// row `combiningTwoSourcesDispatch` of `Benchmarks/instructions` 15% dearer,
        /// over its budget).
        @usableFromInline
        private(set) var firstRecomputation: Combination?
        /// The others, a binary heap by level, then by the order they asked in: linear in
        /// their number, where a sorted array (a search for its place and a shift at each
        /// insertion and removal) made a dispatch over many combined values quadratic (the
        /// rows `combiningFanOut2000` and `combiningFanOut20000` of `Benchmarks/instructions`
        /// check that it is linear).
        private var laterRecomputations: [(level: Int, order: UInt64, combination: Combination)] = []
        /// The order `firstRecomputation` asked in, and the next one's.
        private var firstOrder: UInt64 = 0
        private var nextOrder: UInt64 = 0

        @usableFromInline
        init() {}

        /// Whether nothing waits: the one check the common path makes at its end.
        @inlinable
        var nothingWaits: Bool {
            queued.isEmpty && firstRecomputation == nil
        }

        /// Asks for `combination` once after the current reduce (the caller checks that it
        /// has not asked already: `Combination`'s `isPending`).
        mutating func addRecomputation(_ combination: Combination) {
            let order = nextOrder
            nextOrder &+= 1
            guard let first = firstRecomputation else {
                firstRecomputation = combination
                firstOrder = order
                return
            }
            if combination.level < first.level {
                push((first.level, firstOrder, first))
                firstRecomputation = combination
                firstOrder = order
            } else {
                push((combination.level, order, combination))
            }
        }

        mutating func nextRecomputation() -> Combination? {
            let first = firstRecomputation
            if laterRecomputations.isEmpty {
                // The usual reduce: one combined value to recompute.
                firstRecomputation = nil
            } else if let next = popLowest() {
                firstRecomputation = next.combination
                firstOrder = next.order
            }
            return first
        }

        private mutating func push(_ entry: (level: Int, order: UInt64, combination: Combination)) {
            laterRecomputations.append(entry)
            var child = laterRecomputations.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.comesFirst(laterRecomputations[child], laterRecomputations[parent]) else { break }
                laterRecomputations.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func popLowest() -> (order: UInt64, combination: Combination)? {
            guard !laterRecomputations.isEmpty else { return nil }
            laterRecomputations.swapAt(0, laterRecomputations.count - 1)
            let removed = laterRecomputations.removeLast()
            let lowest = (removed.order, removed.combination)
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var first = parent
                if left < laterRecomputations.count,
                    Self.comesFirst(laterRecomputations[left], laterRecomputations[first])
                {
                    first = left
                }
                if right < laterRecomputations.count,
                    Self.comesFirst(laterRecomputations[right], laterRecomputations[first])
                {
                    first = right
                }
                guard first != parent else { break }
                laterRecomputations.swapAt(parent, first)
                parent = first
            }
            return lowest
        }

        private static func comesFirst(
            _ one: (level: Int, order: UInt64, combination: Combination),
            _ other: (level: Int, order: UInt64, combination: Combination)
        ) -> Bool {
            (one.level, one.order) < (other.level, other.order)
        }
    }
}

/// Guarded by the dispatcher's mutex; it never crosses a thread on its own.
@available(*, unavailable)
extension Dispatcher.Dispatching: Sendable {}
