import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations a ``FileStorage`` and a ``DispatchFileRecorder`` share: making a
/// directory, writing every byte to a descriptor, writing a flushed temporary file to
/// rename over another, and flushing a folder's entries. Each throws a
/// ``FileStorageError`` that names the step and the file.
enum FileWriting {
    /// Makes `path` and its parents, as `mkdir -p` does.
    static func makeDirectory(_ path: String) throws {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw FileStorageError(operation: "making the directory", path: path, code: .ENOTDIR)
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path {
            try makeDirectory(parent)
        }
        guard mkdir(path, 0o777) == 0 || errno == EEXIST else {
            throw FileStorageError(operation: "making the directory", path: path)
        }
    }

    /// Writes all of `data` to `descriptor` (the file at `path`, for the error).
    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileStorageError(operation: "writing", path: path)
                }
                offset += count
            }
        }
    }

    /// The folder `path` is in (`.` for a bare file name).
    static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Writes `data` to a new temporary file beside `target` (in its folder, named after
    /// it), with the permissions `target` has if it exists (else `newFileMode`), flushed
    /// to disk; returns its path, for the caller to rename over `target`.
    static func writeTemporaryFile(_ data: Data, beside target: String, newFileMode: mode_t) throws -> String {
        let name = (target as NSString).lastPathComponent
        let temporary = (folder(of: target) as NSString).appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        var existing = stat()
        let targetExists = stat(target, &existing) == 0
        let descriptor = open(
            temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, targetExists ? existing.st_mode & 0o7777 : newFileMode)
        guard descriptor >= 0 else {
            throw FileStorageError(operation: "creating the temporary file", path: temporary)
        }
        do {
            defer { close(descriptor) }
            if targetExists, fchmod(descriptor, existing.st_mode & 0o7777) != 0 {
                throw FileStorageError(operation: "setting the permissions of", path: temporary)
            }
            try writeAll(data, to: descriptor, path: temporary)
            guard flushToStorage(descriptor) == 0 else {
                throw FileStorageError(operation: "flushing to disk", path: temporary)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Flushes the entries of `folder` (a rename in it), so that the new name survives a
    /// power cut. Best effort: some filesystems cannot flush a folder, and the data is
    /// already safe under one name or the other.
    static func syncFolder(_ folder: String) {
        let folderDescriptor = open(folder, O_RDONLY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            _ = fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }
}

// The C functions under names of their own, for types whose methods shadow them
// (`RecordingFile.close()`).
#if canImport(Darwin)
let systemRead = Darwin.read
let systemWrite = Darwin.write
let systemClose = Darwin.close
#elseif canImport(Musl)
let systemRead = Musl.read
let systemWrite = Musl.write
let systemClose = Musl.close
#else
let systemRead = Glibc.read
let systemWrite = Glibc.write
let systemClose = Glibc.close
#endif
