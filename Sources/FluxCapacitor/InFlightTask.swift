/// One piece of work started by ``InFlightTasks``: a ``Dust`` that cancels it.
///
/// Cleaning it (``cancel()``, ``Dust/clean()``, or the ``DustBuster`` that holds it going
/// away) cancels the work's Swift task, so the work sees `Task.isCancelled`, and closes it
/// to dispatches: from then on ``Actionable/invoke(_:unlessCancelled:)`` with this task
/// dispatches nothing.
///
/// With the `RepositoryPager` of ``InFlightTasks``:
///
/// ```swift
/// pager.showRepositories(ofUser: "marty")?.cleaned(by: dustBuster)  // leaving the screen cancels it
/// ```
///
/// **A dispatch racing the cancellation.** The check is made under the dispatcher's lock,
/// when the state is about to be reduced, and ``cancel()`` takes that lock too before it
/// returns. So each dispatch of the work is either reduced, with its `.current` observers
/// called, before ``cancel()`` returns, or dropped. Cancelled from inside a dispatch (in a
/// `reduce` or an observer), the task's dispatches queued behind it are dropped. A cancelled
/// task's work keeps running until it returns; cancellation only stops its dispatches and
/// tells it (`Task.isCancelled`, `CancellationError` from `Task.sleep`).
public final class InFlightTask: Dust, @unchecked Sendable, Hashable {
    // Sendable: `isCancelledFlag`, `swiftTask` and `onEnd` are guarded by `mutex`, a leaf
    // lock (nothing else is locked while it is held). `dispatcher` is immutable.
    private let mutex = Lock()
    private var isCancelledFlag = false
    private var swiftTask: Task<Void, Never>?
    /// Takes the task out of its ``InFlightTasks`` (held weakly there); run once.
    private var onEnd: (@Sendable () -> Void)?
    /// The dispatcher that was current when the task started: the one its dispatches go to.
    let dispatcher: Dispatcher

    init(dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
        super.init()
    }

    /// Sets what takes the task out of its ``InFlightTasks``, before the task is shared.
    func setOnEnd(_ onEnd: @escaping @Sendable () -> Void) {
        mutex.withLock { self.onEnd = onEnd }
    }

    deinit {
        mutex.deallocate()
    }

    /// Whether the task was cancelled. Its dispatches are dropped from then on.
    ///
    /// ```swift
    /// if let fetch = pager.showRepositories(ofUser: "marty"), fetch.isCancelled { print("replaced") }
    /// ```
    public var isCancelled: Bool {
        isCancelledForDispatch
    }

    /// Cancels the work: the same as ``Dust/clean()``. Calling it again does nothing.
    ///
    /// ```swift
    /// let fetch = pager.showRepositories(ofUser: "marty")
    /// fetch?.cancel()  // nothing it dispatches from now on reaches a store
    /// ```
    public func cancel() {
        clean()
    }

    /// Waits until the work has returned, cancelled or not.
    ///
    /// ```swift
    /// await pager.showRepositories(ofUser: "marty")?.finish()
    /// ```
    public func finish() async {
        let task = mutex.withLock { swiftTask }
        await task?.value
    }

    /// Tasks are equal when they are the same task.
    ///
    /// ```swift
    /// let isTheSameFetch = fetch == otherFetch
    /// ```
    public static func == (lhs: InFlightTask, rhs: InFlightTask) -> Bool {
        lhs === rhs
    }

    /// Hashes the task's identity.
    ///
    /// ```swift
    /// var seen: Set<InFlightTask> = []
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// Read by the dispatcher with its lock held, before reducing a state of this task.
    var isCancelledForDispatch: Bool {
        mutex.withLock { isCancelledFlag }
    }

    /// Closes the task to dispatches at once (no waiting, no call out); `cleanUp(link:)` does
    /// the rest. Called by ``InFlightTasks`` with its lock held.
    func markCancelled() {
        mutex.withLock { isCancelledFlag = true }
    }

    /// Runs `operation` in a new Swift task (which inherits the caller's task-locals, the
    /// dispatcher scope among them), cancelled at once if the task was cancelled already.
    func begin(_ operation: @escaping @Sendable (InFlightTask) async -> Void) {
        let task = Task {
            await operation(self)
            self.end()
        }
        let isCancelled = mutex.withLock {
            swiftTask = task
            return isCancelledFlag
        }
        if isCancelled {
            task.cancel()
        }
    }

    override func cleanUp(link _: ObserverLink?) {
        markCancelled()
        // A dispatch of the work that passed the check on another thread ends before we
        // go on: after this, nothing of the work reaches a store.
        dispatcher.waitForDispatchOnOtherThreads()
        let task = mutex.withLock { swiftTask }
        task?.cancel()
        end()
    }

    /// Lets the ``InFlightTasks`` forget the task, once.
    private func end() {
        let onEnd = mutex.withLock {
            defer { self.onEnd = nil }
            return self.onEnd
        }
        onEnd?()
    }
}

extension Actionable {
    /// Dispatches `state`, unless `task` is cancelled: the check is made under the
    /// dispatcher's lock when the state is reduced, so nothing of a cancelled task reaches
    /// a store (see ``InFlightTask`` for a dispatch racing the cancellation).
    ///
    /// ```swift
    /// fetches.start("repositories") { task in
    ///     let repositories = (try? await session.repositories(ofUser: login)) ?? []
    ///     invoke(.addRepositories(repositories), unlessCancelled: task)
    /// }
    /// ```
    ///
    /// The state goes to the dispatcher that was current when `task` started (the one its
    /// work runs in), like ``invoke(_:)`` inside it.
    ///
    /// - Parameters:
    ///   - state: The state to dispatch.
    ///   - task: The task whose cancellation drops the dispatch.
    public func invoke(_ state: DispatchStateType, unlessCancelled task: InFlightTask) {
        task.dispatcher.dispatch(state, unlessCancelled: task)
    }
}
