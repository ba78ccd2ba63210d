public import Foundation

/// What went wrong in a file operation of a ``FileStorage``: the operation, the file, and
/// the system's error code. It is the ``PersistenceError/underlyingError`` of what the
/// storage reports, so an app can tell a full disk from a permission problem:
///
/// ```swift
/// let storage = FileStorage(directory: url) { error in
///     if let failure = error.underlyingError as? FileStorageError,
///         failure.code == .ENOSPC
///     {
///         Task { @MainActor in showDiskFullAlert() }
///     }
/// }
/// ```
///
/// (The handler runs on a background queue: an alert is shown from the main actor.)
public struct FileStorageError: Error, Sendable, CustomStringConvertible {
    /// What the storage was doing, as a phrase: `"renaming"`, `"reading"`,
    /// `"making the directory"`, ….
    public let operation: String

    /// The file or directory it was done to, `/home/me/.local/share/my-app/favorites.json`
    /// say.
    public let path: String

    /// The system's error code (`errno`): `.ENOSPC` for a full disk, `.EROFS` for a
    /// read-only file system, ….
    public let code: POSIXErrorCode

    /// The error code as an error, to match with `catch POSIXError.ENOSPC`.
    ///
    /// ```swift
    /// if case POSIXError.ENOSPC = failure.underlyingError { showDiskFullAlert() }
    /// ```
    public var underlyingError: POSIXError {
        POSIXError(code)
    }

    /// One line: the operation, the file, the system's message and the code's name, such as
    /// `renaming /d/.favorites.json.….tmp to /d/favorites.json: Read-only file system (EROFS)`.
    public var description: String {
        "\(operation) \(path): \(SystemError.describe(code))"
    }

    /// Makes an error, from `errno` by default, so a storage of your own can say which
    /// system call failed:
    ///
    /// ```swift
    /// guard fsync(descriptor) == 0 else {
    ///     throw FileStorageError(operation: "syncing", path: path)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - operation: What was being done, as a phrase.
    ///   - path: The file or directory.
    ///   - code: The error code; the thread's `errno` if `nil`.
    public init(operation: String, path: String, code: POSIXErrorCode? = nil) {
        self.operation = operation
        self.path = path
        self.code = code ?? POSIXErrorCode(rawValue: errno) ?? .EIO
    }
}
