import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock a ``FileStorage`` holds across checking a slot's file, keeping the version
/// another writer put there, and renaming its own over it, so that no other writer (a
/// thread with another storage on the same folder, another process) renames in between.
///
/// It is two locks, taken in this order and let go of in the reverse:
///
/// 1. One of a fixed table of in-process mutexes, chosen by the device and inode of the
///    lock file (two storages that reach one folder by different paths share it).
/// 2. An advisory `flock(2)` on a hidden lock file beside the data, `.favorites.json.lock`
///    for `favorites.json`, which other processes take too.
///
/// Why both: `flock` belongs to an open file description, so two `open`s in one process
/// do exclude each other on a local disk; but Linux emulates `flock` on NFS with `fcntl`
/// byte-range locks, which belong to the process, and there two threads of one process
/// would both hold it (Linux flock(2), "NFS details"). The mutex makes threads exclude each
/// other wherever the file lies; `flock` then only has to exclude processes. Darwin's
/// `flock(2)` (macOS and iOS, <sys/file.h>) is the same advisory, whole-file lock: "Locks
/// are on files, not file descriptors. That is, file descriptors duplicated through dup(2)
/// or fork(2) do not result in multiple instances of a lock"
/// (https://developer.apple.com/library/mac/documentation/Darwin/Reference/ManPages/man2/flock.2.html,
/// and the iOS manual's copy).
///
/// The lock file stays: deleting it would let a writer that opened the old one and a
/// writer that made a new one both hold "the" lock.
///
/// Where the lock file cannot be made (a read-only or unwritable folder, a full disk), the
/// write could not make its temporary file or rename it either, so the writer goes on with
/// the mutex alone and the real operation reports the real error. A filesystem that does
/// not support `flock` (`ENOLCK`, `EOPNOTSUPP`) gets the mutex alone too: threads of this
/// process still exclude each other.
enum WriteLock {
    private static let count = 64
    private static let mutexes: [NSLock] = (0..<count).map { _ in NSLock() }

    /// Runs `body` holding the lock of the file at `path` (a resolved path: the target of a
    /// symbolic link, not the link).
    static func withLock<Result>(of path: String, _ body: () throws -> Result) rethrows -> Result {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let lockPath = (folder as NSString).appendingPathComponent(".\(name).lock")
        var descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        if descriptor < 0 {
            // Someone else's lock file, readable to us: `flock` needs no write access.
            descriptor = open(lockPath, O_RDONLY | O_CLOEXEC)
        }
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            return try mutex(forPath: lockPath).withLock(body)
        }
        defer { close(descriptor) }
        return try mutex(device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(status.st_ino)).withLock {
            while flock(descriptor, LOCK_EX) != 0 {
                // Interrupted: try again. Not supported here: the mutex alone (see above).
                guard errno == EINTR else { break }
            }
            // Closing the descriptor (deferred above) lets go of the `flock`.
            return try body()
        }
    }

    private static func mutex(device: UInt64, inode: UInt64) -> NSLock {
        var hasher = Hasher()
        hasher.combine(device)
        hasher.combine(inode)
        return mutexes[Int(UInt(bitPattern: hasher.finalize()) % UInt(count))]
    }

    private static func mutex(forPath path: String) -> NSLock {
        mutexes[Int(UInt(bitPattern: path.hashValue) % UInt(count))]
    }
}
