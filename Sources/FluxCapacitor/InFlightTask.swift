/// One piece of work started by ``InFlightTasks``: a ``Dust`` that cancels it.
///
/// Cleaning it (``cancel()``, ``Dust/clean()``, or the ``DustBuster`` that holds it going
/// away) cancels the work: from then on ``Actionable/invoke(_:unlessCancelled:)`` with this
/// task dispatches nothing, and the work's Swift task is cancelled before the call returns,
/// so the work sees `Task.isCancelled` at once (also when it cancels itself, from its first
/// line on). ``isCancelled`` and ``Dust/isCleaned`` are one flag.
///
/// With the `RepositoryPager` of ``InFlightTasks``:
///
/// ```swift
/// // Leaving the screen cancels it:
/// pager.showRepositories(ofUser: "marty")?.cleaned(by: dustBuster)
/// ```
///
/// A buster lets go of a task once its work returned uncancelled, and does not take one
/// whose work has returned, so a screen's buster holds only the work still running.
///
/// Each dispatch of the work is either reduced, with its `.current` observers called,
/// before the cancellation returns, or dropped: the check is made under the dispatcher's
/// lock, when the state is about to be reduced. So when a dispatch of the work is being
/// reduced on another thread at that moment, the cancellation, whichever way it is made
/// (``cancel()``, ``Dust/clean()``, a ``DustBuster``, ``InFlightTasks/cancel(_:)``, a
/// replacing start), waits for that one dispatch to end, as an `invoke` would; no other
/// dust that FluxCapacitor makes waits when cleaned. Cancelled from inside a dispatch of
/// its dispatcher (in a `reduce` or an observer), it never waits, and the work's
/// dispatches queued on that thread are dropped.
///
/// A cancelled task's work keeps running until it returns: cancellation stops its
/// dispatches, tells it (`Task.isCancelled`, `CancellationError` from `Task.sleep`), and
/// runs the `onCancel` given to ``InFlightTasks/start(_:onCancel:_:)``, which puts right
/// what the work would have put right at its end. See <doc:ThreadingAndReentrancy>.
public final class InFlightTask: Dust, @unchecked Sendable, Hashable {
    // Sendable: `phase` is guarded by this dust's striped mutex (`StripedLocks.mutex(for:
    // self)`), the one that guards whether the dust is cleaned, which is whether the task is
    // cancelled: the two change in one critical section. `slot` is guarded by the table's
    // mutex (`InFlightTable`). The other fields never change.

    /// Where the task's work is. (Whether it is cancelled is the dust's cleaned state.)
    private enum Phase {
        /// Made; its work has not begun. `waiting`: the `waitUntilDone()`s waiting for it to
        /// begin (a task started inside an `onCancel` begins once that returns).
        case starting(waiting: [UnsafeContinuation<Void, Never>])
        /// Its work runs in this Swift task.
        case running(Task<Void, Never>)
        /// A dispatch of its work is being reduced on `thread`, holding the dispatcher; if
        /// the work returned meanwhile (it handed the task to another thread), the task
        /// ends when that dispatch does.
        case dispatching(Task<Void, Never>, thread: UInt, workReturned: Bool)
        /// Its work returned, uncancelled.
        case ended(Task<Void, Never>)
    }

    private var phase = Phase.starting(waiting: [])
    /// The dispatcher that was current when the task started: the one its dispatches go to.
    let dispatcher: Dispatcher
    /// What a cancellation of the unfinished work runs, once (see `InFlightTasks.start`).
    private let onCancel: (@Sendable () -> Void)?
    /// The table the task is in, so that it leaves it when it ends.
    private let table: InFlightTable
    /// Its slot in `table`; guarded by `table.mutex`, set by the start that made it.
    var slot: InFlightSlot?

    init(dispatcher: Dispatcher, onCancel: (@Sendable () -> Void)?, table: InFlightTable) {
        self.dispatcher = dispatcher
        self.onCancel = onCancel
        self.table = table
        super.init()
    }

    /// Whether the task was cancelled (the same as ``Dust/isCleaned``). Its dispatches are
    /// dropped from then on.
    ///
    /// ```swift
    /// let fetch = pager.showRepositories(ofUser: "marty")
    /// if fetch?.isCancelled == true { print("replaced") }
    /// ```
    public var isCancelled: Bool {
        isCleaned
    }

    /// Cancels the work: the same as ``Dust/clean()``. Calling it again does nothing. It
    /// waits only for a dispatch of the work that another thread is reducing at that
    /// moment (see ``InFlightTask``).
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
    /// await pager.showRepositories(ofUser: "marty")?.waitUntilDone()
    /// ```
    public func waitUntilDone() async {
        while true {
            let begun: Task<Void, Never>? = withPhase {
                switch $0 {
                case .starting: nil
                case .running(let task), .dispatching(let task, _, _), .ended(let task): task
                }
            }
            if let begun {
                await begun.value
                return
            }
            // Started inside an `onCancel`: its work begins once that returns (`begin`).
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let isWaiting: Bool = withPhase { phase in
                    guard case .starting(let waiting) = phase else { return false }
                    phase = .starting(waiting: waiting + [continuation])
                    return true
                }
                if !isWaiting {
                    continuation.resume()
                }
            }
        }
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

    private func withPhase<Result>(_ body: (inout Phase) -> Result) -> Result {
        StripedLocks.mutex(for: self).withLock { body(&phase) }
    }

    /// Runs `operation` in a new Swift task (which inherits the caller's task-locals, the
    /// dispatcher scope among them). The Swift task is made holding the mutex that a
    /// cancellation takes first, so that every cancellation finds it, also one the work
    /// makes on its first line; a task cancelled already (by a start or a cancel racing
    /// this one) has its Swift task cancelled at once, so its work sees it from its first
    /// line.
    func begin(_ operation: @escaping @Sendable (InFlightTask) async -> Void) {
        typealias Begun = (cancelledAlready: Task<Void, Never>?, waiting: [UnsafeContinuation<Void, Never>])
        let (cancelledAlready, waiting) = withPhase { phase -> Begun in
            guard case .starting(let waiting) = phase else {
                fatalError("InFlightTask: internal inconsistency: its work began twice")
            }
            let task = Task {
                await operation(self)
                self.end()
            }
            phase = .running(task)
            return (isCleanedLocked ? task : nil, waiting)
        }
        cancelledAlready?.cancel()
        for continuation in waiting {
            continuation.resume()
        }
    }

    /// Whether a dispatch of the work may be reduced now (the task is not cancelled), and
    /// if so, that it is being reduced on this thread. Called by the dispatcher with its
    /// mutex held; `endDispatch()` follows.
    func beginDispatch() -> Bool {
        withPhase { phase in
            guard !isCleanedLocked else { return false }
            if case .running(let task) = phase {
                phase = .dispatching(task, thread: ThreadID.current, workReturned: false)
            }
            return true
        }
    }

    /// The dispatch that `beginDispatch()` let through was reduced. If the work returned
    /// meanwhile, the task ends now: uncancelled, it leaves its table and its busters.
    func endDispatch() {
        let ended = withPhase { phase in
            guard case .dispatching(let task, _, let workReturned) = phase else { return false }
            phase = workReturned ? .ended(task) : .running(task)
            return workReturned && !isCleanedLocked
        }
        if ended {
            leaveTableAndBusters()
        }
    }

    /// The cancellation, after it marked the task cancelled (`Dust.markCleaned()`), with no
    /// lock held: cancels the Swift task, waits for a dispatch of the work being reduced on
    /// another thread, runs `onCancel` unless the work had returned (at once, or, inside
    /// another `onCancel` on this thread, after it: `CancellationQueue`), and leaves the
    /// table.
    override func cleanUp(link _: CoreLock?) {
        let phase = withPhase { $0 }
        switch phase {
        case .starting:
            break
        case .running(let task):
            task.cancel()
        case .dispatching(let task, let thread, let workReturned):
            task.cancel()
            if thread != ThreadID.current {
                // It passed the check before the cancellation: it ends before we go on, so
                // that nothing of the work reaches a store after this returns.
                dispatcher.mutex.withLock {}
            }
            if workReturned {
                table.forget(self)
                return
            }
        case .ended:
            table.forget(self)
            return
        }
        if onCancel != nil {
            CancellationQueue.runOnCancel(of: self)
        }
        table.forget(self)
    }

    /// Runs `onCancel` in the task's dispatcher scope (for `CancellationQueue`).
    func runOnCancel() {
        if let onCancel {
            Dispatcher.withScope(dispatcher, onCancel)
        }
    }

    /// The work returned: the task leaves its table and its busters, or, while another
    /// thread reduces a dispatch of it, when that dispatch ends (`endDispatch()`). A
    /// cancelled task keeps its phase, so that its cancellation (which may still be on its
    /// way) runs `onCancel`.
    private func end() {
        let ended = withPhase { phase in
            guard !isCleanedLocked else { return false }
            switch phase {
            case .running(let task):
                phase = .ended(task)
                return true
            case .dispatching(let task, let thread, _):
                phase = .dispatching(task, thread: thread, workReturned: true)
                return false
            case .starting, .ended:
                // `begin` makes the phase `.running` before the work can return.
                return false
            }
        }
        if ended {
            leaveTableAndBusters()
        }
    }

    private func leaveTableAndBusters() {
        table.forget(self)
        leaveBusters()
    }

    /// A task whose work returned uncancelled has nothing left to cancel: a buster lets
    /// go of it (see `end()`) and does not take it again.
    override var hasNothingLeftToCleanLocked: Bool {
        if case .ended = phase { true } else { false }
    }
}

extension Actionable {
    /// Dispatches `state`, unless `task` is cancelled: the check is made under the
    /// dispatcher's lock when the state is reduced, so nothing of a cancelled task reaches
    /// a store (see ``InFlightTask`` for a dispatch racing the cancellation).
    ///
    /// ```swift
    /// fetches.start("repositories") { task in
    ///     let found = (try? await session.repositories(ofUser: login)) ?? []
    ///     invoke(.addRepositories(found), unlessCancelled: task)
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
