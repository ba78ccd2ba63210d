import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real GitHub GraphQL API v4, with a personal access token. Used with `--live` when
/// `GITHUB_TOKEN` is set. It reads answers with the same code as `StubSession`, which is
/// what its tests check; they do not touch the network.
struct LiveSession: GitHubSession {
    static let endpoint = URL(string: "https://api.github.com/graphql")!

    let token: String
    let urlSession: URLSession

    init(token: String, urlSession: URLSession = .shared) {
        self.token = token
        self.urlSession = urlSession
    }

    /// A session from the `GITHUB_TOKEN` environment variable.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let token = environment["GITHUB_TOKEN"], !token.isEmpty else {
            throw GitHubError.missingToken
        }
        self.init(token: token)
    }

    func send<Request: GitHubRequest>(_ request: Request) async throws -> Request.Response {
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await urlSession.data(for: makeURLRequest(for: request.operation))
        } catch {
            throw GitHubError(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw GitHubError.transport("the answer was not HTTP")
        }
        let headers = http.allHeaderFields.reduce(into: [String: String]()) { headers, field in
            headers[String(describing: field.key)] = String(describing: field.value)
        }
        return try request.decode(GitHubHTTP.body(status: http.statusCode, headers: headers, body: data))
    }

    /// The HTTP request for `operation`: a JSON POST with a bearer token.
    func makeURLRequest(for operation: GitHubOperation) throws -> URLRequest {
        var request = URLRequest(url: Self.endpoint)
        request.httpMethod = "POST"
        request.setValue("bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("FluxCapacitor-repository-search", forHTTPHeaderField: "User-Agent")
        request.httpBody = try JSONEncoder().encode(operation.graphQLBody)
        return request
    }
}
