import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

/// `--record FILE`: the dispatches of a session, written to `FILE` by a
/// `DispatchFileRecorder`, for a test to replay (Tests/ExampleTests/ReplayTests.swift).
enum SessionRecording {
    /// The state types a session records, under names of their own, which stay the same if
    /// the types are moved or renamed: the test that replays a recording names them alike.
    static let types: [DispatchFileRecorder.RecordedType] = [
        .state(Dispatcher.User.self, named: "User"),
        .state(Dispatcher.Repository.self, named: "Repository"),
    ]

    /// Starts recording the dispatches of the current dispatcher to `path`; problems go to
    /// `onError`, the run's warnings.
    static func start(
        writingTo path: String, onError: @escaping @Sendable (DispatchRecordingError) -> Void
    ) throws(DispatchRecordingError) -> DispatchFileRecorder {
        try DispatchFileRecorder(
            writingTo: URL(fileURLWithPath: path), recording: types, keepingAtMost: 10_000, onError: onError)
    }
}
