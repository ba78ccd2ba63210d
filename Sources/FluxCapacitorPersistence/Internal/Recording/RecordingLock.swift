import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a second ``DispatchFileRecorder`` from writing the file another one writes, which
/// would interleave two sessions or lose one: held from the recorder's start to its finish.
///
/// It is two locks, as ``WriteLock`` is (whose notes say why both): a table of the files
/// being recorded in this process, by the device and inode of their lock file (so two paths
/// to one file are one), and an advisory `flock(2)` on `.<name>.lock` beside the file,
/// which other processes take too (Darwin's flock(2) is the same whole-file advisory lock,
/// <sys/file.h>). `LOCK_NB`: a second recorder is refused at once, never made to wait for
/// the first one's session to end. A filesystem without `flock` (`ENOLCK`, `EOPNOTSUPP`)
/// has the table alone. The lock file stays, as ``WriteLock``'s does.
final class RecordingLock {
    /// Why the lock is not this recorder's.
    enum Refusal: Error {
        case heldInThisProcess
        case heldByAnotherProcess
    }

    let path: String
    private var descriptor: Int32 = -1
    private var key: String?

    /// The lock files held in this process, as `device:inode`.
    nonisolated(unsafe) private static var held: Set<String> = []
    // Guards `held`; a leaf of the lock order (rank 10 in "Lock order",
    // Sources/FluxCapacitor/Internal/README.md).
    private static let tableLock = NSLock()

    init(forRecordingAt path: String) {
        let name = (path as NSString).lastPathComponent
        self.path = (FileWriting.folder(of: path) as NSString).appendingPathComponent(".\(name).lock")
    }

    deinit {
        unlock()
    }

    var isHeld: Bool { descriptor >= 0 }

    /// Takes the lock (again, after the folder vanished: the lock file went with it). Throws
    /// `Refusal` if another recorder holds it, or the error of making the lock file (a folder
    /// that cannot be made), in which case the recording cannot start yet either.
    func lock() throws {
        unlock()
        try FileWriting.makeDirectory(FileWriting.folder(of: path))
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else {
            throw FileStorageError(operation: "creating the lock file", path: path)
        }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let failure = FileStorageError(operation: "looking at the lock file", path: path)
            _ = systemClose(opened)
            throw failure
        }
        // `dev_t` is `Int32` on Darwin, `UInt64` on Linux.
        let key = "\(UInt64(truncatingIfNeeded: status.st_dev)):\(UInt64(truncatingIfNeeded: status.st_ino))"
        let isNew = Self.tableLock.withLock { Self.held.insert(key).inserted }
        guard isNew else {
            _ = systemClose(opened)
            throw Refusal.heldInThisProcess
        }
        while flock(opened, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK {
                Self.tableLock.withLock { _ = Self.held.remove(key) }
                _ = systemClose(opened)
                throw Refusal.heldByAnotherProcess
            }
            // No `flock` here: the table alone.
            break
        }
        descriptor = opened
        self.key = key
    }

    /// Lets go of the lock; nothing if it is not held.
    func unlock() {
        guard descriptor >= 0 else { return }
        // Closing the descriptor lets go of the `flock`.
        _ = systemClose(descriptor)
        descriptor = -1
        if let key {
            Self.tableLock.withLock { _ = Self.held.remove(key) }
            self.key = nil
        }
    }
}
