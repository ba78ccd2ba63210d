import FluxCapacitor
import Foundation

/// Saves the changes of one persisted value to its slot, and restores it. The writing
/// itself is done by the ``PersistedSlot`` it shares with every other live value persisted
/// in the same slot of the same storage (a store made again while the previous instance's
/// value is still alive, say), so that a value restored from a slot first sees the
/// changes that are still waiting to be written there.
///
/// A change hands the slot a way to read the value, not a copy of it: the write reads the
/// value when it happens (`currentValue()`). A copy kept until the write would share the
/// value's storage, so the next change in place would copy the whole value (a collection
/// of 100,000 elements, at each change: issue 39). It reads its value's current value
/// itself (through the variable's `snapshotReader()`, which holds the value weakly),
/// rather than taking the value an observer is handed: so `flush()` sees a value whose
/// setter has returned even while another thread's round has yet to deliver it to the
/// observers.
///
/// When the value goes (with its store), its core hands this persister its last value
/// (`Variable(_:handingItsLastValueTo:)`), which a change still waiting reads from then
/// on, and the persister writes what is pending at once (on the background queue when the
/// value goes inside a dispatch: see `valueWent(_:)`). A change waiting to be written holds
/// the persister, so that it can read that last value; the persister holds neither the
/// value nor its core. A write's read holds the core, and the slot lets go of it once the
/// write is settled: the last release of a core runs its deinit, which flushes the slot and
/// so must not run inside the write.
class Persister: @unchecked Sendable {
    // Sendable: immutable; `slot` is Sendable.
    let slot: PersistedSlot

    init(slot name: String, storage: any PersistentStorage) {
        slot = SlotRegistry.slot(named: name, in: storage)
    }

    deinit {
        slot.removeSource(ObjectIdentifier(self))
        SlotRegistry.release(slot)
    }

    /// What the value's observer runs at each change: not generic, and it reads nothing
    /// (the write reads the value, once per coalescing interval).
    final func noteChange() {
        slot.noteChange(from: ObjectIdentifier(self)) { makeWrite() }
    }

    /// What a write calls: it reads the value, tells the slot which version it read, and
    /// encodes it.
    func makeWrite() -> @Sendable () throws -> Data {
        fatalError("Persister: internal inconsistency: makeWrite() of the base class")
    }
}

/// A ``Persister`` of a value of type `Element`.
final class TypedPersister<Element: Codable & Sendable>: Persister, @unchecked Sendable {
    // Sendable: `lock` guards `read` and `lastValue`; the rest is the base class's.
    private let lock = NSLock()
    private var read: (@Sendable () -> (value: Element, version: UInt64, core: any AnyObject & Sendable)?)?
    /// The value's last value and its version, once it went.
    private var lastValue: (value: Element, version: UInt64)?

    /// Reads the stored value, after writing what is waiting to be written; a missing slot
    /// gives `nil`, a bad one is reported (and set aside if it could not be decoded) and
    /// gives `nil`.
    func restore() -> Element? {
        slot.readAfterPendingWrites { data in try JSONDecoder().decode(Element.self, from: data) }
    }

    /// Starts saving the changes of `variable`, from its current version on.
    func attach(to variable: Variable<Element>) {
        let read = variable.snapshotReader()
        // The variable is alive (the caller holds it), so `read` gives its value.
        guard let version = read()?.version else { return }
        lock.withLock { self.read = read }
        slot.addSource(ObjectIdentifier(self), at: version) { [weak self] in self?.offerCurrentValue() }
    }

    /// Hands the slot the value's current version, if it has not had it yet: what
    /// `flush()` asks each value, for a change whose observers have yet to run.
    func offerCurrentValue() {
        guard let version = lock.withLock({ read })?()?.version else { return }
        slot.offer(from: ObjectIdentifier(self), version: version) { makeWrite() }
    }

    override func makeWrite() -> @Sendable () throws -> Data {
        { [self] in
            slot.willRead(from: ObjectIdentifier(self))
            let (value, version, core) = currentValue()
            // This runs holding the slot's write lock. The variable may go on another
            // thread meanwhile: then the core the read holds is its last reference, whose
            // deinit hands the last value over and flushes this slot, taking that lock
            // again. The slot keeps the core until the write is settled, so that this
            // closure's own reference is never the last.
            slot.wrote(version, from: ObjectIdentifier(self), holding: core)
            return try PersistedSlot.encoder.encode(value)
        }
    }

    /// The value and its version as they are now, with the core they were read from
    /// (held), or its last ones if it went.
    private func currentValue() -> (value: Element, version: UInt64, core: (any AnyObject & Sendable)?) {
        while true {
            if let current = lock.withLock({ read })?() {
                return current
            }
            if let last = lock.withLock({ lastValue }) {
                return (last.value, last.version, nil)
            }
            // The value is going on another thread, between its last release and the
            // deinit that hands its last value over (`valueWent`): a few instructions.
            sched_yield()
        }
    }
    /// The value went, with `last` as its value (its core's deinit). Writes what is
    /// pending, which reads `last` from now on.
    ///
    /// Inside a dispatch (a store's deinit after its reduce, a value let go of in a reduce
    /// or an observer, a store made or let go of in a store's init), this thread holds a
    /// dispatcher's mutex: `flush()` would wait for a write another thread took until its
    /// error is reported, and the report handler (`FileStorage`'s `onError`, a storage's
    /// `report(_:)`) may dispatch to this very dispatcher, so each thread would wait for
    /// the other. So the write goes to the background queue then, and waits for nothing
    /// here.
    ///
    /// Nothing is lost: the change stays in the slot, which stays registered until that
    /// write is done (the change holds this persister, which holds its use of the slot),
    /// so a value made again in the slot reads it (a restore writes what is pending
    /// first), `flush()` writes it and waits for it, and so does the `TerminationFlusher`
    /// on SIGINT/SIGTERM (it flushes every registered slot). Only a process that ends
    /// (`exit`, the end of `main`) before the queue runs the write does not write it, as
    /// with a change still in its coalescing interval: the docs say to call `flush()`
    /// before the program exits.
    func valueWent(_ last: Element, version: UInt64) {
        lock.withLock {
            read = nil
            lastValue = (last, version)
        }
        // A change the slot has not been given yet (the value went before its observer
        // ran, on another thread's round).
        slot.offer(from: ObjectIdentifier(self), version: version) { makeWrite() }
        guard !Dispatcher.isDispatchingOnThisThread else {
            let slot = self.slot
            SlotRegistry.queue.async { slot.writeAndReport() }
            return
        }
        slot.flush()
    }
}
