/// One entry of the dispatch log: a dispatched state, the store it is for, and where the
/// dispatch is. See ``Dispatcher/observeDispatches(_:)``.
///
/// ```swift
/// let logging = Dispatcher.shared.observeDispatches { event in
///     print(event.phase, event.storeType, event.state)
/// }
/// ```
public struct DispatchEvent {
    /// Where a dispatch is when the log hears of it.
    public enum Phase: Sendable, Hashable {
        /// The live store is about to reduce the state.
        case willReduce
        /// The live store has reduced the state and its `.current` observers have run.
        case didReduce
        /// No instance of the store was alive: the state was dropped.
        case droppedWithoutStore
    }

    /// Where the dispatch is.
    public let phase: Phase

    /// The dispatched state.
    ///
    /// Cast it to your state type to read its cases:
    ///
    /// ```swift
    /// if case .addRepositories(let added)? = event.state as? Dispatcher.Repository {
    ///     print("\(added.count) repositories added")
    /// }
    /// ```
    public let state: any DispatchState

    /// The store type the state is for (its `RelatedStoreType`).
    public let storeType: any Storable.Type

    /// The live store that reduces the state; `nil` exactly when ``phase`` is
    /// ``Phase/droppedWithoutStore``. Ask the phase whether the state was dropped.
    public let store: (any Storable)?

    /// Whether a live store received the state.
    ///
    /// Deprecated: a dispatch that reached no store is said one way, its ``phase``
    /// (``Phase/droppedWithoutStore``), which a `switch` over the phase cannot miss.
    @available(*, deprecated, message: "compare phase with .droppedWithoutStore: `event.phase != .droppedWithoutStore`")
    public var wasReceived: Bool { store != nil }

    /// The event of `state` reaching `store`: `phase` is `.willReduce` or `.didReduce`.
    @usableFromInline
    init<State: DispatchState>(_ phase: Phase, _ state: State, in store: State.RelatedStoreType) {
        assert(phase != .droppedWithoutStore, "DispatchEvent: a state dropped without a store has no store")
        self.phase = phase
        self.state = state
        self.storeType = State.RelatedStoreType.self
        self.store = store
    }

    /// The event of `state` dropped because its store had no live instance. (The phase and
    /// the missing store say the same thing; these two initializers keep them in step.)
    @usableFromInline
    init<State: DispatchState>(droppedWithoutStore state: State) {
        self.phase = .droppedWithoutStore
        self.state = state
        self.storeType = State.RelatedStoreType.self
        self.store = nil
    }
}

// A dispatch event holds the dispatched state, which needs not be Sendable: the log hands
// it to subscribers on the dispatching thread.
@available(*, unavailable)
extension DispatchEvent: Sendable {}
