/// One entry of the dispatch log: a dispatched state, the store it is for, and where the
/// dispatch is. See ``Dispatcher/observeDispatches(_:)``.
///
/// ```swift
/// Dispatcher.shared.observeDispatches { event in
///     print(event.phase, event.storeType, event.state)
/// }
/// ```
public struct DispatchEvent {
    /// Where a dispatch is when the log hears of it.
    ///
    /// ```swift
    /// Dispatcher.shared.observeDispatches { event in
    ///     if event.phase == .droppedWithoutStore { print("no \(event.storeType) for \(event.state)") }
    /// }
    /// ```
    public enum Phase: Sendable, Hashable {
        /// The live store is about to reduce the state.
        case willReduce
        /// The live store has reduced the state and its `.current` observers have run.
        case didReduce
        /// No instance of the store was alive: the state was dropped.
        case droppedWithoutStore
    }

    /// Where the dispatch is.
    ///
    /// ```swift
    /// if event.phase == .willReduce { print(event.state) }
    /// ```
    public let phase: Phase

    /// The dispatched state.
    ///
    /// ```swift
    /// if case Dispatcher.User.addUsers(let users)? = event.state as? Dispatcher.User { print(users) }
    /// ```
    public let state: any DispatchState

    /// The store type the state is for (its `RelatedStoreType`).
    ///
    /// ```swift
    /// print(event.storeType) // UserStore
    /// ```
    public let storeType: any Storable.Type

    /// The live store that reduces the state; `nil` when it was dropped.
    ///
    /// ```swift
    /// if let store = event.store as? UserStore { print(store.users.value.count) }
    /// ```
    public let store: (any Storable)?

    /// Whether a live store received the state.
    ///
    /// ```swift
    /// if !event.wasReceived { print("dropped: \(event.state)") }
    /// ```
    public var wasReceived: Bool { store != nil }

    init<State: DispatchState>(phase: Phase, state: State, store: State.RelatedStoreType?) {
        self.phase = phase
        self.state = state
        self.storeType = State.RelatedStoreType.self
        self.store = store
    }
}

// A dispatch event holds the dispatched state, which needs not be Sendable: the log hands
// it to subscribers on the dispatching thread.
@available(*, unavailable)
extension DispatchEvent: Sendable {}
