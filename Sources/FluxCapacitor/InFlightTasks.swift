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
///     /// Opening another user cancels the fetch of the previous user's.
///     @discardableResult
///     func showRepositories(ofUser login: String) -> InFlightTask? {
///         fetches.start("repositories") { task in
///             let found = (try? await session.repositories(ofUser: login)) ?? []
///             invoke(.addRepositories(found), unlessCancelled: task)
///         }
///     }
/// }
/// ```
///
/// With ``Policy/ignoreNew``, ``start(_:onCancel:_:)`` returns `nil` while a task of that
/// id runs (a "refresh" button pressed twice). A task leaves its id when its work returns
/// or when it is cancelled.
///
/// Every method is safe from any thread and any task, also from inside a dispatch (a
/// `reduce` or an observer). There are never two live tasks for one id (started, not
/// cancelled, their work not returned), whichever way tasks are started and cancelled at
/// once. With ``Policy/cancelRunning``, a new task's work begins only after the task it
/// replaces is cancelled. Dropping the `InFlightTasks` does not cancel its tasks; their
/// handles do. See <doc:ThreadingAndReentrancy> for when a cancellation waits.
///
/// An id is any `Hashable` value: a `String`, or an enum of a feature's ids, whose cases
/// may carry values. The table hashes and compares ids only inside the calls made to it,
/// on the caller's thread, never on the threads where tasks end: so an id type of an
/// Xcode 26 app target, whose `Hashable` conformance belongs to the main actor, works as
/// it is, used from the main actor (see <doc:/FluxCapacitorPersistence/Xcode26AppTargets>). `InFlightTasks` is
/// `Sendable` when its id type is. `AnyHashable` is not `Sendable` in Swift 6, so a port
/// of the Composable Architecture's `AnyHashable` cancellation ids uses an enum of cases:
/// see <doc:ComingFromTheComposableArchitecture#Cancellation-ids>.
public final class InFlightTasks<ID: Hashable> {
    // `running` is guarded by `table.mutex` (``LockRank/inFlightTasks``: a task's striped
    // mutex is taken under it, to mark the task cancelled; nothing calls out with it held
    // but the ids' `Hashable`). Ids are hashed and compared only here, in the caller's
    // calls (Internal/WorkInFlight/InFlightTable.swift says why).
    private let table = InFlightTable()
    private var running: [ID: InFlightSlot] = [:]

    /// What ``start(_:onCancel:_:)`` does when a task of the same id is running.
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

    /// Starts `operation` in a new Swift task as the task of `id`, following the
    /// ``policy``: returns its handle, or `nil` when the policy is ``Policy/ignoreNew``
    /// and a task of `id` runs.
    ///
    /// ```swift
    /// let fetch = fetches.start("repositories") { task in
    ///     let found = (try? await session.repositories(ofUser: login)) ?? []
    ///     invoke(.addRepositories(found), unlessCancelled: task)
    /// }
    /// fetch?.cleaned(by: dustBuster)
    /// ```
    ///
    /// The Swift task inherits the caller's task-locals (the dispatcher scope among them)
    /// and priority, like `Task { }`. The work's dispatches go to the dispatcher current
    /// here. With ``Policy/cancelRunning``, the task it replaces is cancelled (its
    /// `onCancel` run) before this returns, and before the new work begins. (If another
    /// thread is cancelling that task at the same moment, that thread runs its `onCancel`,
    /// which may then come after the new work began.) Made inside an `onCancel`, a start
    /// returns first: the `onCancel` of the task it replaces runs, and then its work
    /// begins, on the same thread as soon as the running `onCancel` returns, so that
    /// `onCancel`s that start tasks of one id, which cancel each other, run one after
    /// another in constant stack, however long the chain. (So an `onCancel` must not wait
    /// for the work of a task it starts: that work begins after it returns.)
    ///
    /// A cancelled task's dispatches are dropped, so work that turns a flag on and off
    /// again (`isLoading`) would leave it on. `onCancel` puts it right. It runs once when
    /// the task is cancelled before its work returned, whichever way (its handle, a
    /// ``DustBuster``, ``cancel(_:)``, ``cancelAll()``, a replacing start), also when it
    /// was cancelled before its work began. It runs on the cancelling thread, after the
    /// task is closed to dispatches, with the task's dispatcher as
    /// ``Dispatcher/current``: dispatch the state that puts things right there, with plain
    /// `invoke`:
    ///
    /// ```swift
    /// fetches.start(
    ///     "repositories",
    ///     onCancel: { invoke(.isRepositoryFetching(false)) }
    /// ) { task in
    ///     invoke(.isRepositoryFetching(true), unlessCancelled: task)
    ///     let found = (try? await session.repositories(ofUser: login)) ?? []
    ///     invoke(.addRepositories(found), unlessCancelled: task)
    ///     invoke(.isRepositoryFetching(false), unlessCancelled: task)
    /// }
    /// ```
    ///
    /// A task whose work cancels it (by its handle or by id) sees `Task.isCancelled` at
    /// once, also on its first line.
    ///
    /// - Parameters:
    ///   - id: Which work this is; one task per id runs at a time.
    ///   - onCancel: What a cancellation of the unfinished work runs, once.
    ///   - operation: The work. It gets its own handle, to dispatch with
    ///     ``Actionable/invoke(_:unlessCancelled:)``.
    /// - Returns: The task, or `nil` when it was not started.
    @discardableResult
    @preconcurrency
    public func start(
        _ id: ID,
        onCancel: (@Sendable () -> Void)? = nil,
        _ operation: @escaping @Sendable (InFlightTask) async -> Void
    ) -> InFlightTask? {
        let task = InFlightTask(dispatcher: .current, onCancel: onCancel, table: table)
        table.mutex.lock()
        let slot = running[id]
        let replaced = slot?.task
        if let replaced, policy == .ignoreNew, !replaced.isCancelled {
            table.mutex.unlock()
            return nil
        }
        // Marked cancelled in the critical section that takes it out of the table: at no
        // moment are two tasks of `id` uncancelled.
        let cancelling = replaced?.markCleaned()
        var swept: [ID: InFlightSlot] = [:]
        if let slot {
            if replaced == nil {
                table.emptySlots -= 1
            }
            slot.task = task
            task.slot = slot
        } else {
            if table.sweepIsDueLocked(count: running.count) {
                swept = running
                running = swept.filter { $0.value.task != nil }
                table.emptySlots = 0
            }
            let slot = InFlightSlot(task)
            running[id] = slot
            task.slot = slot
        }
        table.mutex.unlock()
        // Let go of after unlocking: the ids' deinits may be user code.
        withExtendedLifetime((replaced, swept)) {}
        // Outside the lock: the cancellation may wait for a dispatch of the replaced work on
        // another thread, and runs its `onCancel`; the new work begins after that (inside
        // an `onCancel`, once the `onCancel`s queued on this thread have run).
        cancelling?.finish()
        CancellationQueue.beginAfterWaitingOnCancels(task, operation)
        return task
    }

    /// Cancels the task of `id`, if one runs. Like ``InFlightTask/cancel()``, it waits
    /// only for a dispatch of that task's work that another thread is reducing at that
    /// moment.
    ///
    /// ```swift
    /// fetches.cancel("repositories")
    /// ```
    ///
    /// - Parameter id: The id whose task to cancel.
    public func cancel(_ id: ID) {
        table.mutex.lock()
        let slot = running.removeValue(forKey: id)
        let task = slot?.task
        if slot != nil, task == nil {
            table.emptySlots -= 1
        }
        slot?.task = nil
        let cancelling = task?.markCleaned()
        table.mutex.unlock()
        withExtendedLifetime((slot, task)) {}
        cancelling?.finish()
    }

    /// Cancels every task, each as ``cancel(_:)`` does.
    ///
    /// ```swift
    /// fetches.cancelAll()
    /// ```
    public func cancelAll() {
        table.mutex.lock()
        let slots = running
        running = [:]
        table.emptySlots = 0
        var cancellings: [Dust.Cleaning] = []
        for slot in slots.values {
            if let cancelling = slot.task?.markCleaned() {
                cancellings.append(cancelling)
            }
            slot.task = nil
        }
        table.mutex.unlock()
        withExtendedLifetime(slots) {}
        for cancelling in cancellings {
            cancelling.finish()
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
        table.mutex.withLock { running[id]?.task.map { !$0.isCancelled } ?? false }
    }
}

// Sendable when its ids are: `running` is guarded by `table.mutex`, and the ids it keeps
// are compared with the ones other threads pass in.
extension InFlightTasks: @unchecked Sendable where ID: Sendable {}
