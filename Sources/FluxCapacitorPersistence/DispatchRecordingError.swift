public import Foundation

/// What went wrong with a recording of dispatches: writing it (a ``DispatchFileRecorder``
/// hands it to its `onError`, or throws it when another recorder writes the file) or
/// playing it back (a ``DispatchFilePlayer`` throws it).
///
/// ```swift
/// let recorder = try DispatchFileRecorder(
///     writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
///     recording: [.state(Dispatcher.Favorite.self, named: "Favorite")],
///     onError: { error in print(error) })
/// ```
///
/// Its ``description`` says, in one line, which file, what happened and what the recorder
/// did about it: `FluxCapacitor recorder, session.jsonl: the disk is full (…); dropped the
/// oldest lines to keep the newest`.
public struct DispatchRecordingError: Error, Sendable, CustomStringConvertible {
    /// The recording's file.
    public let file: URL

    /// The line of the file it is about (from 1, the header), for an error of playing it
    /// back; `nil` for one of the recorder.
    public let line: Int?

    /// What happened and what was done about it, in words.
    public let reason: String

    /// The error underneath, if any: a ``FileStorageError`` for a file operation (to tell a
    /// full disk, `.ENOSPC`, from a permission problem), an `EncodingError` for a state that
    /// could not be encoded, a `DecodingError` for one that could not be decoded.
    public let underlyingError: (any Error)?

    /// One line: `FluxCapacitor recorder, session.jsonl: …` for the recorder's errors,
    /// `session.jsonl, line 4 is truncated: …` for a player's (whose ``reason`` starts with
    /// the line).
    public var description: String {
        let text =
            line == nil
            ? "FluxCapacitor recorder, \(file.lastPathComponent): \(reason)" : "\(file.lastPathComponent), \(reason)"
        return text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
    }

    /// Makes an error.
    ///
    /// ```swift
    /// let error = DispatchRecordingError(
    ///     file: URL(fileURLWithPath: "/tmp/session.jsonl"), reason: "stopped")
    /// ```
    ///
    /// - Parameters:
    ///   - file: The recording.
    ///   - line: The line it is about, if any.
    ///   - reason: What happened, in words.
    ///   - underlyingError: The error underneath, if any.
    public init(file: URL, line: Int? = nil, reason: String, underlyingError: (any Error)? = nil) {
        self.file = file
        self.line = line
        self.reason = reason
        self.underlyingError = underlyingError
    }
}
