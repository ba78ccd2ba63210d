import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a ``DispatchFileRecorder`` writes: a header line, then one line per dispatch,
/// never more than `limit` of them. Used from the recorder's writer queue only.
///
/// **Starting.** The first write moves a file already at `path` aside, as
/// `<name>.previous.<extension>` (replacing an older one), so that the recording of the
/// session before (one that ended in a crash, say) survives one more launch; then it
/// makes a new file, readable by its owner only.
///
/// **Appending.** A batch of lines goes to the end of the file in one `write` (the file is
/// opened `O_APPEND`). A write that fails halfway (a full disk) is cut back to the last
/// whole line, so the file only ever ends in the middle of a line if the process or the
/// machine stopped during a write: a replay reads that line as truncated.
///
/// **The ring.** When the lines would pass `limit`, the file is rewritten with the newest
/// `limit / 2` (at least one): written to a temporary file beside it, flushed to disk and
/// renamed over it, as ``FileStorage`` writes a slot, so the file is the old version or the
/// new one whenever the process stops. So once more than `limit` dispatches were recorded
/// the file holds the last `limit / 2` to `limit` of them, and each line is rewritten about
/// once: the cost per dispatch stays constant.
final class RecordingFile {
    static let header = Data(#"{"format":"FluxCapacitor dispatch recording","version":1}"#.utf8 + [0x0A])

    let path: String
    let limit: Int
    private var descriptor: Int32 = -1
    /// The length of each line after the header, oldest first.
    private var lineLengths: [Int] = []
    /// The file's length in bytes.
    private var size = 0
    /// Whether this recording made the file at `path`: then a closed file is opened again,
    /// never started again, which would move it aside over the session before's.
    private var hasStarted = false

    init(path: String, limit: Int) {
        self.path = path
        self.limit = max(limit, 1)
    }

    deinit {
        close()
    }

    /// How many lines of dispatches the file holds.
    var lineCount: Int { lineLengths.count }

    /// Appends `lines` (each ending in a newline), starting the file first if needed.
    func append(_ lines: [Data]) throws {
        guard !lines.isEmpty else { return }
        if descriptor < 0 {
            try hasStarted ? reopen() : start()
        }
        if lineCount + lines.count > limit {
            try rewrite(keepingNewestOf: lines)
            return
        }
        var data = Data(capacity: lines.reduce(0) { $0 + $1.count })
        for line in lines {
            data.append(line)
        }
        do {
            try FileWriting.writeAll(data, to: descriptor, path: path)
        } catch {
            // Cut a write that stopped halfway back to whole lines. (If this fails too, the
            // next append writes after a partial line, which a replay reports as not JSON.)
            _ = ftruncate(descriptor, off_t(size))
            throw error
        }
        size += data.count
        lineLengths.append(contentsOf: lines.map(\.count))
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

    /// Where a file found at `path` when recording starts is kept.
    var previousPath: String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        let pathExtension = (name as NSString).pathExtension
        let previous = pathExtension.isEmpty ? "\(name).previous" : "\(stem).previous.\(pathExtension)"
        return (folder as NSString).appendingPathComponent(previous)
    }

    /// Moves an existing file aside and makes a new one with the header.
    private func start() throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try FileWriting.makeDirectory(folder)
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard rename(path, previousPath) == 0 else {
                // Not written over: the previous recording is the user's data.
                throw FileStorageError(operation: "keeping the previous recording, as \(previousPath), of", path: path)
            }
        }
        let opened = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard opened >= 0 else {
            throw FileStorageError(operation: "creating", path: path)
        }
        do {
            try FileWriting.writeAll(Self.header, to: opened, path: path)
        } catch {
            _ = systemClose(opened)
            unlink(path)
            throw error
        }
        descriptor = opened
        size = Self.header.count
        lineLengths = []
        hasStarted = true
    }

    /// Opens the file this recording made again, to append to it.
    private func reopen() throws {
        let reopened = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard reopened >= 0 else {
            let failure = FileStorageError(operation: "opening", path: path)
            if failure.code == .ENOENT {
                // Gone (removed by someone else): the next append starts a new one.
                hasStarted = false
            }
            throw failure
        }
        descriptor = reopened
    }

    /// Rewrites the file with the newest `limit / 2` lines of the file and `lines`.
    private func rewrite(keepingNewestOf lines: [Data]) throws {
        let keep = max(limit / 2, 1)
        let newKept = min(lines.count, keep)
        let oldKept = min(keep - newKept, lineCount)
        let oldLengths = lineLengths[(lineLengths.count - oldKept)...]
        let oldBytes = oldLengths.reduce(0, +)
        var data = Self.header
        data.append(try readTail(oldBytes))
        for line in lines.suffix(newKept) {
            data.append(line)
        }
        let temporary = try FileWriting.writeTemporaryFile(data, beside: path, newFileMode: 0o600)
        guard rename(temporary, path) == 0 else {
            let failure = FileStorageError(operation: "renaming \(temporary) to", path: path)
            unlink(temporary)
            throw failure
        }
        FileWriting.syncFolder(FileWriting.folder(of: path))
        close()
        size = data.count
        lineLengths = Array(oldLengths) + lines.suffix(newKept).map(\.count)
        // If this fails, the file is whole, and the next append opens it again.
        try reopen()
    }

    /// The last `count` bytes of the file.
    private func readTail(_ count: Int) throws -> Data {
        guard count > 0 else { return Data() }
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else {
            throw FileStorageError(operation: "opening", path: path)
        }
        defer { _ = systemClose(reader) }
        var data = Data(count: count)
        let start = size - count
        try data.withUnsafeMutableBytes { bytes in
            var offset = 0
            while offset < count {
                let read = pread(reader, bytes.baseAddress! + offset, count - offset, off_t(start + offset))
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
}
