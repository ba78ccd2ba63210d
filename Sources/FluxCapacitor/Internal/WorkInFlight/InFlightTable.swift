/// The part of an ``InFlightTasks`` that its tasks reach: the table's lock, and the slots
/// that hold the running task of each id. Not generic, so that a task never touches an id.
///
/// `InFlightTasks` keeps `[ID: InFlightSlot]`, and hashes and compares ids only in its
/// public methods, on the caller's thread: an id whose `Hashable` conformance is isolated
/// to the main actor (an Xcode 26 app target's) is used only there, as the compiler
/// requires. A task whose work returns, or whose handle cancels it, on any thread, leaves
/// its slot empty (`forget(_:)`) without looking the id up; the empty slots are swept out
/// of the dictionary by a later start, on the caller's thread again, once they are more
/// than half of it (`sweepIsDueLocked`), so the dictionary holds at most about twice the
/// ids whose tasks run.
final class InFlightTable: @unchecked Sendable {
    // Sendable: `mutex` (``LockRank/inFlightTasks``) guards `emptySlots`, the owner's
    // dictionary, every slot's `task` and every task's `slot`.
    let mutex = Lock.make(.inFlightTasks)
    /// How many slots of the dictionary hold no task.
    var emptySlots = 0

    /// Whether the empty slots are many enough to sweep out: more than half of `count`, the
    /// dictionary's size, and at least 16. Call with `mutex` held.
    func sweepIsDueLocked(count: Int) -> Bool {
        emptySlots >= 16 && emptySlots * 2 > count
    }

    /// Takes `task` out of its slot, if it is still the slot's task: its work returned or it
    /// was cancelled by its handle. Any thread; no lock held.
    func forget(_ task: InFlightTask) {
        mutex.withLock {
            guard let slot = task.slot, slot.task === task else { return }
            // Not the task's last reference: the caller holds it.
            slot.task = nil
            emptySlots += 1
        }
    }
}

/// The running task of one id of an ``InFlightTasks`` (`nil` when none runs), guarded by
/// its table's mutex. A task holds its slot, and a slot its task while it runs: a start,
/// a cancel, a sweep and `InFlightTable.forget(_:)` empty it, which breaks that cycle.
final class InFlightSlot {
    var task: InFlightTask?

    init(_ task: InFlightTask) {
        self.task = task
    }
}
