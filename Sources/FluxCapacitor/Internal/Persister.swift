import Dispatch
import Foundation

/// Saves the changes of one persisted value to its storage: after the storage's
/// coalescing interval, off the changing thread, in order, the last value winning; at once
/// on `flush()`; and a last time when the value goes away (this object is held by the
/// value's observer of itself, so it goes with the value).
final class Persister<Element: Codable & Sendable>: @unchecked Sendable {
    // Sendable: `stateLock` guards `pending` and `isScheduled`; `writeLock` is held for
    // the whole of a write (taking the pending value and writing it), so that writes
    // happen in the order their values were taken and the last value wins.
    let slot: String
    let storage: any PersistentStorage
    private let stateLock = NSLock()
    private let writeLock = NSLock()
    private var pending: Element?
    private var isScheduled = false

    /// Where every persister's writes run: one background queue, so that the threads
    /// that change values never write.
    private static var queue: DispatchQueue { PersisterRegistry.queue }

    init(slot: String, storage: any PersistentStorage) {
        self.slot = slot
        self.storage = storage
        PersisterRegistry.register(self, for: storage)
    }

    deinit {
        flush()
    }

    /// Reads the stored value; a missing slot gives `nil`, a bad one is reported (and set
    /// aside if it could not be decoded) and gives `nil`.
    func restore() -> Element? {
        let data: Data?
        do {
            data = try storage.read(slot)
        } catch {
            storage.report(PersistenceError(slot: slot, kind: .unreadable, reason: "\(error)", underlyingError: error))
            return nil
        }
        guard let data else {
            return nil
        }
        do {
            return try JSONDecoder().decode(Element.self, from: data)
        } catch {
            let setAsideAs = try? storage.setAside(slot)
            storage.report(
                PersistenceError(
                    slot: slot, kind: .incompatible(setAsideAs: setAsideAs), reason: Self.describe(error),
                    underlyingError: error))
            return nil
        }
    }

    /// A new value to save.
    func changed(_ value: Element) {
        let mustSchedule: Bool = stateLock.withLock {
            pending = value
            defer { isScheduled = true }
            return !isScheduled
        }
        guard mustSchedule else { return }
        let delay = storage.coalescingInterval.components
        let nanoseconds = Int(delay.seconds) * 1_000_000_000 + Int(delay.attoseconds / 1_000_000_000)
        Self.queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.flush()
        }
    }

    /// Writes the pending value now, if there is one.
    func flush() {
        writeLock.withLock {
            let value: Element? = stateLock.withLock {
                defer {
                    pending = nil
                    isScheduled = false
                }
                return pending
            }
            guard let value else { return }
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try storage.write(encoder.encode(value), to: slot)
            } catch {
                storage.report(
                    PersistenceError(
                        slot: slot, kind: .writeFailed, reason: Self.describe(error), underlyingError: error))
            }
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

/// Which persisters write to which storage, so that `flush()` on a storage reaches them.
enum PersisterRegistry {
    fileprivate static let queue = DispatchQueue(label: "FluxCapacitor.persistence", qos: .utility)

    private struct WeakFlusher {
        weak var object: AnyObject?
        let flush: @Sendable () -> Void
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var flushers: [ObjectIdentifier: [WeakFlusher]] = [:]
    // `lock` guards `flushers`.

    static func register<Element>(_ persister: Persister<Element>, for storage: any PersistentStorage) {
        let flusher = WeakFlusher(object: persister) { [weak persister] in persister?.flush() }
        lock.withLock {
            let key = ObjectIdentifier(storage)
            flushers[key, default: []].removeAll { $0.object == nil }
            flushers[key, default: []].append(flusher)
        }
    }

    static func flush(_ storage: any PersistentStorage) {
        let flushers = lock.withLock { self.flushers[ObjectIdentifier(storage)] ?? [] }
        for flusher in flushers where flusher.object != nil {
            flusher.flush()
        }
    }
}
