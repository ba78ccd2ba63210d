// The small model and session protocol that the README's quick start assumes the app has.

/// The namespace of the README's GitHub models.
enum GitHub {
    /// A repository, as the README's quick start shows it.
    struct Repository: Sendable, Hashable, Codable {
        let name: String
    }
}

/// What the README's action asks for repositories.
protocol GitHubSession: Sendable {
    func repositories(ofUser login: String) async throws -> [GitHub.Repository]
}
