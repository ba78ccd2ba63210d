/// Work in flight for actions, keyed by an id, with a policy for a new start while one
/// runs: cancel the one running, or ignore the new one.
///
/// Keep one in an action (or a view model) and start each fetch through it. The handle is
/// an ``InFlightTask``, a ``Dust``: hand it to a ``DustBuster`` and the screen going away
/// cancels its work. The work dispatches with ``Actionable/invoke(_:unlessCancelled:)``,
/// so that nothing of a cancelled fetch reaches a store:
///
/// ```swift
/// struct RepositoryPager: Actionable {
///     typealias DispatchStateType = Dispatcher.Repository
///     let session: any GitHubSession
///     let fetches = InFlightTasks<String>(policy: .cancelRunning)
///
///     /// Opening another user cancels the fetch of the previous one's repositories.
///     @discardableResult
///     func showRepositories(ofUser login: String) -> InFlightTask? {
///         fetches.start("repositories") { task in
///             let repositories = (try? await session.repositories(ofUser: login)) ?? []
///             invoke(.addRepositories(repositories), unlessCancelled: task)
///         }
///     }
/// }
/// ```
///
/// With ``Policy/ignoreNew``, ``start(_:_:)`` returns `nil` while a task of that id runs
/// (a "refresh" button pressed twice). A task leaves its id when its work returns or when
/// it is cancelled.
///
/// Every method is safe from any thread and any task, also from inside a dispatch (a
/// `reduce` or an observer). Starts of one id are ordered by a lock: with
/// ``Policy/cancelRunning`` at most one task of an id is not cancelled at any time, and a
/// new task's work begins only after the task it replaces is cancelled. Dropping the
/// `InFlightTasks` does not cancel its tasks; their handles do.
public final class InFlightTasks<ID: Hashable & Sendable>: @unchecked Sendable {
    // Sendable: `running` is guarded by `mutex`. Lock order: a dispatcher's lock, then
    // `mutex`, then an `InFlightTask`'s lock; nothing calls out with `mutex` held.
    private let mutex = Lock()
    private var running: [ID: InFlightTask] = [:]

    /// What ``start(_:_:)`` does when a task of the same id is running.
    public let policy: Policy

    /// What a new start does while a task of the same id runs.
    ///
    /// ```swift
    /// let fetches = InFlightTasks<String>(policy: .cancelRunning)
    /// let refreshes = InFlightTasks<String>(policy: .ignoreNew)
    /// ```
    public enum Policy: Sendable, Hashable {
        /// The new task cancels the one running and takes its place (a new search, another user opened).
        case cancelRunning
        /// The new task is not started while one runs (a refresh already under way).
        case ignoreNew
    }

    /// Makes an empty set of tasks.
    ///
    /// ```swift
    /// let fetches = InFlightTasks<String>(policy: .cancelRunning)
    /// ```
    ///
    /// - Parameter policy: What a new start does while a task of the same id runs.
    public init(policy: Policy) {
        self.policy = policy
    }

    deinit {
        mutex.deallocate()
    }

    /// Starts `operation` in a new Swift task as the task of `id`, following the
    /// ``policy``: returns its handle, or `nil` when the policy is ``Policy/ignoreNew``
    /// and a task of `id` runs.
    ///
    /// ```swift
    /// let fetch = fetches.start("repositories") { task in
    ///     let repositories = (try? await session.repositories(ofUser: login)) ?? []
    ///     invoke(.addRepositories(repositories), unlessCancelled: task)
    /// }
    /// fetch?.cleaned(by: dustBuster)
    /// ```
    ///
    /// The Swift task inherits the caller's task-locals (the dispatcher scope among them)
    /// and priority, like `Task { }`. The work's dispatches go to the dispatcher current
    /// here.
    ///
    /// - Parameters:
    ///   - id: Which work this is; one task per id runs at a time.
    ///   - operation: The work. It gets its own handle, to dispatch with
    ///     ``Actionable/invoke(_:unlessCancelled:)``.
    /// - Returns: The task, or `nil` when it was not started.
    @discardableResult
    public func start(
        _ id: ID,
        _ operation: @escaping @Sendable (InFlightTask) async -> Void
    ) -> InFlightTask? {
        let task = InFlightTask(dispatcher: .current)
        task.setOnEnd { [weak self, weak task] in
            guard let self, let task else { return }
            self.remove(task, id: id)
        }
        mutex.lock()
        let replaced = running[id]
        if replaced != nil, policy == .ignoreNew {
            mutex.unlock()
            return nil
        }
        replaced?.markCancelled()
        running[id] = task
        mutex.unlock()
        // Outside the lock: cancelling waits for a dispatch of the replaced work that is
        // running on another thread, and the work of the new task begins after that.
        replaced?.cancel()
        task.begin(operation)
        return task
    }

    /// Cancels the task of `id`, if one runs.
    ///
    /// ```swift
    /// fetches.cancel("repositories")
    /// ```
    ///
    /// - Parameter id: The id whose task to cancel.
    public func cancel(_ id: ID) {
        let task = mutex.withLock { running.removeValue(forKey: id) }
        task?.cancel()
    }

    /// Cancels every task.
    ///
    /// ```swift
    /// fetches.cancelAll()
    /// ```
    public func cancelAll() {
        let tasks = mutex.withLock {
            defer { running = [:] }
            return running
        }
        for task in tasks.values {
            task.cancel()
        }
    }

    /// Whether a task of `id` runs (started, not cancelled, its work not returned).
    ///
    /// ```swift
    /// if !refreshes.isRunning("feed") { print("idle") }
    /// ```
    ///
    /// - Parameter id: The id to look at.
    public func isRunning(_ id: ID) -> Bool {
        mutex.withLock { running[id] != nil }
    }

    /// Forgets `task` if it is still the task of `id`.
    private func remove(_ task: InFlightTask, id: ID) {
        mutex.withLock {
            if running[id] === task {
                running[id] = nil
            }
        }
    }
}
