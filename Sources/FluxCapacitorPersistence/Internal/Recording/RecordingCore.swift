import Dispatch
import FluxCapacitor
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two halves of a ``DispatchFileRecorder``: the dispatcher records each state on a
/// `DispatchTape` (FluxCapacitor's narrower hook than the dispatch log: the state, as its
/// own type, appended under the tape's lock, in code specialized for it), and tells this
/// core, as the tape's listener, of what the tape cannot do by itself (wake the writer,
/// write down the stores' values at a checkpoint or when a store is made, note a type not
/// recorded); the writer, on `queue`, takes what waits on the tape, encodes it (each type's
/// states in one `JSONEncoder` call) and writes it in one `pwrite`, and hands what went
/// wrong to `reports`, a queue of its own, where `onError` runs.
///
/// **Prompt when idle, batched when busy.** A state that finds the writer idle wakes it at
/// once (a dispatch source: no allocation); states that come while it writes wait, and it
/// takes them all when it is done. So a process killed at any moment loses at most what
/// came during the last write, and a burst costs one write.
///
/// **Checkpoints.** The file starts with the values of every recorded store (a checkpoint,
/// taken when recording starts), and the tape asks for a new checkpoint before every
/// `max(limit / 2, 1)`-th step, and whenever the file asks for one (it was made again, or
/// the disk was full), so that the ring can cut the file at a checkpoint and a replay of
/// it always starts where its first step did. A store made while recording is written down
/// too (a values line before the next step). Values are read on the dispatching thread
/// (copies, taking each value's lock) and encoded by the writer.
///
/// ## Waits
///
/// `flush()` and `stop()` wait for `queue` (`queue.sync`), which runs no handler of the
/// app's, only the writing (and the recorded values' `Encodable` conformances): so they may
/// wait from a dispatch, which is where `onError` could otherwise wait for them. They wait
/// for `reports` (so that `onError` has heard every error when they return) only from a
/// thread that holds no dispatcher's mutex and is not `onError` itself: `onError` may
/// dispatch, and would then wait for the dispatching thread. A recorder let go of inside a
/// dispatch waits for nothing: its deinit hands the finishing to `queue`.
final class RecordingCore: DispatchTapeListener, @unchecked Sendable {
    // Sendable: the tape's lock guards `snapshots`, `counts`, `seenUnregistered` and
    // `unregistered` (`withTapeLock`); `closing` guards `isFileClosed`. `file`,
    // `recordingLock`, `encoder`, the spares, the batch and the reported flags are the
    // writer's, used on `queue` only (serial). What
    // crosses from the dispatching thread to the writer is of recorded types, which are
    // `Sendable` (`RecordedType.state` requires it), and values of `Variable`s, which are too.

    typealias Entry = DispatchTape.Entry

    /// The values of a store, by property name; `nil` if no store of the type was alive.
    struct Snapshot: Sendable {
        var values: [(label: String, value: any Sendable)]?
    }

    let url: URL
    private let types: [DispatchFileRecorder.RecordedType]
    private let storeIdentifiers: [ObjectIdentifier]
    /// Each type's name, as a JSON string.
    private let jsonNames: [[UInt8]]
    /// What follows a step's time: `","type":"Favorite","state":` (the time's closing quote
    /// first), for each type.
    private let stepMiddles: [[UInt8]]
    /// The same for a state no store received: `","type":"Favorite","dropped":true,"state":`.
    private let droppedStepMiddles: [[UInt8]]
    private let capacity: Int
    private let onError: @Sendable (DispatchRecordingError) -> Void
    private let queue = DispatchQueue(label: "FluxCapacitor.recorder", qos: .utility)
    private let queueKey = DispatchSpecificKey<Void>()
    /// Wakes the writer: coalesced, and allocates nothing on the dispatching thread.
    private let wake: any DispatchSourceUserDataOr
    /// Where `onError` runs, in the order the writer found the errors.
    private let reports = DispatchQueue(label: "FluxCapacitor.recorder.reports", qos: .utility)
    private let reportsKey = DispatchSpecificKey<Void>()
    /// Guards `isFileClosed`, set once the file is closed and its lock let go of: a `stop()`
    /// racing the one that closed the tape waits for it.
    private let closing = NSCondition()
    private var isFileClosed = false
    /// Held, not weakly (a weak reference gives the dispatcher a side table, and every
    /// retain of it in a dispatch the slow path); the dispatcher holds the tape, which
    /// holds this core weakly, until the recorder finishes or goes.
    private let dispatcher: Dispatcher
    let tape: DispatchTape

    // Guarded by the tape's lock.
    private var snapshots: [Snapshot] = []
    private var counts = DispatchFileRecorder.Statistics()
    private var seenUnregistered: Set<ObjectIdentifier> = []
    /// Types not recorded, heard for the first time, for the writer to report.
    private var unregistered: [Any.Type] = []

    // The writer's own, on `queue`.
    private let file: RecordingFile
    private let recordingLock: RecordingLock
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private var spareEntries: [Entry] = []
    private var spareSnapshots: [Snapshot] = []
    private var batch = RecordingLines()
    private var reportedEncodingFailures: Set<Int> = []
    private var reportedFallingBehind = false
    private var reportedEvents: Set<String> = []
    private var isWriteFailing = false

    /// Starts recording: takes the file's lock (throwing if another recorder has it) and
    /// makes the file; `start(hearing:)` then starts hearing the dispatcher.
    init(
        url: URL, limit: Int, types: [DispatchFileRecorder.RecordedType], bufferCapacity: Int,
        dispatcher: Dispatcher, onError: @escaping @Sendable (DispatchRecordingError) -> Void
    ) throws(DispatchRecordingError) {
        // The lock first: refused, nothing else is made (a dispatch source let go of before
        // it is activated stops the process).
        let recordingLock = RecordingLock(forRecordingAt: url.path)
        do {
            try recordingLock.lock()
        } catch let refusal as RecordingLock.Refusal {
            throw Self.refused(refusal, url)
        } catch {
            // The folder cannot be made: neither can the file, which the writer reports and
            // tries again; the lock is taken when it can be.
        }
        self.recordingLock = recordingLock
        self.url = url
        self.types = types
        storeIdentifiers = types.map(\.storeIdentifier)
        jsonNames = types.map { RecordingFormat.jsonString($0.name) }
        stepMiddles = types.map {
            Array(#","type":"#.utf8) + RecordingFormat.jsonString($0.name) + Array(#","state":"#.utf8)
        }
        droppedStepMiddles = types.map {
            Array(#","type":"#.utf8) + RecordingFormat.jsonString($0.name) + Array(#","dropped":true,"state":"#.utf8)
        }
        capacity = bufferCapacity
        self.onError = onError
        self.dispatcher = dispatcher
        file = RecordingFile(path: url.path, limit: limit, header: RecordingFormat.header(types: types.map(\.name)))
        wake = DispatchSource.makeUserDataOrSource(queue: queue)
        tape = DispatchTape(
            identifiers: types.map(\.identifier), buffers: types.map { $0.makeBuffer(bufferCapacity) },
            capacity: bufferCapacity, checkpointInterval: limit / 2, listener: Unstarted())
        // Reserved, so that taking a batch allocates nothing.
        spareEntries.reserveCapacity(bufferCapacity)
        queue.setSpecific(key: queueKey, value: ())
        reports.setSpecific(key: reportsKey, value: ())

        do {
            try file.start()
        } catch {
            // Reported (once: not again while writing goes on failing); the first write tries again.
            isWriteFailing = true
            report([failure(Self.describe(error) + "; the recorder tries again at the next dispatch", error)])
        }
        // Held by the source until `finish` cancels it (not weakly: the writer must finish
        // what waits even when the recorder was let go of).
        wake.setEventHandler { self.write() }
        wake.activate()
    }

    /// Starts hearing `dispatcher`, with a checkpoint of its live stores before step 1.
    func start(hearing dispatcher: Dispatcher) -> Dust {
        tape.listener = self
        return dispatcher.addTape(tape) {
            takeCheckpoint(before: 1, time: DispatchTape.now())
        }
    }

    private func refused(_ refusal: RecordingLock.Refusal) -> DispatchRecordingError {
        Self.refused(refusal, url)
    }

    private static func refused(_ refusal: RecordingLock.Refusal, _ url: URL) -> DispatchRecordingError {
        let who =
            switch refusal {
            case .heldInThisProcess: "another recorder of this process"
            case .heldByAnotherProcess: "a recorder of another process"
            }
        return DispatchRecordingError(
            file: url,
            reason: "\(who) is recording to this file, so this one does not start (two recorders on one file would "
                + "interleave two sessions); stop the other one first, or record to another file")
    }

    // MARK: The tape's listener (the dispatching thread, holding the dispatcher's mutex)

    func wakeWriter() {
        wake.or(data: 1)
    }

    func takeCheckpoint(before sequence: UInt64, time: Double) {
        let checkpoint = types.map { type in Snapshot(values: type.liveStore(dispatcher).map(Self.values(of:))) }
        let wakes = tape.withLock {
            tape.appendValuesLocked(
                checkpoint.indices.map { index in
                    Entry(
                        sequence: sequence, time: time, type: Int32(index),
                        kind: index == 0 ? .checkpointStart : .checkpointValues)
                })
            snapshots.append(contentsOf: checkpoint)
            return tape.wakesWriterLocked()
        }
        if wakes {
            wake.or(data: 1)
        }
    }

    func heardUnrecorded(_ stateType: Any.Type) {
        let wakes = tape.withLock {
            counts.notRegistered += 1
            guard seenUnregistered.insert(ObjectIdentifier(stateType)).inserted else { return false }
            unregistered.append(stateType)
            return tape.wakesWriterLocked()
        }
        if wakes {
            wake.or(data: 1)
        }
    }

    func didMake(_ store: any Storable, before sequence: UInt64) {
        guard let index = storeIdentifiers.firstIndex(of: ObjectIdentifier(type(of: store))) else {
            return
        }
        let snapshot = Snapshot(values: Self.values(of: store))
        let time = DispatchTape.now()
        let wakes = tape.withLock {
            tape.appendValuesLocked([Entry(sequence: sequence, time: time, type: Int32(index), kind: .madeStoreValues)])
            snapshots.append(snapshot)
            return tape.wakesWriterLocked()
        }
        if wakes {
            wake.or(data: 1)
        }
    }

    private static func values(of store: AnyObject) -> [(label: String, value: any Sendable)] {
        StoreVariables.of(store).compactMap { label, variable in variable.currentValue.map { (label, $0.value) } }
    }

    // MARK: Either thread

    var statistics: DispatchFileRecorder.Statistics {
        let (dropped, waiting) = tape.counts
        var statistics = tape.withLock { counts }
        statistics.droppedWhileBehind = dropped
        statistics.waiting = waiting
        return statistics
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

    /// Stops recording, writes what is pending, closes the file and lets go of its lock;
    /// the first call only. `waiting`: as `flush()`; else (a recorder let go of inside a
    /// dispatch) the writer does it later, and this returns at once.
    func finish(waiting: Bool) {
        guard tape.close() else {
            // Stopped already, maybe by another thread this moment: wait as that stop does,
            // so that no `stop()` returns with the file still open and locked. (Not on the
            // writer queue, where the close may be waiting behind this very call.)
            if waiting, DispatchQueue.getSpecific(key: queueKey) == nil {
                closing.withLock {
                    while !isFileClosed {
                        closing.wait()
                    }
                }
                waitForReports()
            }
            return
        }
        let close: @Sendable () -> Void = {
            self.write()
            self.sync()
            self.file.close()
            self.recordingLock.unlock()
            self.wake.cancel()
            self.markClosed()
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

    /// Writes what is waiting, batch after batch, until nothing is; reports what went wrong.
    private func write() {
        while true {
            // The spares, uniquely referenced, so that appending to them as the tape's
            // entries and `snapshots` allocates nothing.
            var taken: [Entry] = []
            swap(&taken, &spareEntries)
            var takenSnapshots: [Snapshot] = []
            swap(&takenSnapshots, &spareSnapshots)
            var newTypes: [Any.Type] = []
            let dropped = tape.take(into: &taken) {
                swap(&takenSnapshots, &snapshots)
                swap(&newTypes, &unregistered)
                return !newTypes.isEmpty
            }
            if taken.isEmpty && newTypes.isEmpty {
                spareEntries = taken
                spareSnapshots = takenSnapshots
                // Idle: the lines of the last batch are let go of, so that a burst leaves no
                // memory behind (the next batch allocates its own).
                batch = RecordingLines()
                return
            }
            write(taken, takenSnapshots, newTypes: newTypes, dropped: dropped)
            taken.removeAll(keepingCapacity: true)
            takenSnapshots.removeAll(keepingCapacity: true)
            spareEntries = taken
            spareSnapshots = takenSnapshots
        }
    }

    private func write(_ taken: [Entry], _ takenSnapshots: [Snapshot], newTypes: [Any.Type], dropped: Int) {
        var errors: [DispatchRecordingError] = []
        for stateType in newTypes {
            errors.append(
                failure(
                    "a \(String(reflecting: stateType)) state was dispatched, which is not one of the recorded types: "
                        + "its dispatches are counted (statistics.notRegistered), not recorded (reported once)"))
        }
        if dropped > 0, !reportedFallingBehind {
            reportedFallingBehind = true
            errors.append(
                failure(
                    "the recorder fell behind: \(dropped) dispatch(es) came while \(capacity) waited to be written "
                        + "(bufferCapacity), and were not recorded; a replay stops at the gap (reported once; see "
                        + "statistics.droppedWhileBehind)"))
        }

        // Each type's states, encoded in one call.
        let encoded = types.indices.map { index in types[index].encode(tape.buffers[index], encoder) }
        var cursors = Array(repeating: 0, count: types.count)
        var snapshotIndex = 0
        var notEncodable = 0
        var steps = 0
        var lines = RecordingLines()
        swap(&lines, &batch)
        defer { swap(&lines, &batch) }
        lines.removeAll()
        for entry in taken {
            let type = Int(entry.type)
            switch entry.kind {
            case .step, .droppedStep:
                steps += 1
                let range = encoded[type].ranges[cursors[type]]
                guard encoded[type].failed.isEmpty || !encoded[type].failed.contains(cursors[type]) else {
                    cursors[type] += 1
                    notEncodable += 1
                    if reportedEncodingFailures.insert(type).inserted {
                        let error = encoded[type].firstError
                        errors.append(
                            failure(
                                "a \(types[type].name) state could not be encoded, so it is not recorded, and a replay "
                                    + "stops at the gap (reported once): "
                                    + Self.describe(error ?? CancellationError()),
                                error))
                    }
                    continue
                }
                cursors[type] += 1
                lines.appendStepLine(
                    sequence: entry.sequence, seconds: entry.time,
                    middle: entry.kind == .droppedStep ? droppedStepMiddles[type] : stepMiddles[type],
                    state: encoded[type].bytes[range])
            case .madeStoreValues, .checkpointStart, .checkpointValues:
                appendLineStart(entry, to: &lines)
                if entry.kind != .madeStoreValues {
                    lines.append(#","checkpoint":true"#)
                }
                appendValues(takenSnapshots[snapshotIndex].values, to: &lines)
                snapshotIndex += 1
                lines.endLine(isStep: false, startsCheckpoint: entry.kind == .checkpointStart)
            }
        }

        var written = 0
        var notWritten = 0
        do {
            try ensureLocked()
            let appended = try file.append(lines.bytes, lines.lines)
            written = appended.written
            notWritten = steps - notEncodable - written
            isWriteFailing = false
            if appended.events.contains(.remade) {
                // Every time: the lock file went with the folder, and a file remade without it
                // would let a second recorder in (the report is made once).
                relock(&errors)
            }
            for event in appended.events where reportedEvents.insert("\(event)").inserted {
                switch event {
                case .remade:
                    errors.append(
                        failure(
                            "the file was gone (deleted, or its folder was) while recording; made it again, starting "
                                + "from the stores' values at the next dispatch (reported once)"))
                case .madeRoom:
                    errors.append(
                        failure("the disk is full; dropped the oldest lines to keep the newest (reported once)"))
                }
            }
        } catch let refusal as DispatchRecordingError {
            // Another recorder took the file before this one could lock it: recording
            // stopped (`ensureLocked`). Said whatever failed before, since nothing is tried
            // again.
            notWritten = steps - notEncodable
            errors.append(refusal)
        } catch {
            notWritten = steps - notEncodable
            if !isWriteFailing {
                isWriteFailing = true
                errors.append(
                    failure(
                        "\(Self.describe(error)); \(notWritten) dispatch(es) not recorded, later ones are tried again",
                        error))
            }
        }
        if file.needsCheckpoint {
            tape.askForCheckpoint()
        }
        tape.withLock {
            counts.recorded += written
            counts.notWritten += notWritten
            counts.notEncodable += notEncodable
        }
        report(errors)
    }

    /// `{"seq":…,"time":"…","type":"…"` of `entry`'s line.
    private func appendLineStart(_ entry: Entry, to lines: inout RecordingLines) {
        lines.appendLineStart(sequence: entry.sequence, seconds: entry.time)
        lines.append(#","type":"#)
        lines.append(jsonNames[Int(entry.type)])
    }

    /// `,"values":{…}` (and `,"unrecorded":{…}` for values that are not `Encodable`), or
    /// `,"values":null`.
    private func appendValues(_ values: [(label: String, value: any Sendable)]?, to lines: inout RecordingLines) {
        guard let values else {
            lines.append(#","values":null"#)
            return
        }
        var unrecorded: [(String, String)] = []
        lines.append(#","values":{"#)
        var first = true
        for (label, value) in values {
            guard let encodable = value as? any Encodable, let data = try? encoder.encode(encodable) else {
                unrecorded.append((label, RecordingFormat.describe(value)))
                continue
            }
            if !first { lines.append(UInt8(ascii: ",")) }
            first = false
            lines.append(RecordingFormat.jsonString(label))
            lines.append(UInt8(ascii: ":"))
            lines.append([UInt8](data))
        }
        lines.append(UInt8(ascii: "}"))
        guard !unrecorded.isEmpty else { return }
        lines.append(#","unrecorded":{"#)
        for (index, (label, text)) in unrecorded.enumerated() {
            if index > 0 { lines.append(UInt8(ascii: ",")) }
            lines.append(RecordingFormat.jsonString(label))
            lines.append(UInt8(ascii: ":"))
            lines.append(RecordingFormat.jsonString(text))
        }
        lines.append(UInt8(ascii: "}"))
    }

    /// Takes the file's lock if this recorder does not hold it yet (its folder could not be
    /// made when recording started).
    private func ensureLocked() throws {
        guard !recordingLock.isHeld else { return }
        do {
            try recordingLock.lock()
        } catch let refusal as RecordingLock.Refusal {
            stop(refused(refusal))
            throw refused(refusal)
        }
    }

    /// Takes the lock again after the file's folder was gone (the lock file went with it).
    private func relock(_ errors: inout [DispatchRecordingError]) {
        do {
            try recordingLock.lock()
        } catch let refusal as RecordingLock.Refusal {
            let error = refused(refusal)
            stop(error)
            errors.append(error)
        } catch {
            // The folder went again: the next write finds it gone and makes it again.
        }
    }

    /// Stops recording because another recorder took the file (on the writer queue).
    private func stop(_ error: DispatchRecordingError) {
        guard tape.close() else { return }
        file.close()
        recordingLock.unlock()
        // Lets go of the source's handler, which holds this core.
        wake.cancel()
        markClosed()
    }

    /// The file is closed and its lock let go of: wakes the `stop()`s waiting for it.
    private func markClosed() {
        closing.withLock {
            isFileClosed = true
            closing.broadcast()
        }
    }

    /// Flushes the file to disk, reporting a failure.
    private func sync() {
        do {
            try file.sync()
        } catch {
            report([failure(Self.describe(error), error)])
        }
    }

    /// Hands `errors` to `onError`, on `reports`: never on `queue`, which `flush()` and
    /// `stop()` wait for from inside dispatches.
    private func report(_ errors: [DispatchRecordingError]) {
        guard !errors.isEmpty else { return }
        reports.async { [onError] in
            for error in errors {
                onError(error)
            }
        }
    }

    private func failure(_ reason: String, _ underlyingError: (any Error)? = nil) -> DispatchRecordingError {
        DispatchRecordingError(file: url, reason: reason, underlyingError: underlyingError)
    }

    /// An error in words: a file operation's own description, an encoding error's context.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as FileStorageError where failure.isFull:
            "the disk is full (\(failure))"
        case EncodingError.invalidValue(let value, let context):
            (context.codingPath.isEmpty ? "" : "at \(context.codingPath.map(\.stringValue).joined(separator: ".")): ")
                + "\(context.debugDescription) (\(value))"
        default:
            "\(error)"
        }
    }
}

/// A type's states encoded, in one array: each state's range of `bytes`, and the indices of
/// the states whose encoding threw (their ranges are empty).
@usableFromInline
struct EncodedStates {
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    var failed: Set<Int> = []
    var firstError: (any Error)?

    /// No state.
    @usableFromInline
    init() {}

    /// `states` encoded by `encoder`: as one array, cut at its elements; one by one if that
    /// throws, to find the ones that do.
    @usableFromInline
    static func encoding<State: Encodable>(_ states: [State], with encoder: JSONEncoder) -> EncodedStates {
        var encoded = EncodedStates()
        if let data = try? encoder.encode(states) {
            encoded.bytes = data.withUnsafeBytes { Array($0) }
            if let ranges = RecordingFormat.elements(ofArray: encoded.bytes, expectedCount: states.count),
                ranges.count == states.count
            {
                encoded.ranges = ranges
                return encoded
            }
            encoded.bytes.removeAll()
        }
        for (index, state) in states.enumerated() {
            do {
                let data = try encoder.encode(state)
                let start = encoded.bytes.count
                encoded.bytes.append(contentsOf: data)
                encoded.ranges.append(start..<encoded.bytes.count)
            } catch {
                encoded.ranges.append(0..<0)
                encoded.failed.insert(index)
                encoded.firstError = encoded.firstError ?? error
            }
        }
        return encoded
    }
}

/// The listener of a tape until its recorder starts.
private final class Unstarted: DispatchTapeListener {
    func wakeWriter() {}
    func takeCheckpoint(before sequence: UInt64, time: Double) {}
    func heardUnrecorded(_ type: Any.Type) {}
    func didMake(_ store: any Storable, before sequence: UInt64) {}
}

// Used on the writer's queue only; it holds an error, which need not be Sendable.
@available(*, unavailable)
extension EncodedStates: Sendable {}
