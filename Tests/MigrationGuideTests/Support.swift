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
