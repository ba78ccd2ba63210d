/// The shared state behind a ``Variable`` and the ``Constant``s made from it: the value,
/// its observers, and the machinery that delivers changes in order without holding a
/// lock while observers run.
///
/// ## Rounds
///
/// Setting the value starts a *round*: the setting thread becomes the core's `drainer`
/// and calls every observer with the new value, with the mutex released. While a round
/// runs, other work is handed to the drainer instead of waiting for it:
///
/// - a value set meanwhile (by an observer, or by another thread) is queued in
///   `pendingValues` and delivered by the drainer after the current round, so every
///   observer sees every value once, in the order they were set;
/// - an observer added meanwhile waits in `pendingAdds` and joins at the first round
///   after the version it registered at (its first value, if any, is delivered by the
///   drainer in order with the rest);
/// - an observer cleaned by the drainer itself leaves its slot at once (so it is not
///   called again in this round); one cleaned by another thread is queued in
///   `pendingRemovals` and removed between rounds.
///
/// Nobody ever waits for observers to return, so observers may set values, observe,
/// clean and dispatch without deadlock. A setter returns after its own round and those
/// queued behind it; a setter that found another thread's round running returns at once,
/// and that thread delivers its value.
final class ValueCore<Element: Sendable>: @unchecked Sendable {
    // Sendable: `mutex` guards every stored var below, with one exception: while
    // `drainer != 0`, the slots of `observers` are read and cleared only by the drainer
    // thread (other threads queue their changes in `pendingAdds`/`pendingRemovals`).
    typealias Record = ObserverRecord<Element>

    private struct PendingAdd {
        let record: Record
        let version: UInt64
        /// The first value to deliver when the record joins, if the drainer delivers it.
        let first: Element?
    }

    /// Recursive, so that reading the value from inside a mutation of it traps on the
    /// exclusivity check instead of deadlocking.
    private let mutex = PThreadMutex(recursive: true)
    /// The value. Read and written with `mutex` held; `Variable.value`'s `_modify` yields
    /// it between `lockForModify()` and `finishModify()`.
    var storage: Element
    private var version: UInt64 = 0
    private var observers = ObserverSlab<Record>()
    private var drainer: UInt = 0
    private var pendingValues: [(value: Element, version: UInt64)] = []
    private var pendingValuesHead = 0
    private var pendingAdds: [PendingAdd] = []
    private var pendingAddsHead = 0
    private var pendingRemovals: [Record] = []
    private var retired: [Unmanaged<Record>] = []

    init(_ value: Element) {
        storage = value
    }

    deinit {
        for reference in observers.removeAll() {
            Self.retire(reference)
        }
        mutex.deallocate()
    }

    // MARK: Value

    var value: Element {
        mutex.lock()
        defer { mutex.unlock() }
        return storage
    }

    func set(_ newValue: Element) {
        mutex.lock()
        storage = newValue
        didChangeLocked()
    }

    /// Locks for an in-place change of `storage` (no copy of the old value), which
    /// `finishModify()` ends and notifies.
    @inline(__always)
    func lockForModify() {
        mutex.lock()
    }

    /// Ends a change begun with `lockForModify()`: notifies and unlocks.
    @inline(__always)
    func finishModify() {
        didChangeLocked()
    }

    /// Call with `mutex` held, after `storage` changed; unlocks.
    private func didChangeLocked() {
        version &+= 1
        if drainer != 0 {
            pendingValues.append((storage, version))
            mutex.unlock()
            return
        }
        drainer = ThreadID.current
        let value = storage
        let slots = observers.base
        let count = observers.count
        mutex.unlock()
        deliverRound(value, slots: slots, count: count)
        finishDraining()
    }

    // MARK: Observers

    func observe(
        on queue: ExecuteQueue,
        ignoreFirst: Bool,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Record {
        let record = Record(core: self, queue: queue, handler: changes)
        mutex.lock()
        if drainer == 0 {
            record.state = .active(observers.append(record))
            if ignoreFirst {
                mutex.unlock()
                return record
            }
            // Deliver the first value as a drainer, so changes made meanwhile queue
            // behind it and reach this observer after it.
            drainer = ThreadID.current
            let first = storage
            mutex.unlock()
            record.receive(first)
            finishDraining()
        } else if drainer == ThreadID.current {
            // Inside a round on this thread: the first value goes out now, changes from
            // the next version on come with the rounds.
            pendingAdds.append(PendingAdd(record: record, version: version, first: nil))
            let first = ignoreFirst ? nil : storage
            mutex.unlock()
            if let first {
                record.receive(first)
            }
        } else {
            pendingAdds.append(PendingAdd(record: record, version: version, first: ignoreFirst ? nil : storage))
            mutex.unlock()
        }
        return record
    }

    func remove(_ record: Record) {
        mutex.lock()
        switch record.state {
        case .pending:
            // Skipped when its turn to join comes.
            record.state = .removed
            if drainer != ThreadID.current {
                // Not in a round of this thread, so its first value is not being delivered.
                mutex.unlock()
                record.retire()
                return
            }
        case .active(let slot):
            if drainer == 0 {
                record.state = .removed
                let reference = observers.remove(at: slot)
                compactIfSparse()
                mutex.unlock()
                Self.retire(reference)
                return
            } else if drainer == ThreadID.current {
                record.state = .removed
                retired.append(observers.remove(at: slot))
            } else {
                record.state = .leaving(slot)
                pendingRemovals.append(record)
            }
        case .leaving, .removed:
            break
        }
        mutex.unlock()
    }

    /// The number of observers, for tests.
    var observerCount: Int {
        mutex.withLock {
            var count = observers.live
            for index in pendingAddsHead..<pendingAdds.count {
                if case .pending = pendingAdds[index].record.state { count += 1 }
            }
            return count
        }
    }

    // MARK: Delivery

    @inline(__always)
    private func deliverRound(_ value: Element, slots: UnsafeMutablePointer<Unmanaged<Record>?>?, count: Int) {
        guard let slots else { return }
        for slot in 0..<count {
            // Re-read each slot: an observer may have cleaned a later one.
            if let reference = slots[slot] {
                reference._withUnsafeGuaranteedRef { $0.receive(value) }
            }
        }
    }

    /// Runs what was handed over during the round, then stops being the drainer.
    private func finishDraining() {
        var skipped: [Record] = []
        mutex.lock()
        while true {
            if !pendingRemovals.isEmpty {
                for record in pendingRemovals {
                    if case .leaving(let slot) = record.state {
                        retired.append(observers.remove(at: slot))
                    }
                    record.state = .removed
                }
                pendingRemovals.removeAll(keepingCapacity: true)
            }
            if pendingAddsHead < pendingAdds.count {
                let add = pendingAdds[pendingAddsHead]
                if pendingValuesHead == pendingValues.count
                    || add.version < pendingValues[pendingValuesHead].version
                {
                    pendingAddsHead += 1
                    guard case .pending = add.record.state else {
                        skipped.append(add.record)
                        continue
                    }
                    add.record.state = .active(observers.append(add.record))
                    if let first = add.first {
                        mutex.unlock()
                        add.record.receive(first)
                        mutex.lock()
                    }
                    continue
                }
            }
            if pendingValuesHead < pendingValues.count {
                let next = pendingValues[pendingValuesHead]
                pendingValuesHead += 1
                let slots = observers.base
                let count = observers.count
                mutex.unlock()
                deliverRound(next.value, slots: slots, count: count)
                mutex.lock()
                continue
            }
            break
        }
        drainer = 0
        if pendingValuesHead > 0 {
            pendingValues.removeAll(keepingCapacity: pendingValues.count <= 64)
            pendingValuesHead = 0
        }
        if pendingAddsHead > 0 {
            pendingAdds.removeAll(keepingCapacity: pendingAdds.count <= 64)
            pendingAddsHead = 0
        }
        compactIfSparse()
        var retired: [Unmanaged<Record>] = []
        if !self.retired.isEmpty {
            swap(&retired, &self.retired)
        }
        mutex.unlock()
        // Released outside the lock: a handler's captures may run user deinit code.
        for reference in retired {
            Self.retire(reference)
        }
        for record in skipped {
            record.retire()
        }
    }

    /// Lets go of a record that has left the slab: its handler, then the slab's reference.
    private static func retire(_ reference: Unmanaged<Record>) {
        reference._withUnsafeGuaranteedRef { $0.retire() }
        reference.release()
    }

    private func compactIfSparse() {
        observers.compactIfSparse { record, slot in
            switch record.state {
            case .leaving: record.state = .leaving(slot)
            default: record.state = .active(slot)
            }
        }
    }
}
