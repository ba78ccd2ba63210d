import Dispatch
import FluxCapacitor
import Foundation

/// One slot of one storage, shared by the values persisted there: the change waiting to
/// be written, and the writing. Changes are written after the storage's coalescing
/// interval, off the changing thread, in order, the last one winning; at once on
/// `flush()`, before a read, and when a value persisted there goes away.
///
/// The registry holds it while a value uses it, and the change waiting to be written is
/// kept here from the moment it is made, so a value restored from the slot (by a store
/// made again while the previous one is going away) never reads around a change.
///
/// ## Settling
///
/// Every change the slot takes is numbered (`changes`). A write takes the pending change
/// under `ioLock`, writes it, lets go of `ioLock` and reports what went wrong (a storage's
/// handler may flush), and only then *settles* the changes it covered. `flush()` waits
/// until every change made before it is settled, so when it returns, each one is written
/// or its error reported, even one a background write took first. Two flushes do not wait
/// for the reports of other threads' writes, only for the writes (taking `ioLock` after a
/// write means that write is done): one made by a report handler (on the reporting
/// thread), which would wait for itself, and one made holding a dispatcher's mutex (in a
/// reduce, an observer, a store's init or deinit), since a report handler may dispatch to
/// that dispatcher and so wait for the flushing thread.
///
/// ## Locks
///
/// `ioLock`, then `state`, then the storage's own locks; `ioLock` may be taken holding a
/// dispatcher's mutex (a restore in a store's `init()`, a flush in a reduce), and user code
/// runs under it (the storage's `read`/`write`/`setAside`, `Codable`), which must not
/// dispatch or instantiate stores synchronously. Nothing waits on `state` (for settling)
/// holding a dispatcher's mutex. User code is never let go of under `state`: a replaced
/// pending change (which holds a value) is let go of after unlocking.
///
/// ## A slot that could not be read
///
/// If reading the slot failed (not a missing slot, not undecodable data: a permission, an
/// I/O error), the slot is *kept*: nothing is written over what could not be read while
/// this slot lives, so the user's data stays as it is. The read error says so.
final class PersistedSlot: @unchecked Sendable {
    // Sendable: `state` (a condition, so a lock too) guards every `var` below except
    // `users`; `ioLock` is held for the whole of a write (taking the pending change and
    // writing it) and of a restore (writing what is pending, then reading), so that writes
    // happen in the order their values were taken, the last value wins, and a read sees
    // every change made before it. Errors are reported after `ioLock` is let go of.
    let name: String
    let storage: any PersistentStorage
    private let state = NSCondition()
    private let ioLock = NSLock()
    /// Encodes the latest change not yet written (reading the value when it is called).
    private var pending: (@Sendable () throws -> Data)?
    /// Whose change `pending` writes.
    private var pendingSource: ObjectIdentifier?
    /// Whose change a write took and has not read yet (it reads the value when it
    /// encodes, and says so with `wrote(_:from:)`): an offer of that source's value meanwhile
    /// is covered by that write, which will read it.
    private var unreadSource: ObjectIdentifier?
    /// Whose value a write is reading now (between `willRead` and `wrote`): an offer of
    /// that source's value waits for the read to end, since until then nobody knows which
    /// version the write covers.
    private var readingSource: ObjectIdentifier?
    /// The values whose last change another value's replaced (two live values in one
    /// slot: a store made again while the previous one is alive). A flush's offer of such a
    /// value only notes its version: taken for a new change, it wrote the older value over
    /// the newer one. Its next change heard by its observer (`noteChange`) ends this. What
    /// it leaves: a change of such a value whose observer has not run when a flush asks is
    /// written when the observer runs, not by that flush.
    private var superseded: Set<ObjectIdentifier> = []
    /// The values' cores the writes' reads hold (`wrote(_:from:holding:)`), let go of
    /// after `ioLock` and once the write is settled: the value may have gone on another
    /// thread meanwhile, and then its core's deinit hands the last value over and flushes
    /// this slot, which takes `ioLock` and waits for the write to be settled.
    private var readCores: [any AnyObject & Sendable] = []
    private var isScheduled = false
    /// How many changes the slot was given.
    private var changes: UInt64 = 0
    /// How many changes writes have taken (`changes` when the last one took its change).
    private var taken: UInt64 = 0
    /// The writes taken but not settled yet: for each, how many changes were settled or
    /// taken before it.
    private var unsettled: [UInt64: UInt64] = [:]
    private var nextTicket: UInt64 = 0
    /// Every change up to this number is written or reported.
    private var settled: UInt64 = 0
    /// True once reading the slot failed: its data is kept, never written over.
    private var isKept = false
    /// The values saved here, which `flush()` asks for their current value, and the
    /// version of each one's value the slot has last been given.
    private var sources: [ObjectIdentifier: (version: UInt64, offer: @Sendable () -> Void)] = [:]
    /// How many persisters use the slot. Guarded by the registry's lock.
    var users = 0

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }()

    init(name: String, storage: any PersistentStorage) {
        self.name = name
        self.storage = storage
    }

    /// A value saved here from `version` on; `offer` hands the slot its current value.
    func addSource(_ source: ObjectIdentifier, at version: UInt64, offer: @escaping @Sendable () -> Void) {
        state.withLock { sources[source] = (version, offer) }
    }

    func removeSource(_ source: ObjectIdentifier) {
        state.withLock {
            sources[source] = nil
            superseded.remove(source)
        }
    }

    /// A change of `source`'s value, at `version`, to write; ignored unless it is newer
    /// than what `source` last gave (two threads may offer the same value, or an older one
    /// late). `encode` makes what a write calls, which reads the value then: it is asked for
    /// only when no change of `source` is waiting already.
    func offer(
        from source: ObjectIdentifier, version: UInt64, _ encode: () -> @Sendable () throws -> Data
    ) {
        take(from: source, encode) { _ in
            // Called holding `state`. An offer names a version it read: it first waits for
            // a write that is reading `source`'s value to say which version it read, then
            // compares with that. Otherwise an offer between that read and
            // `wrote(_:from:)` took the version being written for a new change, and wrote
            // it again (two reports of one failed write: a flush racing the background
            // write, a value going while its change is written). The wait is for a few
            // instructions and no user code: the read takes the value's lock, or waits for
            // the last value `valueWent` sets before it offers.
            while readingSource == source {
                state.wait()
            }
            guard let known = sources[source]?.version, version > known else { return nil }
            guard !superseded.contains(source) else {
                // This version's change was replaced by another value's, made later: it
                // is known, not written.
                sources[source]?.version = version
                return nil
            }
            supersedeOthers(by: source)
            return version
        }
    }

    /// A change of `source`'s value that its observer heard of: the cheap path of each
    /// change, which reads neither the value nor its version (the write reads both, and
    /// tells `wrote(_:from:)` what it wrote).
    func noteChange(from source: ObjectIdentifier, _ encode: () -> @Sendable () throws -> Data) {
        let isWaiting: Bool = state.withLock {
            // The usual change: one of this value's is waiting already, and will read the
            // value when it is written. (Changes are counted for `flush()`.)
            guard pendingSource == source, pending != nil else { return false }
            changes += 1
            return true
        }
        if !isWaiting {
            take(from: source, encode) { known in
                superseded.remove(source)
                supersedeOthers(by: source)
                return known
            }
        }
    }

    /// Called holding `state`, by a change of `source` that `take` is about to make the
    /// pending one: the change of another value it replaces is superseded (see
    /// `superseded`).
    private func supersedeOthers(by source: ObjectIdentifier) {
        if pending != nil, let other = pendingSource, other != source {
            superseded.insert(other)
        }
    }

    /// Records that a write is about to read `source`'s value: a change from now on is not
    /// covered by it (call before reading, so that no change falls between the read and
    /// this).
    func willRead(from source: ObjectIdentifier) {
        state.withLock {
            if unreadSource == source {
                unreadSource = nil
            }
            readingSource = source
        }
    }

    /// Records that a write read `source`'s value at `version`: a later offer of that
    /// version (a flush's) is not a change. `core`, the value's core the read holds, is
    /// let go of once the write is settled (`takeReadCores()`).
    func wrote(_ version: UInt64, from source: ObjectIdentifier, holding core: (any AnyObject & Sendable)?) {
        state.withLock {
            if let known = sources[source], version > known.version {
                sources[source] = (version, known.offer)
            }
            if let core {
                readCores.append(core)
            }
            readingSource = nil
            state.broadcast()
        }
    }

    /// A change of `source` to write, if `newVersion` (given the version the slot knows
    /// of) says so: it waits, unless one of `source` waits already, and a write is
    /// scheduled if none is. `newVersion` is called holding `state` (and may wait on it),
    /// before the checks that follow it read the slot's state.
    private func take(
        from source: ObjectIdentifier, _ encode: () -> @Sendable () throws -> Data,
        newVersion: (UInt64) -> UInt64?
    ) {
        var replaced: (@Sendable () throws -> Data)?
        let mustSchedule: Bool = state.withLock {
            guard let known = sources[source], let version = newVersion(known.version),
                unreadSource != source || pending != nil
            else {
                // Nothing new, or a write took a change of this source and will read it.
                return false
            }
            if version != known.version {
                sources[source] = (version, known.offer)
            }
            changes += 1
            if pendingSource != source || pending == nil {
                // Made under the lock: a closure, with no user code in it.
                replaced = pending
                pending = encode()
                pendingSource = source
            }
            defer { isScheduled = true }
            return !isScheduled
        }
        // The change it replaced may hold the last reference to a value's persister, whose
        // going is user code: let go of it outside the lock.
        withExtendedLifetime(replaced) {}
        guard mustSchedule else { return }
        guard let delay = Self.dispatchDelay(storage.coalescingInterval) else {
            // Longer than a dispatch timer can wait: written by `flush()` or when the value goes.
            return
        }
        SlotRegistry.queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.writeAndReport()
        }
    }

    /// `interval` as a dispatch delay: a negative one is no delay, one too long for a
    /// dispatch timer (about 292 years in nanoseconds) is `nil`.
    static func dispatchDelay(_ interval: Duration) -> DispatchTimeInterval? {
        let (seconds, attoseconds) = interval.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return .nanoseconds(0) }
        // Leaves room for `DispatchTime.now()` (the time since boot) in an unsigned 64-bit sum.
        guard seconds < 9_000_000_000 else { return nil }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// Writes every change made before the call, including a value whose setter returned
    /// but whose observers have not run yet, and returns once each is written or its
    /// error reported; from a report handler or holding a dispatcher's mutex, once each is
    /// written (see "Settling").
    func flush() {
        let offers = state.withLock { sources.values.map(\.offer) }
        for offer in offers {
            offer()
        }
        let target = state.withLock { changes }
        writeAndReport()
        // A report another thread is making may be waiting for this thread: the report
        // handler of this thread's own report, or one that dispatches to a dispatcher whose
        // mutex this thread holds.
        guard !SlotRegistry.isReporting, !Dispatcher.isDispatchingOnThisThread else { return }
        state.withLock {
            while settled < target {
                state.wait()
            }
        }
    }

    /// Writes the pending change, if any, and reports what went wrong.
    func writeAndReport() {
        var taken: (encode: @Sendable () throws -> Data, ticket: UInt64)?
        var coresRead: [any AnyObject & Sendable] = []
        let error: PersistenceError? = ioLock.withLock {
            taken = takePending()
            defer { coresRead = takeReadCores() }
            return taken.flatMap { write($0.encode) }
        }
        report((error.map { [$0] } ?? []) + notices())
        if let taken {
            settle(taken.ticket)
        }
        // The change holds its persister (see `Persister`): let go of it here, outside
        // every lock and once settled, since it may be the persister's last reference,
        // whose going takes this slot's lock (`Persister.deinit`). The same for the core
        // the write's read held.
        withExtendedLifetime(coresRead) {}
        withExtendedLifetime(taken) {}
    }

    /// Writes what is pending, then reads and decodes the slot.
    func readAfterPendingWrites<Value>(_ decode: (Data) throws -> Value) -> Value? {
        var errors: [PersistenceError] = []
        var taken: (encode: @Sendable () throws -> Data, ticket: UInt64)?
        var coresRead: [any AnyObject & Sendable] = []
        let value: Value? = ioLock.withLock {
            taken = takePending()
            defer { coresRead = takeReadCores() }
            if let taken, let error = write(taken.encode) {
                errors.append(error)
            }
            let data: Data?
            do {
                data = try storage.read(name)
            } catch {
                state.withLock { isKept = true }
                errors.append(
                    PersistenceError(
                        slot: name, kind: .unreadable, reason: Self.describe(error), underlyingError: error))
                return nil
            }
            guard let data else {
                return nil
            }
            do {
                return try decode(data)
            } catch {
                let setAsideAs = try? storage.setAside(name)
                // A file storage's file, so that the report names it.
                let file = (storage as? FileStorage).map { "decoding \($0.url(of: name).path): " } ?? ""
                errors.append(
                    PersistenceError(
                        slot: name, kind: .incompatible(setAsideAs: setAsideAs), reason: file + Self.describe(error),
                        underlyingError: error))
                return nil
            }
        }
        report(errors + notices())
        if let taken {
            settle(taken.ticket)
        }
        // Let go of outside every lock, as in `writeAndReport()`.
        withExtendedLifetime(coresRead) {}
        withExtendedLifetime(taken) {}
        return value
    }

    /// The cores this write's read held, for the caller to let go of once it holds no lock
    /// and the write is settled (a core's deinit may flush this slot). Call with `ioLock`
    /// held, at the end of the write: so the list holds this write's core only, and the
    /// write's own reference to it, let go of inside the lock, is never the last.
    private func takeReadCores() -> [any AnyObject & Sendable] {
        state.withLock {
            defer { readCores = [] }
            return readCores
        }
    }

    /// Takes the pending change, if any, with the ticket to settle once it is written or
    /// reported. Call with `ioLock` held.
    private func takePending() -> (encode: @Sendable () throws -> Data, ticket: UInt64)? {
        state.withLock {
            isScheduled = false
            guard let encode = pending else { return nil }
            unreadSource = pendingSource
            pending = nil
            pendingSource = nil
            let ticket = nextTicket
            nextTicket += 1
            unsettled[ticket] = taken
            taken = changes
            return (encode, ticket)
        }
    }

    /// Writes a taken change (unless the slot is kept). Call with `ioLock` held; returns
    /// the error to report once it is let go of.
    private func write(_ encode: @Sendable () throws -> Data) -> PersistenceError? {
        guard !state.withLock({ isKept }) else { return nil }
        do {
            try storage.write(encode(), to: name)
            return nil
        } catch {
            return PersistenceError(
                slot: name, kind: .writeFailed, reason: Self.describe(error), underlyingError: error)
        }
    }

    /// What a file storage noticed while writing (it replaced another program's version).
    private func notices() -> [PersistenceError] {
        (storage as? FileStorage)?.takeNotices(for: name) ?? []
    }

    private func report(_ errors: [PersistenceError]) {
        guard !errors.isEmpty else { return }
        SlotRegistry.whileReporting {
            for error in errors {
                storage.report(error)
            }
        }
    }

    /// The changes a write took are written or reported.
    private func settle(_ ticket: UInt64) {
        state.withLock {
            unsettled[ticket] = nil
            settled = unsettled.values.min() ?? taken
            state.broadcast()
        }
    }

    /// A cause in words, for a report: a file storage's own description (operation, file,
    /// errno), what a decoder rejected and where.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            context.underlyingError.map { "not valid JSON: \(describe($0))" }
                ?? "\(place(context)): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            "\(place(context)): no '\(key.stringValue)' where the type expects one"
        case DecodingError.typeMismatch(_, let context):
            "\(place(context)): \(context.debugDescription)"
        case DecodingError.valueNotFound(_, let context):
            "\(place(context)): \(context.debugDescription)"
        case let error as POSIXError:
            SystemError.describe(error.code)
        case let error as CocoaError:
            if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
                underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
            {
                (error.filePath.map { "\($0): " } ?? "") + SystemError.describe(code)
            } else {
                (error.filePath.map { "\($0): " } ?? "") + error.localizedDescription
            }
        default:
            "\(error)"
        }
    }

    private static func place(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty
            ? "at the top level" : "at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
    }
}
