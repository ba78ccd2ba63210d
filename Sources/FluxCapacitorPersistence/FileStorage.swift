public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``PersistentStorage`` of JSON files in a directory you choose: slot `favorites` is
/// `favorites.json`.
///
/// An app keeps its values in the user's application-support directory; a test, in a
/// temporary directory of its own, writing each change at once:
///
/// ```swift
/// let storage = FileStorage.applicationSupport(named: "repository-search")
/// let tests = FileStorage(
///     directory: temporaryDirectory, coalescingInterval: .zero)
/// ```
///
/// A write goes to a temporary file beside the slot's, which is flushed to disk and then
/// renamed over it, so the file is always the old version or the new one, even if the
/// process dies mid-write; a temporary file left by a process that died is removed when
/// the slot is next read. The directory is made when first written to. A slot's file may
/// be a symbolic link: it is read and written through the link, which stays.
///
/// What it does with files it cannot use, so that no data is lost:
///
/// - A file that cannot be decoded is renamed `favorites.corrupt-<date>.json` and kept.
/// - A file that cannot be read (no permission, an I/O error, a directory in its place)
///   is left as it is, and not written over while the values persisted there live.
/// - Another program (a second instance of yours) may write the file too. The last
///   writer wins, but never silently: before writing over a file that changed since this
///   storage last read or wrote it, the storage keeps the other version as
///   `favorites.replaced-<date>.json` and reports ``PersistenceError/Kind-swift.enum/replacedChangedFile(keptAs:)``.
///   A version this storage read (the value a persisted variable started from) is seen:
///   writing over it keeps nothing. Merge the two in your app if it needs to. Writers (threads with storages of their
///   own, other processes) take turns: each holds an advisory lock on a hidden
///   `.favorites.json.lock` beside the file (`flock`, which stays there) from comparing the
///   file's contents with the version it last saw to renaming its own over it, so no
///   version is written over unseen. ``remove(_:)`` keeps a changed file the same way.
///
/// Errors name the operation, the file and the system's error code
/// (``FileStorageError``).
public final class FileStorage: PersistentStorage, @unchecked Sendable {
    // Sendable: `lock` guards `fingerprints` and `notices`; the rest is immutable.

    /// Where the files are.
    public let directory: URL

    /// How long a value waits after a change before it is written.
    public let coalescingInterval: Duration
    private let onError: @Sendable (PersistenceError) -> Void
    private let lock = NSLock()
    /// What each slot's file was when this storage last read or wrote it (`nil`: absent).
    private var fingerprints: [String: Fingerprint?] = [:]
    /// Reports of writes that replaced a changed file, for the persisted slot to report
    /// once it has finished writing.
    private var notices: [String: [PersistenceError]] = [:]

    /// A storage in `directory`.
    ///
    /// - Parameters:
    ///   - directory: Where the files go; made when first written to.
    ///   - coalescingInterval: How long a value waits after a change before it is written
    ///     (100 ms by default; `.zero` writes at once, still off the changing thread).
    ///   - onError: Hears what goes wrong; prints to standard error by default. It runs on
    ///     a background queue or inside a store's `init()` or deinit, possibly while a
    ///     dispatch is running: do not dispatch or instantiate stores from it synchronously;
    ///     hop to another queue or a `Task`.
    @preconcurrency
    public init(
        directory: URL,
        coalescingInterval: Duration = .milliseconds(100),
        onError: @escaping @Sendable (PersistenceError) -> Void = { error in
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    ) {
        self.directory = directory
        self.coalescingInterval = coalescingInterval
        self.onError = onError
    }

    /// A storage in the user's application-support directory, in a folder named `name`
    /// (`~/Library/Application Support/name` on Apple platforms, `$XDG_DATA_HOME/name` or
    /// `~/.local/share/name` on Linux).
    ///
    /// - Parameters:
    ///   - name: The folder's name, usually the app's.
    ///   - coalescingInterval: How long a value waits after a change before it is written
    ///     (100 ms by default).
    ///   - onError: Hears what goes wrong; prints to standard error by default. It runs on
    ///     a background queue or inside a store's `init()` or deinit, possibly while a
    ///     dispatch is running: do not dispatch or instantiate stores from it synchronously;
    ///     hop to another queue or a `Task`.
    /// - Returns: A storage in that folder, which is made when first written to.
    @preconcurrency
    public static func applicationSupport(
        named name: String,
        coalescingInterval: Duration = .milliseconds(100),
        onError: @escaping @Sendable (PersistenceError) -> Void = { error in
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    ) -> FileStorage {
        // Foundation always has an answer for the user domain (on Linux it honours
        // XDG_DATA_HOME); the home folder (the app's container on iOS, tvOS, watchOS and
        // visionOS, where `homeDirectoryForCurrentUser` does not exist) is a last resort
        // that survives reboots, unlike a temporary directory.
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL.homeDirectory
        return FileStorage(
            directory: base.appendingPathComponent(name, isDirectory: true), coalescingInterval: coalescingInterval,
            onError: onError)
    }

    /// The file of `slot`.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: `slot.json` in ``directory``.
    public func url(of slot: String) -> URL {
        directory.appendingPathComponent("\(slot).json")
    }

    /// The contents of the slot's file (through a symbolic link), or `nil` if there is none.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The file's bytes, or `nil` if there is no file (before the first write).
    /// - Throws: ``FileStorageError`` if the file is there but cannot be read.
    public func read(_ slot: String) throws -> Data? {
        let path = try resolvedPath(of: slot)
        removeStaleTemporaryFiles(of: path)
        let data = try contents(of: path)
        lock.withLock { fingerprints[slot] = .some(data.map(Fingerprint.init)) }
        return data
    }

    /// The bytes of the regular file at `path`, or `nil` if there is none.
    private func contents(of path: String) throws -> Data? {
        // Not blocking: a FIFO in the file's place must not hang the program.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            // No file, no directory for it (a file in the way of one), or a name too long
            // to be one: nothing to keep. Writing will say what is wrong.
            if code == ENOENT || code == ENOTDIR || code == ENAMETOOLONG {
                return nil
            }
            throw FileStorageError(operation: "opening", path: path, code: POSIXErrorCode(rawValue: code))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw FileStorageError(operation: "reading the status of", path: path)
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw FileStorageError(operation: "reading", path: path, code: .EISDIR)
        }
        // A device or a FIFO could be endless, or block: only regular files are read.
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw FileStorageError(operation: "reading the non-regular file", path: path, code: .EINVAL)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileStorageError(operation: "reading", path: path)
            }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Writes a temporary file, flushes it to disk, and renames it over the slot's file
    /// (the target of a symbolic link, if it is one). The file keeps its permissions.
    ///
    /// - Parameters:
    ///   - data: The new contents.
    ///   - slot: The slot's name.
    /// - Throws: ``FileStorageError``, with the step that failed.
    public func write(_ data: Data, to slot: String) throws {
        try FileWriting.makeDirectory(directory.path)
        let target = try resolvedPath(of: slot)
        let folder = FileWriting.folder(of: target)
        if folder != directory.path {
            try FileWriting.makeDirectory(folder)
        }
        let temporary = try FileWriting.writeTemporaryFile(data, beside: target, newFileMode: 0o666)
        // Checking the file, keeping another writer's version and renaming over it are one
        // step for every writer that takes the lock: none renames in between, so none
        // writes over a version unseen.
        do {
            try WriteLock.withLock(of: target) {
                try keepOtherVersion(of: slot, at: target)
                guard rename(temporary, target) == 0 else {
                    throw FileStorageError(operation: "renaming \(temporary) to", path: target)
                }
                lock.withLock { fingerprints[slot] = Fingerprint(data) }
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename is in the folder's entries: flush them too.
        FileWriting.syncFolder(folder)
    }

    /// Renames the slot's file `slot.corrupt-<date>.json`
    /// (`favorites.corrupt-20261122T101500Z.json`, say) and returns that name.
    ///
    /// - Parameter slot: The slot's name.
    /// - Returns: The file's new name, in the same directory.
    /// - Throws: ``FileStorageError`` if it cannot be renamed.
    public func setAside(_ slot: String) throws -> String {
        let source = try resolvedPath(of: slot)
        let name = Self.unusedName(in: (source as NSString).deletingLastPathComponent, slot: slot, kind: "corrupt")
        let destination = ((source as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
        try WriteLock.withLock(of: source) {
            guard rename(source, destination) == 0 else {
                throw FileStorageError(operation: "renaming \(source) to", path: destination)
            }
            lock.withLock { fingerprints[slot] = .some(nil) }
        }
        return name
    }

    /// Deletes the slot's file (the target of a symbolic link, if it is one), if any.
    ///
    /// - Parameter slot: The slot's name.
    /// - Throws: ``FileStorageError`` if it is there and cannot be deleted.
    public func remove(_ slot: String) throws {
        let path = try resolvedPath(of: slot)
        var status = stat()
        guard stat((path as NSString).deletingLastPathComponent, &status) == 0 else {
            // No folder, so no file: nothing to delete, and nowhere for a lock file.
            lock.withLock { fingerprints[slot] = .some(nil) }
            return
        }
        // Under the write lock, like a write: a version another writer put there since
        // this storage last saw the file is kept and reported, not deleted unseen.
        try WriteLock.withLock(of: path) {
            try keepOtherVersion(of: slot, at: path)
            guard unlink(path) == 0 || errno == ENOENT else {
                throw FileStorageError(operation: "deleting", path: path)
            }
            lock.withLock { fingerprints[slot] = .some(nil) }
        }
    }

    /// The reports of writes of `slot` that replaced a file changed by another program.
    func takeNotices(for slot: String) -> [PersistenceError] {
        lock.withLock { notices.removeValue(forKey: slot) ?? [] }
    }

    // MARK: Files

    /// A version of a file, by its contents: its size and a hash of its bytes.
    ///
    /// Not the inode and modification time: an inode freed by one rename can be reused
    /// by the next temporary file, and two writes within a clock tick share a time, so a
    /// file another writer replaced could look unchanged. Equal contents are the same
    /// version for the user, whoever wrote them. The hash is Swift's (SipHash, seeded per
    /// process): fingerprints never leave the process, and two versions of one size
    /// colliding is a 1 in 2⁶⁴ chance.
    private struct Fingerprint: Equatable {
        let size: Int
        let hash: Int

        init(_ data: Data) {
            size = data.count
            var hasher = Hasher()
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
            hash = hasher.finalize()
        }
    }

    /// If the slot's file changed since this storage last saw it, links it under a new
    /// name (so that the rename over it keeps it), and notes the report for the persisted
    /// slot. Called under ``WriteLock``.
    ///
    /// - Throws: ``FileStorageError`` if it changed and cannot be kept: then it is not
    ///   written over.
    private func keepOtherVersion(of slot: String, at target: String) throws {
        guard let known = lock.withLock({ fingerprints[slot] }) else {
            return  // Never read nor written by this storage: nothing to compare with.
        }
        var existing = stat()
        guard lstat(target, &existing) == 0 else {
            return  // No file (or none to reach): nothing to keep.
        }
        // A directory (or a device) put in the file's place is not replaced, so not kept.
        guard existing.st_mode & S_IFMT == S_IFREG else {
            return
        }
        // Unreadable (a permission changed): it cannot be compared, so it is kept.
        let current = try? contents(of: target)
        guard current == nil || known != current.map(Fingerprint.init) else {
            return
        }
        let folder = (target as NSString).deletingLastPathComponent
        let name = Self.unusedName(in: folder, slot: slot, kind: "replaced")
        let kept = (folder as NSString).appendingPathComponent(name)
        guard link(target, kept) == 0 else {
            let failure = FileStorageError(
                operation: "keeping the version another program wrote, as \(kept), of", path: target)
            guard (try? FileManager.default.copyItem(atPath: target, toPath: kept)) != nil else {
                throw failure
            }
            noteKept(name, of: slot, at: target)
            return
        }
        noteKept(name, of: slot, at: target)
    }

    private func noteKept(_ name: String, of slot: String, at target: String) {
        let notice = PersistenceError(
            slot: slot, kind: .replacedChangedFile(keptAs: name),
            reason: "\(target) changed since this program last read or wrote it")
        lock.withLock { notices[slot, default: []].append(notice) }
    }

    /// `slot.<kind>-<date>.json`, or `-2`, `-3`, … if taken.
    private static func unusedName(in folder: String, slot: String, kind: String) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        let stamp = formatter.string(from: Date()).replacingOccurrences(of: ":", with: "")
        var name = "\(slot).\(kind)-\(stamp).json"
        var counter = 1
        while FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(name)) {
            counter += 1
            name = "\(slot).\(kind)-\(stamp)-\(counter).json"
        }
        return name
    }

    /// The slot's file, or what it links to (following links, relative ones from their
    /// folder), so that a link is read and written through.
    private func resolvedPath(of slot: String) throws -> String {
        var path = url(of: slot).path
        for _ in 0..<32 {
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else {
                return path
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, buffer.count - 1)
            guard count >= 0 else {
                throw FileStorageError(operation: "reading the link", path: path)
            }
            let destination = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            path =
                destination.hasPrefix("/")
                ? destination
                : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
        }
        throw FileStorageError(operation: "following the links of", path: url(of: slot).path, code: .ELOOP)
    }

    /// Deletes the temporary files of writes that died (older than a minute, so that
    /// another process's write in progress is left alone). Best effort: what cannot be
    /// deleted stays, harmlessly.
    private func removeStaleTemporaryFiles(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = ".\((path as NSString).lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let now = Int(time(nil))
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let file = (folder as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            #if canImport(Darwin)
            let modified = Int(status.st_mtimespec.tv_sec)
            #else
            let modified = Int(status.st_mtim.tv_sec)
            #endif
            if now - modified > 60 {
                unlink(file)
            }
        }
    }

    /// Hands `error` to the storage's error handler, the `onError` it was made with (see
    /// ``PersistentStorage/report(_:)`` for where it runs).
    ///
    /// - Parameter error: What went wrong.
    public func report(_ error: PersistenceError) {
        onError(error)
    }
}
