import Dispatch
import FluxCapacitor
import Foundation

/// The slots in use, so that values persisted in the same slot of the same storage share
/// it, and `flush()` on a storage reaches them.
enum SlotRegistry {
    static let queue = DispatchQueue(label: "FluxCapacitor.persistence", qos: .utility)

    private struct Key: Hashable {
        let storage: ObjectIdentifier
        let slot: String
    }

    private static let lock = NSLock()
    // `lock` guards `slots`, each slot's `users` and `reportingThreads`. A slot holds its
    // storage, so a key's storage identifier is not reused while the slot is registered.
    nonisolated(unsafe) private static var slots: [Key: PersistedSlot] = [:]
    /// The threads running a storage's `report(_:)`, with how deep.
    nonisolated(unsafe) private static var reportingThreads: [UInt: Int] = [:]

    /// The slot `name` of `storage`, shared with the other values persisted there; hand it
    /// back with `release(_:)`.
    static func slot(named name: String, in storage: any PersistentStorage) -> PersistedSlot {
        let key = Key(storage: ObjectIdentifier(storage), slot: name)
        return lock.withLock {
            let slot = slots[key] ?? PersistedSlot(name: name, storage: storage)
            slots[key] = slot
            slot.users += 1
            return slot
        }
    }

    /// A persister no longer uses `slot`; the last one unregisters it.
    static func release(_ slot: PersistedSlot) {
        let key = Key(storage: ObjectIdentifier(slot.storage), slot: slot.name)
        let removed: PersistedSlot? = lock.withLock {
            slot.users -= 1
            return slot.users == 0 ? slots.removeValue(forKey: key) : nil
        }
        // Let go of outside the lock: the storage's deinit may run with it.
        withExtendedLifetime(removed) {}
    }

    /// Flushes every slot of `storage`.
    static func flush(_ storage: any PersistentStorage) {
        let identifier = ObjectIdentifier(storage)
        let live = lock.withLock { slots.filter { $0.key.storage == identifier }.map(\.value) }
        for slot in live {
            slot.flush()
        }
    }

    /// Flushes every slot of every storage.
    static func flushAll() {
        let live = lock.withLock { Array(slots.values) }
        for slot in live {
            slot.flush()
        }
    }

    /// Runs `body` (which reports errors) marked as reporting on this thread.
    static func whileReporting(_ body: () -> Void) {
        let thread = ThreadID.current
        lock.withLock { reportingThreads[thread, default: 0] += 1 }
        defer {
            lock.withLock {
                reportingThreads[thread]! -= 1
                if reportingThreads[thread] == 0 { reportingThreads[thread] = nil }
            }
        }
        body()
    }

    /// Whether this thread is reporting an error (a storage's handler is flushing).
    static var isReporting: Bool {
        let thread = ThreadID.current
        return lock.withLock { reportingThreads[thread] != nil }
    }
}
