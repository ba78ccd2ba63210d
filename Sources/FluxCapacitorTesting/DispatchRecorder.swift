public import FluxCapacitor

/// Records what is dispatched through a dispatcher, to assert which states an action
/// invoked, in order ("create actions testing").
///
/// ```swift
/// @Test(.isolatedDispatcher)
/// func fetchingInvokesTheFlagAroundTheRepositories() async {
///     let recorder = DispatchRecorder()
///     await RepositoryAction(session: StubSession(found: [fluxCapacitor]))
///         .fetchRepositories(ofUser: "marty")
///     #expect(
///         recorder.states(of: Dispatcher.Repository.self) == [
///             .isRepositoryFetching(true),
///             .addRepositories([fluxCapacitor]),
///             .isRepositoryFetching(false),
///         ])
/// }
/// ```
///
/// A recorder hears every dispatch once, whether or not a live store received it, so an
/// action can be tested with no store at all. It records from its creation until
/// ``stop()`` or until it goes away. Read it from the task that made it.
public final class DispatchRecorder {
    /// One recorded dispatch.
    public struct Entry {
        /// The dispatched state.
        public let state: any DispatchState

        /// The store type the state is for.
        public let storeType: any Storable.Type

        /// ``/FluxCapacitor/DispatchEvent/Phase/didReduce`` when a live store reduced the
        /// state, ``/FluxCapacitor/DispatchEvent/Phase/droppedWithoutStore`` when none was
        /// there: what the dispatch log's last event of the dispatch said.
        ///
        /// ```swift
        /// let dropped = recorder.entries.filter { $0.phase == .droppedWithoutStore }
        /// ```
        public let phase: DispatchEvent.Phase

        /// Whether a live store reduced it.
        ///
        /// Deprecated: a dispatch that reached no store is said one way, its ``phase``, as
        /// a ``/FluxCapacitor/DispatchEvent`` says it.
        @available(
            *, deprecated, message: "compare phase with .droppedWithoutStore: `entry.phase != .droppedWithoutStore`"
        )
        public var wasReceived: Bool { phase != .droppedWithoutStore }
    }

    let storage = RecordingBuffer<Entry>()
    private let subscription: Dust

    /// Starts recording the dispatches of `dispatcher` (by default the current one).
    ///
    /// - Parameter dispatcher: The dispatcher whose dispatches to record.
    public init(dispatcher: Dispatcher = .current) {
        let storage = self.storage
        subscription = dispatcher.observeDispatches { event in
            guard event.phase != .willReduce else { return }
            storage.append(Entry(state: event.state, storeType: event.storeType, phase: event.phase))
        }
    }

    deinit {
        subscription.clean()
    }

    /// Every dispatch recorded so far, in dispatch order.
    public var entries: [Entry] {
        storage.entries
    }

    /// The recorded states of type `State`, in dispatch order.
    ///
    /// - Parameter type: The state type to pick; inferred from the context when left out.
    /// - Returns: The states of that type, oldest first.
    public func states<State: DispatchState>(of type: State.Type = State.self) -> [State] {
        entries.compactMap { $0.state as? State }
    }

    /// Forgets what was recorded so far; recording goes on.
    public func removeAll() {
        storage.removeAll()
    }

    /// Stops recording. What was recorded stays readable. Every recorder stops with
    /// `stop()`, and so does a `DispatchFileRecorder`.
    ///
    /// ```swift
    /// recorder.stop()
    /// ```
    public func stop() {
        subscription.clean()
    }
}

// A recorder hands out the states it recorded, which need not be Sendable.
@available(*, unavailable)
extension DispatchRecorder: Sendable {}

@available(*, unavailable)
extension DispatchRecorder.Entry: Sendable {}
