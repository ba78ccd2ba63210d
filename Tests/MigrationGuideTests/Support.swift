import FluxCapacitor

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
