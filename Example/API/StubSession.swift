import Foundation

/// A GitHub that answers from fixture JSON shipped with the example: no network, no token.
///
/// It builds each answer the way GitHub's GraphQL endpoint would (the same JSON shapes,
/// cursors and totals), from a dataset of users and their repositories, and reads it
/// with the same code as `LiveSession`. It can wait before answering (`latency`), to make
/// progress visible, and fail on purpose (`failure`), to show errors.
struct StubSession: GitHubSession {
    /// A way to fail on purpose.
    enum Failure: String, Sendable, CaseIterable {
        /// HTTP 403 with `X-RateLimit-Remaining: 0`.
        case rateLimited = "rate-limit"
        /// HTTP 401, bad credentials.
        case unauthorized
        /// HTTP 200 with a GraphQL `errors` array.
        case graphQL = "graphql"
        /// HTTP 200 with JSON that does not fit the schema (a count that is a string).
        case malformed
        /// No answer at all.
        case offline
    }

    var latency: Duration
    var failure: Failure?
    let fixtures: Fixtures

    init(latency: Duration = .zero, failure: Failure? = nil, fixtures: Fixtures = .bundled) {
        self.latency = latency
        self.failure = failure
        self.fixtures = fixtures
    }

    func send<Request: GitHubRequest>(_ request: Request) async throws -> Request.Response {
        if latency > .zero {
            do {
                try await Task.sleep(for: latency)
            } catch {
                throw GitHubError.cancelled
            }
        }
        try Task.checkCancellation()
        let answer = try respond(to: request.operation)
        return try request.decode(GitHubHTTP.body(status: answer.status, headers: answer.headers, body: answer.body))
    }

    /// The HTTP answer GitHub would give to `operation`.
    func respond(to operation: GitHubOperation) throws -> (status: Int, headers: [String: String], body: Data) {
        if let failure {
            return try respond(failing: failure)
        }
        switch operation {
        case .searchUsers(let query, let first, let after):
            let matches = try fixtures.users().filter { user in
                let text = ((user["login"] as? String) ?? "") + " " + ((user["name"] as? String) ?? "")
                return text.localizedCaseInsensitiveContains(query)
            }
            let page = Self.page(matches, first: first, after: after)
            return (
                200, [:],
                try Self.json([
                    "data": [
                        "search": [
                            "userCount": matches.count, "pageInfo": page.pageInfo, "nodes": page.nodes,
                        ]
                    ]
                ])
            )
        case .userRepositories(let userID, let first, let after):
            guard let user = try fixtures.users().first(where: { $0["id"] as? String == userID }),
                let login = user["login"] as? String
            else {
                return (200, [:], try fixtures.data(named: "graphql-not-found"))
            }
            let repositories = try fixtures.repositories(of: login)
            let page = Self.page(repositories, first: first, after: after)
            return (
                200, [:],
                try Self.json([
                    "data": [
                        "node": [
                            "repositories": [
                                "totalCount": repositories.count, "pageInfo": page.pageInfo, "nodes": page.nodes,
                            ]
                        ]
                    ]
                ])
            )
        }
    }

    private func respond(failing failure: Failure) throws -> (status: Int, headers: [String: String], body: Data) {
        switch failure {
        case .rateLimited:
            let reset = Int(Date().addingTimeInterval(15 * 60).timeIntervalSince1970)
            return (
                403,
                ["X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(reset)"],
                try fixtures.data(named: "rate-limited")
            )
        case .unauthorized:
            return (401, [:], try fixtures.data(named: "bad-credentials"))
        case .graphQL:
            return (200, [:], try fixtures.data(named: "graphql-error"))
        case .malformed:
            let body = #"{"data": {"search": {"userCount": "many", "pageInfo": {"hasNextPage": false}, "nodes": []}}}"#
            return (200, [:], Data(body.utf8))
        case .offline:
            throw GitHubError.transport("The Internet connection appears to be offline.")
        }
    }

    /// A page of `nodes` the way GitHub pages a connection: cursors encode offsets.
    private static func page(
        _ nodes: [[String: Any]], first: Int, after: String?
    ) -> (nodes: [[String: Any]], pageInfo: [String: Any]) {
        let start = after.flatMap(offset(of:)).map { $0 + 1 } ?? 0
        let end = min(start + first, nodes.count)
        let slice = start < end ? Array(nodes[start..<end]) : []
        let pageInfo: [String: Any] = [
            "hasNextPage": end < nodes.count,
            "endCursor": slice.isEmpty ? NSNull() : cursor(for: end - 1),
        ]
        return (slice, pageInfo)
    }

    /// GitHub's cursors are base64 of `cursor:<offset>`.
    static func cursor(for offset: Int) -> String {
        Data("cursor:\(offset)".utf8).base64EncodedString()
    }

    static func offset(of cursor: String) -> Int? {
        guard let data = Data(base64Encoded: cursor),
            let text = String(data: data, encoding: .utf8), text.hasPrefix("cursor:")
        else { return nil }
        return Int(text.dropFirst("cursor:".count))
    }

    private static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}

/// The fixture JSON shipped with the example, as package resources.
struct Fixtures: Sendable {
    /// Where the files are: the bundled `Fixtures` folder, or another folder (tests).
    let directory: URL

    static let bundled = Fixtures(
        directory: Bundle.module.resourceURL!.appendingPathComponent("Fixtures", isDirectory: true))

    /// The raw bytes of `name.json`.
    func data(named name: String) throws -> Data {
        let url = directory.appendingPathComponent("\(name).json")
        do {
            return try Data(contentsOf: url)
        } catch {
            throw GitHubError.transport("the stub has no fixture \(name).json")
        }
    }

    /// The users of the dataset, as GitHub's `User` nodes.
    func users() throws -> [[String: Any]] {
        try nodes(named: "users")
    }

    /// The repositories of `login`, as GitHub's `Repository` nodes (none if unknown).
    func repositories(of login: String) throws -> [[String: Any]] {
        let url = directory.appendingPathComponent("repositories/\(login).json")
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try nodes(named: "repositories/\(login)")
    }

    private func nodes(named name: String) throws -> [[String: Any]] {
        guard let nodes = try JSONSerialization.jsonObject(with: data(named: name)) as? [[String: Any]] else {
            throw GitHubError.decoding(field: "(root)", reason: "\(name).json is not an array of nodes")
        }
        return nodes
    }
}
