import FluxCapacitor
import Foundation

/// The models the guide's snippets use.
enum GitHub {
    nonisolated struct Repository: Sendable, Equatable {
        let name: String
    }
}

/// The action the guide's snippets use.
struct RepositoryAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository
}

/// What the guide's screens draw: here, a line (from observers on any thread, so
/// `nonisolated`, also where code is on the main actor by default).
nonisolated func render(_ repositories: [GitHub.Repository]) {
    print("\(repositories.count) repositories")
}

/// What an observer received, behind a lock.
final class SentValues<Value: Sendable>: @unchecked Sendable {
    // Sendable: `lock` guards `stored`.
    private let lock = NSLock()
    private var stored: [Value] = []

    func append(_ value: Value) {
        lock.withLock { stored.append(value) }
    }

    var values: [Value] {
        lock.withLock { stored }
    }
}
