import FluxCapacitor
import Foundation

/// The models the guide's snippets use.
enum GitHub {
    struct Repository: Sendable, Equatable {
        let name: String
    }
}

/// The action the guide's snippets use.
struct RepositoryAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Repository
}

/// What the guide's screens draw: here, a line.
func render(_ repositories: [GitHub.Repository]) {
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
