import Dispatch
import Foundation

/// Saves the changes of one persisted value to its slot, and restores it. The writing
/// itself is done by the ``PersistedSlot`` it shares with every other live value persisted
/// in the same slot of the same storage (a store made again while the previous instance's
/// value is still alive, say), so that a value restored from a slot first sees the
/// changes that are still waiting to be written there.
///
/// It lives as long as its value (the value's observer of itself holds it), and writes
/// what is pending when it goes.
final class Persister<Element: Codable & Sendable>: Sendable {
    let slot: PersistedSlot

    init(slot name: String, storage: any PersistentStorage) {
        slot = PersisterRegistry.slot(named: name, in: storage)
    }

    deinit {
        slot.flush()
        PersisterRegistry.release(slot)
    }

    /// Reads the stored value, after writing what is waiting to be written; a missing slot
    /// gives `nil`, a bad one is reported (and set aside if it could not be decoded) and
    /// gives `nil`.
    func restore() -> Element? {
        slot.readAfterPendingWrites { data in try JSONDecoder().decode(Element.self, from: data) }
    }

    /// A new value to save.
    func changed(_ value: Element) {
        slot.changed { try PersistedSlot.encoder.encode(value) }
    }
}

/// One slot of one storage, shared by the values persisted there: the change waiting to
/// be written, and the writing. Changes are written after the storage's coalescing
/// interval, off the changing thread, in order, the last one winning; at once on
/// `flush()`, before a read, and when a value persisted there goes away.
///
/// The registry holds it while a value uses it, and the change waiting to be written is
/// kept here from the moment it is made, so a value restored from the slot (by a store
/// made again while the previous one is going away) never reads around a change.
final class PersistedSlot: @unchecked Sendable {
    // Sendable: `stateLock` guards `pending` and `isScheduled`; `ioLock` is held for the
    // whole of a write (taking the pending change and writing it) and of a restore (writing
    // what is pending, then reading), so that writes happen in the order their values were
    // taken, the last value wins, and a read sees every change made before it. Errors are
    // reported after `ioLock` is let go of: a storage's handler may flush.
    let name: String
    let storage: any PersistentStorage
    private let stateLock = NSLock()
    private let ioLock = NSLock()
    /// Encodes the latest change not yet written.
    private var pending: (@Sendable () throws -> Data)?
    private var isScheduled = false
    /// How many persisters use the slot. Guarded by the registry's lock.
    fileprivate var users = 0

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }()

    init(name: String, storage: any PersistentStorage) {
        self.name = name
        self.storage = storage
    }

    /// A new value to save, as the closure that encodes it.
    func changed(_ encode: @escaping @Sendable () throws -> Data) {
        let mustSchedule: Bool = stateLock.withLock {
            pending = encode
            defer { isScheduled = true }
            return !isScheduled
        }
        guard mustSchedule else { return }
        let delay = storage.coalescingInterval.components
        let nanoseconds = Int(delay.seconds) * 1_000_000_000 + Int(delay.attoseconds / 1_000_000_000)
        PersisterRegistry.queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.flush()
        }
    }

    /// Writes the pending change now, if there is one.
    func flush() {
        let error = ioLock.withLock { writePendingLocked() }
        if let error {
            storage.report(error)
        }
    }

    /// Writes what is pending, then reads and decodes the slot.
    func readAfterPendingWrites<Value>(_ decode: (Data) throws -> Value) -> Value? {
        var errors: [PersistenceError] = []
        let value: Value? = ioLock.withLock {
            if let error = writePendingLocked() {
                errors.append(error)
            }
            let data: Data?
            do {
                data = try storage.read(name)
            } catch {
                errors.append(
                    PersistenceError(slot: name, kind: .unreadable, reason: "\(error)", underlyingError: error))
                return nil
            }
            guard let data else {
                return nil
            }
            do {
                return try decode(data)
            } catch {
                let setAsideAs = try? storage.setAside(name)
                errors.append(
                    PersistenceError(
                        slot: name, kind: .incompatible(setAsideAs: setAsideAs), reason: Self.describe(error),
                        underlyingError: error))
                return nil
            }
        }
        for error in errors {
            storage.report(error)
        }
        return value
    }

    /// Takes the pending change and writes it. Call with `ioLock` held; returns the error
    /// to report once it is let go of.
    private func writePendingLocked() -> PersistenceError? {
        let encode = stateLock.withLock {
            defer {
                pending = nil
                isScheduled = false
            }
            return pending
        }
        guard let encode else { return nil }
        do {
            try storage.write(encode(), to: name)
            return nil
        } catch {
            return PersistenceError(
                slot: name, kind: .writeFailed, reason: Self.describe(error), underlyingError: error)
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            context.underlyingError.map { "not valid JSON: \($0.localizedDescription)" } ?? context.debugDescription
        case DecodingError.keyNotFound(let key, _):
            "no '\(key.stringValue)' where the type expects one"
        case DecodingError.typeMismatch(let type, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not a \(type)"
        case DecodingError.valueNotFound(let type, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is null, not a \(type)"
        default:
            "\(error)"
        }
    }
}

/// The slots in use, so that values persisted in the same slot of the same storage share
/// it, and `flush()` on a storage reaches them.
enum PersisterRegistry {
    static let queue = DispatchQueue(label: "FluxCapacitor.persistence", qos: .utility)

    private struct Key: Hashable {
        let storage: ObjectIdentifier
        let slot: String
    }

    private static let lock = NSLock()
    // `lock` guards `slots` and each slot's `users`. A slot holds its storage, so a key's
    // storage identifier is not reused while the slot is registered.
    nonisolated(unsafe) private static var slots: [Key: PersistedSlot] = [:]

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

    static func flush(_ storage: any PersistentStorage) {
        let identifier = ObjectIdentifier(storage)
        let live = lock.withLock { slots.filter { $0.key.storage == identifier }.map(\.value) }
        for slot in live {
            slot.flush()
        }
    }
}
