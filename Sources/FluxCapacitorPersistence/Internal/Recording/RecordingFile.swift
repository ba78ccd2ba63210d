import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a ``DispatchFileRecorder`` writes: a header line, then the lines of the
/// recording (see `RecordingFormat`), never more than `limit` steps, and always starting
/// with a checkpoint, so that a replay of the file starts where its first step did. Used
/// from the recorder's writer queue only.
///
/// **Starting.** `start()` moves a file already at `path` aside, as
/// `<name>.previous.<extension>` (replacing an older one), so that the recording of the
/// session before (one that ended in a crash, say) survives one more launch; removes the
/// temporary files of rewrites a crash interrupted; and makes a new file, readable by its
/// owner only, with the header.
///
/// **Appending.** A batch goes to the end of the file in one `pwrite`. A write that fails
/// halfway is cut back to the last whole line, so the file only ever ends in the middle of a
/// line if the process or the machine stopped during a write: a replay reads that line as
/// truncated.
///
/// **The ring.** When the steps would pass `limit`, the file is rewritten from its earliest
/// checkpoint that leaves at most `limit` steps (the recorder takes one every `limit / 2`
/// steps): written to a temporary file beside it, flushed to disk and renamed over it, as
/// ``FileStorage`` writes a slot, so the file is the old version or the new one whenever the
/// process stops, and each line is rewritten about once.
///
/// **Recovering.** Before each batch the file is checked against the path: if it was
/// deleted, or its folder was (and made again, or not), a new file is made there, which
/// starts at the next checkpoint (`needsCheckpoint` asks the recorder for one). A full disk
/// (`ENOSPC`, `EDQUOT`, `EFBIG`) makes room by dropping the oldest lines: the file is
/// rewritten in place from its newest checkpoint (in place, because a full disk takes no
/// temporary file), or, if it has none newer than its start, starts again at the next one.
/// So the newest lines are kept, never the oldest.
final class RecordingFile {
    /// A line of a batch: where it ends in the batch's bytes, and what it is.
    struct Line {
        var end: Int
        var isStep: Bool
        /// The first line of a checkpoint: a file may start here.
        var startsCheckpoint: Bool
    }

    /// What `append` did with a batch's steps.
    struct Appended {
        var written = 0
        /// Not written because no checkpoint came before them in a file that starts again.
        var beforeCheckpoint = 0
        /// What happened to the file that the recorder reports (once each, by its wording).
        var events: [Event] = []
    }

    enum Event: Equatable {
        /// The file or its folder was gone; a new one was made.
        case remade
        /// The disk was full; the oldest lines were dropped.
        case madeRoom
    }

    let path: String
    let limit: Int
    let header: Data
    private var descriptor: Int32 = -1
    /// The device and inode of the open file, to see whether it is still the one at `path`.
    private var identity: (device: UInt64, inode: UInt64)?
    /// Where a checkpoint starts, as a byte offset, and how many steps come before it. The
    /// file keeps no more about its lines: a cut is always at a checkpoint, and a recorder
    /// takes one every `limit / 2` steps, so this holds a few entries whatever the length of
    /// the session.
    private typealias Checkpoint = (offset: Int, stepsBefore: Int)
    /// The file's checkpoints, oldest first; empty for a file with no line yet.
    private var checkpoints: [Checkpoint] = []
    private var stepCount = 0
    /// The file's length in bytes.
    private var size = 0
    /// Whether `start()` made the file: then a closed file is opened again, never started
    /// again (which would move it aside over the session before's).
    private var hasStarted = false
    /// Set when the file needs a checkpoint to go on from (it was made again, or the disk was
    /// full): the recorder takes one at its next dispatch.
    private(set) var needsCheckpoint = false

    init(path: String, limit: Int, header: Data) {
        self.path = path
        self.limit = max(limit, 1)
        self.header = header
    }

    deinit {
        close()
    }

    /// How many steps the file holds.
    var steps: Int { stepCount }

    /// Where a file found at `path` when recording starts is kept.
    var previousPath: String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        let pathExtension = (name as NSString).pathExtension
        let previous = pathExtension.isEmpty ? "\(name).previous" : "\(stem).previous.\(pathExtension)"
        return (folder as NSString).appendingPathComponent(previous)
    }

    /// Moves an existing file aside, removes leftover temporary files of its rewrites, and
    /// makes a new file with the header. Called once, when recording starts; if it fails,
    /// the first `append` tries again.
    func start() throws {
        let folder = FileWriting.folder(of: path)
        try FileWriting.makeDirectory(folder)
        removeLeftoverTemporaryFiles(in: folder)
        var status = stat()
        if lstat(path, &status) == 0 {
            guard rename(path, previousPath) == 0 else {
                // Not written over: the previous recording is the user's data.
                throw FileStorageError(operation: "keeping the previous recording, as \(previousPath), of", path: path)
            }
        }
        try create()
        hasStarted = true
    }

    /// Appends the lines of `batch` (`bytes`, cut by `lines`), starting the file first if
    /// needed, keeping at most `limit` steps, and recovering from a file that vanished or a
    /// full disk. Throws what it could not recover from; the batch is then not written.
    func append(_ bytes: [UInt8], _ batchLines: [Line]) throws -> Appended {
        var appended = Appended()
        guard !batchLines.isEmpty else { return appended }
        if !hasStarted {
            try start()
        } else if try isGone() {
            try remake()
            appended.events.append(.remade)
        }
        var first = 0
        if checkpoints.isEmpty {
            // A new file starts at a checkpoint: what comes before it has nothing to start from.
            guard let checkpoint = batchLines.firstIndex(where: \.startsCheckpoint) else {
                appended.beforeCheckpoint = batchLines.count(where: \.isStep)
                needsCheckpoint = true
                return appended
            }
            appended.beforeCheckpoint = batchLines[..<checkpoint].count(where: \.isStep)
            first = checkpoint
        }
        // The new lines' checkpoints, at the offsets they would have appended at the end.
        let start = first == 0 ? 0 : batchLines[first - 1].end
        var newCheckpoints: [Checkpoint] = []
        var newSteps = 0
        var lineStart = start
        for line in batchLines[first...] {
            if line.startsCheckpoint {
                newCheckpoints.append((size + lineStart - start, stepCount + newSteps))
            }
            if line.isStep {
                newSteps += 1
            }
            lineStart = line.end
        }
        let new = bytes[start..<batchLines[batchLines.count - 1].end]
        let total = stepCount + newSteps
        if total > limit, let cut = (checkpoints + newCheckpoints).first(where: { total - $0.stepsBefore <= limit }) {
            try rewrite(from: cut, new, newCheckpoints, total: total, events: &appended.events)
            appended.written = newSteps
        } else {
            do {
                try writeAtEnd(new)
                checkpoints += newCheckpoints
                stepCount = total
                appended.written = newSteps
            } catch let failure as FileStorageError where failure.isFull {
                appended.written = try makeRoom(new, newCheckpoints, total: total, failure, events: &appended.events)
            }
        }
        if !newCheckpoints.isEmpty {
            needsCheckpoint = false
        }
        return appended
    }

    /// Flushes what was written to the storage device (`F_FULLFSYNC` on Darwin).
    func sync() throws {
        guard descriptor >= 0 else { return }
        guard flushToStorage(descriptor) == 0 else {
            throw FileStorageError(operation: "flushing to disk", path: path)
        }
    }

    func close() {
        if descriptor >= 0 {
            _ = systemClose(descriptor)
            descriptor = -1
        }
    }

    // MARK: Making the file

    /// Makes a new file at `path` with the header; the lines start empty.
    private func create() throws {
        let opened = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard opened >= 0 else {
            throw FileStorageError(operation: "creating", path: path)
        }
        do {
            try FileWriting.writeAll(header, to: opened, path: path)
        } catch {
            _ = systemClose(opened)
            unlink(path)
            throw error
        }
        close()
        descriptor = opened
        identity = Self.identity(of: opened)
        size = header.count
        checkpoints = []
        stepCount = 0
        needsCheckpoint = true
    }

    /// Whether the file at `path` is no longer the one this recording writes (deleted, or
    /// its folder was). A closed file this recording made is opened again.
    private func isGone() throws -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else {
                throw FileStorageError(operation: "looking at", path: path)
            }
            return true
        }
        let atPath = (UInt64(truncatingIfNeeded: status.st_dev), UInt64(truncatingIfNeeded: status.st_ino))
        try reopenIfClosed()
        return identity.map { $0 != atPath } ?? true
    }

    /// Makes the file again (and its folder): it was deleted while recording.
    private func remake() throws {
        close()
        try FileWriting.makeDirectory(FileWriting.folder(of: path))
        var status = stat()
        if lstat(path, &status) == 0 {
            // Something else is at the path now (another file put there): this recording's
            // file was replaced, not deleted; keep the other as the previous recording.
            _ = rename(path, previousPath)
        }
        try create()
    }

    /// Opens the file again if it is not open (after a failed remake, say).
    private func reopenIfClosed() throws {
        guard descriptor < 0 else { return }
        let reopened = open(path, O_WRONLY | O_CLOEXEC)
        guard reopened >= 0 else {
            throw FileStorageError(operation: "opening", path: path)
        }
        descriptor = reopened
        identity = Self.identity(of: reopened)
    }

    private static func identity(of descriptor: Int32) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        // `dev_t` is `Int32` on Darwin and `UInt64` on Linux: compared as 64 bits.
        return (UInt64(truncatingIfNeeded: status.st_dev), UInt64(truncatingIfNeeded: status.st_ino))
    }

    /// Removes `.<name>.<UUID>.tmp` files in `folder`: rewrites a crash interrupted
    /// (`FileWriting.writeTemporaryFile` names them so).
    private func removeLeftoverTemporaryFiles(in folder: String) {
        let prefix = ".\((path as NSString).lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }

    // MARK: Writing

    /// Writes `new` at the end of the file.
    private func writeAtEnd(_ new: ArraySlice<UInt8>) throws {
        do {
            try Self.write(new, to: descriptor, at: size, path: path)
        } catch {
            // Cut a write that stopped halfway back to whole lines. (If this fails too, the
            // next append writes after a partial line, which a replay reports as not JSON.)
            _ = ftruncate(descriptor, off_t(size))
            throw error
        }
        size += new.count
    }

    /// The bytes from `cut` on of the file followed by `new` (offsets past the file's size
    /// are `new`'s), and the checkpoints of the two from there, as offsets of a file that
    /// starts with the header and those bytes.
    private func content(
        from cut: Checkpoint, _ new: ArraySlice<UInt8>, _ newCheckpoints: [Checkpoint]
    ) throws -> (bytes: [UInt8], checkpoints: [Checkpoint]) {
        var content: [UInt8] = []
        if cut.offset < size {
            content = try readTail(size - cut.offset)
        }
        content.append(contentsOf: new.dropFirst(max(cut.offset - size, 0)))
        let kept = (checkpoints + newCheckpoints).filter { $0.offset >= cut.offset }.map {
            (offset: $0.offset - cut.offset + header.count, stepsBefore: $0.stepsBefore - cut.stepsBefore)
        }
        return (content, kept)
    }

    /// Rewrites the file from checkpoint `cut` on, with `new` after it: atomically, or, on a
    /// full disk, in place.
    private func rewrite(
        from cut: Checkpoint, _ new: ArraySlice<UInt8>, _ newCheckpoints: [Checkpoint], total: Int,
        events: inout [Event]
    ) throws {
        let kept = try content(from: cut, new, newCheckpoints)
        var data = header
        data.append(contentsOf: kept.bytes)
        do {
            let temporary = try FileWriting.writeTemporaryFile(data, beside: path, newFileMode: 0o600)
            guard rename(temporary, path) == 0 else {
                let failure = FileStorageError(operation: "renaming \(temporary) to", path: path)
                unlink(temporary)
                throw failure
            }
            FileWriting.syncFolder(FileWriting.folder(of: path))
            // The file at the path is the new one from here: a failure to open it leaves
            // the next append to open it again, at the new file's end.
            close()
            size = data.count
            checkpoints = kept.checkpoints
            stepCount = total - cut.stepsBefore
            try reopenIfClosed()
        } catch let failure as FileStorageError where failure.isFull {
            do {
                try rewriteInPlace(kept.bytes)
            } catch {
                // Halfway through the old lines.
                giveUpLines(events: &events)
                throw error
            }
            size = data.count
            checkpoints = kept.checkpoints
            stepCount = total - cut.stepsBefore
            events.append(.madeRoom)
        }
    }

    /// On a full disk: drops the oldest lines to make room for `new`, keeping the file from
    /// its newest checkpoint on (one of `new`'s, or of the file's after its first line);
    /// returns how many of `new`'s steps were written. If there is no such checkpoint, or
    /// even what follows it does not fit, throws `failure`: the batch is not written, and the
    /// file starts again at the next checkpoint, which the recorder is asked for.
    private func makeRoom(
        _ new: ArraySlice<UInt8>, _ newCheckpoints: [Checkpoint], total: Int, _ failure: FileStorageError,
        events: inout [Event]
    ) throws -> Int {
        guard let newest = (checkpoints + newCheckpoints).last, newest.offset > header.count else {
            // Nothing older to drop that would leave the file a start: the lines it has stay
            // until the next checkpoint comes, which then replaces them.
            needsCheckpoint = true
            throw failure
        }
        let kept = try content(from: newest, new, newCheckpoints)
        do {
            try rewriteInPlace(kept.bytes)
        } catch {
            // Even the newest checkpoint on does not fit (or the rewrite stopped halfway
            // for another reason).
            giveUpLines(events: &events)
            throw failure
        }
        let newSteps = total - stepCount
        let writtenOfNew = newest.offset >= size ? total - newest.stepsBefore : newSteps
        size = header.count + kept.bytes.count
        checkpoints = kept.checkpoints
        stepCount = total - newest.stepsBefore
        events.append(.madeRoom)
        return writtenOfNew
    }

    /// Gives up the file's lines after a rewrite in place that did not finish: the file
    /// is its header, and starts again, whole, at the next checkpoint (which finds the room
    /// on a full disk).
    private func giveUpLines(events: inout [Event]) {
        try? rewriteInPlace([])
        checkpoints = []
        stepCount = 0
        size = header.count
        needsCheckpoint = true
        events.append(.madeRoom)
    }

    /// Writes `content` over the file after its header, then cuts the file there: no
    /// temporary file, so it works on a full disk (the space it writes is the file's own).
    /// If the process stops between the two, the file holds the new lines and then the end
    /// of the old ones, which a replay reports as a line it cannot use, after the new ones.
    private func rewriteInPlace(_ content: [UInt8]) throws {
        try reopenIfClosed()
        try Self.write(content[...], to: descriptor, at: header.count, path: path)
        guard ftruncate(descriptor, off_t(header.count + content.count)) == 0 else {
            throw FileStorageError(operation: "cutting the oldest lines of", path: path)
        }
    }

    /// The last `count` bytes of the file.
    private func readTail(_ count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else {
            throw FileStorageError(operation: "opening", path: path)
        }
        defer { _ = systemClose(reader) }
        var data = [UInt8](repeating: 0, count: count)
        let start = size - count
        try data.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < count {
                let read = pread(reader, buffer.baseAddress! + offset, count - offset, off_t(start + offset))
                if read < 0 {
                    if errno == EINTR { continue }
                    throw FileStorageError(operation: "reading", path: path)
                }
                guard read > 0 else {
                    throw FileStorageError(operation: "reading (it is shorter than written)", path: path, code: .EIO)
                }
                offset += read
            }
        }
        return data
    }

    /// Writes all of `bytes` to `descriptor` at `offset`.
    private static func write(_ bytes: ArraySlice<UInt8>, to descriptor: Int32, at offset: Int, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = pwrite(
                    descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileStorageError(operation: "writing", path: path)
                }
                written += count
            }
        }
    }
}

extension FileStorageError {
    /// Whether the disk (or the file's allowance) is full: no space, over quota, or past the
    /// largest file the process may write.
    var isFull: Bool {
        code == .ENOSPC || code == .EDQUOT || code == .EFBIG
    }
}
