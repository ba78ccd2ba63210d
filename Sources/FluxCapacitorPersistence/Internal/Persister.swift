import FluxCapacitor
import Foundation

/// Saves the changes of one persisted value to its slot, and restores it. The writing
/// itself is done by the ``PersistedSlot`` it shares with every other live value persisted
/// in the same slot of the same storage (a store made again while the previous instance's
/// value is still alive, say), so that a value restored from a slot first sees the
/// changes that are still waiting to be written there.
///
/// It lives as long as its value (the value's observer of itself holds it), and writes
/// what is pending when it goes (on the background queue when it goes inside a dispatch:
/// see `deinit`). It reads its value's current value itself (through the
/// variable's `snapshotReader()`, which holds the value weakly), rather than taking the
/// value an observer is handed: so `flush()` sees a value whose setter has returned even
/// while another thread's round has yet to deliver it to the observers.
final class Persister<Element: Codable & Sendable>: @unchecked Sendable {
    // Sendable: `lock` guards `read`; `slot` is Sendable.
    let slot: PersistedSlot
    private let lock = NSLock()
    private var read: (@Sendable () -> (value: Element, version: UInt64)?)?

    init(slot name: String, storage: any PersistentStorage) {
        slot = SlotRegistry.slot(named: name, in: storage)
    }

    deinit {
        slot.removeSource(ObjectIdentifier(self))
        guard !Dispatcher.isDispatchingOnThisThread else {
            // Let go of inside a dispatch (a store's deinit after its reduce, a value let go
            // of in a reduce or an observer, a store made or let go of in a store's init):
            // this thread holds a dispatcher's mutex. `flush()` would wait for a write
            // another thread took until its error is reported, and the report handler
            // (`FileStorage`'s `onError`, a storage's `report(_:)`) may dispatch to this very
            // dispatcher: each thread would wait for the other. So the write goes to the
            // background queue, and waits for nothing here.
            //
            // Nothing is lost: the change stays in the slot, which stays registered until
            // that write is done, so a value made again in the slot reads it (a restore
            // writes what is pending first), `flush()` writes it and waits for it, and so does
            // the `TerminationFlusher` on SIGINT/SIGTERM (it flushes every registered slot).
            // Only a process that ends (`exit`, the end of `main`) before the queue runs the
            // write does not write it, as with a change still in its coalescing interval:
            // the docs say to call `flush()` before the program exits.
            let slot = self.slot
            SlotRegistry.queue.async {
                slot.writeAndReport()
                SlotRegistry.release(slot)
            }
            return
        }
        slot.flush()
        SlotRegistry.release(slot)
    }

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

    /// Hands the slot the value's current value, if it has not had it yet. Called by the
    /// value's observer, and by `flush()`.
    func offerCurrentValue() {
        guard let (value, version) = lock.withLock({ read })?() else { return }
        slot.offer(from: ObjectIdentifier(self), version: version) { try PersistedSlot.encoder.encode(value) }
    }
}
