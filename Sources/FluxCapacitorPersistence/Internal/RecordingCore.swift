import Dispatch
import FluxCapacitor
import Foundation

/// The two halves of a ``DispatchFileRecorder``: `take(_:)`, on the dispatching thread,
/// puts a state in `pending` under `lock`; the writer, on `queue`, takes what is pending,
/// encodes it and writes it, and hands what went wrong to `reports`, a queue of its own,
/// where `onError` runs.
///
/// ## Waits
///
/// `flush()` and `finish()` wait for `queue` (`queue.sync`), which runs no handler of the
/// app's, only the writing (and the recorded states' `Encodable` conformances): so they may
/// wait from a dispatch, which is where `onError` could otherwise wait for them. They wait
/// for `reports` (so that `onError` has heard every error when they return) only from a
/// thread that holds no dispatcher's mutex and is not `onError` itself: `onError` may
/// dispatch, and would then wait for the dispatching thread. A recorder let go of inside a
/// dispatch waits for nothing: its deinit hands the finishing to `queue`.
final class RecordingCore: @unchecked Sendable {
    // Sendable: `lock` guards `pending`, `sequence`, `counts`, `isScheduled`,
    // `isUrgent`, `seenUnregistered`, `unregistered` and `isFinished`. `file`, `encoder`,
    // `spare`, `reportedEncodingFailures`, `reportedFallingBehind` and `isWriteFailing` are
    // used on `queue` only (the writer), which is serial. The states in `pending` are of recorded types, which are
    // Sendable (`RecordedType.state` requires it): they cross to the queue.

    /// A state heard, waiting for the writer.
    struct Pending {
        let sequence: UInt64
        /// Seconds since 1970, UTC.
        let time: Double
        let type: Int
        let state: any DispatchState
    }

    private let types: [DispatchFileRecorder.RecordedType]
    /// The identifiers of `types`, in the same order: searched from the dispatching thread.
    private let identifiers: [ObjectIdentifier]
    /// Each type's name, as a JSON string.
    private let jsonNames: [Data]
    private let capacity: Int
    private let delay: DispatchTimeInterval
    private let onError: @Sendable (PersistenceError) -> Void
    private let queue = DispatchQueue(label: "FluxCapacitor.recorder", qos: .utility)
    private let queueKey = DispatchSpecificKey<Void>()
    /// Where `onError` runs, in the order the writer found the errors.
    private let reports = DispatchQueue(label: "FluxCapacitor.recorder.reports", qos: .utility)
    private let reportsKey = DispatchSpecificKey<Void>()

    private let lock = NSLock()
    private var pending: [Pending] = []
    private var sequence: UInt64 = 0
    private var counts = DispatchFileRecorder.Statistics()
    private var isScheduled = false
    private var isUrgent = false
    private var isFinished = false
    private var seenUnregistered: Set<ObjectIdentifier> = []
    /// Types not recorded, heard for the first time, for the writer to report.
    private var unregistered: [any DispatchState.Type] = []

    // The writer's own, on `queue`.
    private let file: RecordingFile
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private var spare: [Pending] = []
    private var reportedEncodingFailures: Set<Int> = []
    private var reportedFallingBehind = false
    private var isWriteFailing = false

    init(
        file: RecordingFile, types: [DispatchFileRecorder.RecordedType], bufferCapacity: Int,
        writeInterval: Duration, onError: @escaping @Sendable (PersistenceError) -> Void
    ) {
        self.file = file
        self.types = types
        identifiers = types.map(\.identifier)
        let names = JSONEncoder()
        names.outputFormatting = [.withoutEscapingSlashes]
        jsonNames = types.map { (try? names.encode($0.name)) ?? Data(#""?""#.utf8) }
        capacity = bufferCapacity
        delay = PersistedSlot.dispatchDelay(writeInterval) ?? .seconds(1)
        self.onError = onError
        // Reserved, so that taking a state allocates nothing.
        pending.reserveCapacity(bufferCapacity)
        spare.reserveCapacity(bufferCapacity)
        queue.setSpecific(key: queueKey, value: ())
        reports.setSpecific(key: reportsKey, value: ())
    }

    // MARK: The dispatching thread

    /// Takes a dispatched state: its type's number, the time and the next sequence number,
    /// into `pending`. Never waits for the writer, which the dispatcher's lock may be held for.
    func take(_ state: any DispatchState) {
        let identifier = ObjectIdentifier(type(of: state))
        guard let type = identifiers.firstIndex(of: identifier) else {
            takeUnregistered(state)
            return
        }
        let time = Date().timeIntervalSince1970
        lock.lock()
        sequence += 1
        guard pending.count < capacity, !isFinished else {
            if !isFinished {
                counts.droppedWhileBehind += 1
            }
            lock.unlock()
            return
        }
        pending.append(Pending(sequence: sequence, time: time, type: type, state: state))
        let schedule = !isScheduled
        isScheduled = true
        let urgent = !isUrgent && pending.count >= capacity / 2
        if urgent {
            isUrgent = true
        }
        lock.unlock()
        if schedule {
            queue.asyncAfter(deadline: .now() + delay) { self.write() }
        }
        if urgent {
            queue.async { self.write() }
        }
    }

    private func takeUnregistered(_ state: any DispatchState) {
        let stateType = type(of: state)
        let schedule: Bool = lock.withLock {
            guard !isFinished else { return false }
            counts.notRegistered += 1
            guard seenUnregistered.insert(ObjectIdentifier(stateType)).inserted else { return false }
            unregistered.append(stateType)
            return true
        }
        if schedule {
            queue.async { self.write() }
        }
    }

    // MARK: Either thread

    var statistics: DispatchFileRecorder.Statistics {
        lock.withLock {
            var statistics = counts
            statistics.waiting = pending.count
            return statistics
        }
    }

    /// Writes what is pending and flushes the file to disk; returns once that is done and,
    /// unless that could wait for this thread, once `onError` has heard what went wrong.
    func flush() {
        onQueue {
            write()
            sync()
        }
        waitForReports()
    }

    /// Stops recording, writes what is pending and closes the file; the first call only.
    /// `waiting`: as `flush()`; else (a recorder let go of inside a dispatch) the writer
    /// does it later, and this returns at once.
    func finish(waiting: Bool) {
        let first: Bool = lock.withLock {
            defer { isFinished = true }
            return !isFinished
        }
        guard first else { return }
        let close: @Sendable () -> Void = {
            self.write()
            self.sync()
            self.file.close()
        }
        guard waiting else {
            queue.async(execute: close)
            return
        }
        onQueue(close)
        waitForReports()
    }

    /// Runs `body` on `queue`, and returns once it has run.
    private func onQueue(_ body: () -> Void) {
        if DispatchQueue.getSpecific(key: queueKey) != nil {
            body()
        } else {
            queue.sync(execute: body)
        }
    }

    /// Waits until `onError` has heard every error found so far, unless that could wait for
    /// this thread: in `onError` itself, or holding a dispatcher's mutex (`onError` may
    /// dispatch to that dispatcher).
    private func waitForReports() {
        guard DispatchQueue.getSpecific(key: reportsKey) == nil, !Dispatcher.isDispatchingOnThisThread else {
            return
        }
        reports.sync {}
    }

    // MARK: The writer, on `queue`

    /// Writes what is pending and reports what went wrong since the last write.
    private func write() {
        // The spare buffer, uniquely referenced, so that appending to it as `pending`
        // allocates nothing.
        var batch: [Pending] = []
        swap(&batch, &spare)
        let (dropped, newTypes) = lock.withLock {
            swap(&batch, &pending)
            isScheduled = false
            isUrgent = false
            defer { unregistered.removeAll() }
            return (counts.droppedWhileBehind, unregistered)
        }
        var errors: [PersistenceError] = []
        for stateType in newTypes {
            errors.append(
                error(
                    reason: "\(String(reflecting: stateType)) is not one of the recorded types; its dispatches are "
                        + "counted, not recorded (reported once)"))
        }
        if dropped > 0, !reportedFallingBehind {
            reportedFallingBehind = true
            errors.append(
                error(
                    reason: "the recorder fell behind: \(dropped) dispatch(es) came while \(capacity) waited to be "
                        + "written, and were not recorded (reported once; see statistics.droppedWhileBehind)"))
        }

        var lines: [Data] = []
        lines.reserveCapacity(batch.count)
        var notEncodable = 0
        for entry in batch {
            do {
                lines.append(try line(for: entry))
            } catch {
                notEncodable += 1
                if reportedEncodingFailures.insert(entry.type).inserted {
                    errors.append(
                        self.error(
                            reason: "a \(types[entry.type].name) state could not be encoded, so it is not recorded "
                                + "(reported once): \(PersistedSlot.describe(error))",
                            underlyingError: error))
                }
            }
        }
        batch.removeAll(keepingCapacity: true)
        spare = batch

        var written = 0
        var notWritten = 0
        do {
            try file.append(lines)
            written = lines.count
            isWriteFailing = false
        } catch {
            notWritten = lines.count
            if !isWriteFailing {
                isWriteFailing = true
                errors.append(
                    self.error(
                        reason: "\(PersistedSlot.describe(error)); \(lines.count) dispatch(es) not recorded, later "
                            + "ones are tried again",
                        underlyingError: error))
            }
        }
        lock.withLock {
            counts.recorded += written
            counts.notWritten += notWritten
            counts.notEncodable += notEncodable
        }
        report(errors)
    }

    /// Flushes the file to disk, reporting a failure.
    private func sync() {
        do {
            try file.sync()
        } catch {
            report([self.error(reason: PersistedSlot.describe(error), underlyingError: error)])
        }
    }

    /// Hands `errors` to `onError`, on `reports`: never on `queue`, which `flush()` and
    /// `finish()` wait for from inside dispatches.
    private func report(_ errors: [PersistenceError]) {
        guard !errors.isEmpty else { return }
        reports.async { [onError] in
            for error in errors {
                onError(error)
            }
        }
    }

    private func error(reason: String, underlyingError: (any Error)? = nil) -> PersistenceError {
        PersistenceError(
            slot: (file.path as NSString).lastPathComponent, kind: .writeFailed, reason: reason,
            underlyingError: underlyingError)
    }

    /// `{"seq":…,"time":"…","type":"…","state":…}` and a newline.
    private func line(for entry: Pending) throws -> Data {
        let state = try types[entry.type].encode(entry.state, encoder)
        var line = Data(capacity: state.count + jsonNames[entry.type].count + 64)
        line.append(contentsOf: #"{"seq":"#.utf8)
        line.append(contentsOf: String(entry.sequence).utf8)
        line.append(contentsOf: #","time":""#.utf8)
        line.append(contentsOf: Self.timestamp(entry.time).utf8)
        line.append(contentsOf: #"","type":"#.utf8)
        line.append(jsonNames[entry.type])
        line.append(contentsOf: #","state":"#.utf8)
        line.append(state)
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    /// `2026-11-26T05:36:16.123Z` for `seconds` since 1970: the civil date computed from the
    /// count of days (Howard Hinnant's `civil_from_days`), with no calendar or C library call.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int64((seconds * 1_000).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainderRoundingDown(dividingBy: 86_400_000)
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let hour = dayMilliseconds / 3_600_000
        let minute = dayMilliseconds / 60_000 % 60
        let second = dayMilliseconds / 1_000 % 60
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(hour, 2)):\(padded(minute, 2)):"
            + "\(padded(second, 2)).\(padded(dayMilliseconds % 1_000, 3))Z"
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity, and the remainder that goes with it
    /// (never negative for a positive divisor).
    fileprivate func quotientAndRemainderRoundingDown(dividingBy divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
