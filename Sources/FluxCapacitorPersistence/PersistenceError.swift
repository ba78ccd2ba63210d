/// What went wrong reading or writing a persisted value.
///
/// A ``PersistentStorage`` hears it through ``PersistentStorage/report(_:)``; a
/// ``FileStorage`` hands it to the handler it was made with, which may log it:
///
/// ```swift
/// let storage = FileStorage(directory: url) { error in logger.error("\(error)") }
/// ```
public struct PersistenceError: Error, Sendable, CustomStringConvertible {
    /// What happened, and what was done about it.
    ///
    /// ```swift
    /// switch error.kind {
    /// case .incompatible(let setAsideAs):
    ///     print("kept the old data as \(setAsideAs ?? "nothing")")
    /// case .replacedChangedFile(let keptAs):
    ///     print("another instance's version is kept as \(keptAs)")
    /// case .unreadable, .writeFailed: print(error)
    /// }
    /// ```
    public enum Kind: Sendable, Equatable {
        /// The slot could not be read (no permission, an I/O error): the value started from
        /// its default, and the slot is left as it is: nothing is written over it while the
        /// values persisted there live.
        case unreadable
        /// The slot held data the value's type rejects (not JSON, or another schema). It
        /// was kept under `setAsideAs` (or could not be moved, if `nil`), and the value
        /// started from its default.
        case incompatible(setAsideAs: String?)
        /// A change could not be written (a full disk, a directory that cannot be written).
        /// The value in memory keeps working; the next change tries again.
        case writeFailed
        /// The slot was changed by another program (another instance of yours) since this
        /// one read or wrote it. This program's value was written over it, the last writer
        /// winning, and the other version was kept under `keptAs`.
        case replacedChangedFile(keptAs: String)
    }

    /// The slot, `favorites` say.
    public let slot: String

    /// What happened.
    public let kind: Kind

    /// Why, in one line: for a ``FileStorage``, the operation, the file and the system's
    /// error code (`renaming … to /d/favorites.json: No space left on device (ENOSPC)`).
    public let reason: String

    /// The underlying error, to tell a full disk from a permission problem, say: a
    /// ``FileStorageError`` from a ``FileStorage``, a `DecodingError` for data the type
    /// rejects. ``FileStorageError`` shows how to tell them apart.
    public let underlyingError: (any Error)?

    /// One line saying what happened to which slot (and file), why, and what was done
    /// about it, such as
    /// `FluxCapacitor: could not write persisted 'favorites' (…); the value in memory is unaffected.`
    public var description: String {
        sentence.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
    }

    private var sentence: String {
        switch kind {
        case .unreadable:
            "FluxCapacitor: could not read persisted '\(slot)' (\(reason)); left it as it is, started from the "
                + "default, and will not save changes to it in this run."
        case .incompatible(let setAsideAs?):
            "FluxCapacitor: persisted '\(slot)' could not be decoded (\(reason)); kept it as \(setAsideAs) "
                + "and started from the default."
        case .incompatible(nil):
            "FluxCapacitor: persisted '\(slot)' could not be decoded (\(reason)) nor moved aside; "
                + "started from the default."
        case .writeFailed:
            "FluxCapacitor: could not write persisted '\(slot)' (\(reason)); the value in memory is unaffected."
        case .replacedChangedFile(let keptAs):
            "FluxCapacitor: persisted '\(slot)' was changed by another program (\(reason)); wrote this one's "
                + "value over it (the last writer wins) and kept the other version as \(keptAs)."
        }
    }

    /// Makes an error; storages of your own may report one.
    ///
    /// - Parameters:
    ///   - slot: The slot.
    ///   - kind: What happened.
    ///   - reason: Why, in one line.
    ///   - underlyingError: The error that caused it, if any.
    public init(slot: String, kind: Kind, reason: String, underlyingError: (any Error)? = nil) {
        self.slot = slot
        self.kind = kind
        self.reason = reason
        self.underlyingError = underlyingError
    }
}
