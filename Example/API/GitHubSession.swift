/// Sends requests to GitHub. Actions take one by injection: a `StubSession` by default,
/// a `LiveSession` with `--live`, a mock in tests.
protocol GitHubSession: Sendable {
    /// Sends `request` and returns its decoded answer; throws `GitHubError`.
    func send<Request: GitHubRequest>(_ request: Request) async throws -> Request.Response
}
