import Foundation
import Testing

@testable import repository_search

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("The stub and live sessions")
struct SessionTests {
    let stub = StubSession()

    @Test func searchingPagesUsersTheWayGitHubDoes() async throws {
        let first = try await stub.send(SearchUsersRequest(query: "mar", first: 4, after: nil))
        #expect(first.nodes.map(\.login) == ["marty-mcfly", "marvin-berry", "mark-delorean", "marlene-mcfly"])
        #expect(first.totalCount == 6)
        #expect(first.pageInfo.hasNextPage)
        let second = try await stub.send(SearchUsersRequest(query: "mar", first: 4, after: first.pageInfo.endCursor))
        #expect(second.nodes.map(\.login) == ["margaret-lake", "marge-no-repos"])
        #expect(!second.pageInfo.hasNextPage)
    }

    @Test func aUserHasThreePagesOfRepositories() async throws {
        let user = try await stub.send(SearchUsersRequest(query: "marty", first: 1, after: nil)).nodes[0]
        var cursor: String?
        var pages: [[String]] = []
        repeat {
            let page = try await stub.send(UserRepositoriesRequest(userID: user.id, first: 10, after: cursor))
            pages.append(page.nodes.map(\.name))
            #expect(page.totalCount == 25)
            cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : nil
        } while cursor != nil
        #expect(pages.map(\.count) == [10, 10, 5])
        #expect(Set(pages.joined()).count == 25)
    }

    @Test func aUserWithNoRepositoriesGetsAnEmptyLastPage() async throws {
        let user = try await stub.send(SearchUsersRequest(query: "marge", first: 4, after: nil)).nodes[0]
        let page = try await stub.send(UserRepositoriesRequest(userID: user.id, first: 10, after: nil))
        #expect(page.nodes.isEmpty)
        #expect(page.totalCount == 0)
        #expect(page.pageInfo == GitHub.PageInfo(hasNextPage: false, endCursor: nil))
    }

    @Test func aSearchThatFindsNobodyIsAnEmptyResultNotAnError() async throws {
        let page = try await stub.send(SearchUsersRequest(query: "zzz", first: 4, after: nil))
        #expect(page.nodes.isEmpty)
        #expect(page.totalCount == 0)
        #expect(!page.pageInfo.hasNextPage)
    }

    @Test func anUnknownUserIsAGraphQLError() async {
        await #expect(throws: GitHubError.self) {
            try await stub.send(UserRepositoriesRequest(userID: "nope", first: 10, after: nil))
        }
    }

    @Test(arguments: StubSession.Failure.allCases)
    func eachFailureModeBecomesAReadableError(failure: StubSession.Failure) async throws {
        let session = StubSession(failure: failure)
        let error = await #expect(throws: GitHubError.self) {
            try await session.send(SearchUsersRequest(query: "mar", first: 4, after: nil))
        }
        switch (failure, error) {
        case (.rateLimited, .rateLimited(let resetsAt?)?):
            #expect(resetsAt > Date())
        case (.unauthorized, .unauthorized(let message)?):
            #expect(message == "Bad credentials")
        case (.graphQL, .graphQL(let messages)?):
            #expect(messages.count == 1)
        case (.malformed, .decoding(let field, _)?):
            #expect(field == "data.search.userCount")
        case (.offline, .transport?):
            break
        default:
            Issue.record("\(failure) gave \(String(describing: error))")
        }
        #expect(error?.description.isEmpty == false)
    }

    @Test func anHTTPErrorCarriesItsStatusAndMessage() {
        #expect(throws: GitHubError.http(status: 502, message: "Server Error")) {
            try GitHubHTTP.body(status: 502, headers: [:], body: Data(#"{"message": "Server Error"}"#.utf8))
        }
        #expect(throws: GitHubError.http(status: 403, message: nil)) {
            try GitHubHTTP.body(status: 403, headers: ["X-RateLimit-Remaining": "12"], body: Data())
        }
    }

    @Test func malformedJSONNamesTheFieldThatDidNotFit() {
        let body = Data(
            #"{"data": {"search": {"userCount": 1, "pageInfo": {"hasNextPage": false}, "nodes": [{"id": "1"}]}}}"#.utf8)
        #expect(throws: GitHubError.decoding(field: "data.search.nodes[0].login", reason: "missing")) {
            try SearchUsersRequest(query: "x", first: 1, after: nil).decode(body)
        }
        #expect(throws: GitHubError.self) {
            try SearchUsersRequest(query: "x", first: 1, after: nil).decode(Data("not json".utf8))
        }
    }

    @Test func aCancelledStubRequestIsCancelled() async {
        let session = StubSession(latency: .seconds(10))
        let task = Task { try await session.send(SearchUsersRequest(query: "mar", first: 4, after: nil)) }
        task.cancel()
        let result = await task.result
        #expect(throws: GitHubError.cancelled) { try result.get() }
    }

    @Test func theLiveSessionPostsTheQueryWithABearerToken() throws {
        let session = LiveSession(token: "t0k3n")
        let request = try session.makeURLRequest(for: .searchUsers(query: "mar", first: 4, after: nil))
        #expect(request.url == LiveSession.endpoint)
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "bearer t0k3n")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try #require(request.httpBody)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect((json["query"] as? String)?.contains("search(query: $query, type: USER") == true)
        let variables = try #require(json["variables"] as? [String: Any])
        #expect(variables["query"] as? String == "mar")
        #expect(variables["first"] as? Int == 4)
        #expect(variables["after"] is NSNull)
    }

    @Test func theLiveSessionNeedsAToken() {
        #expect(throws: GitHubError.missingToken) { try LiveSession(environment: [:]) }
        #expect(throws: GitHubError.missingToken) { try LiveSession(environment: ["GITHUB_TOKEN": ""]) }
        #expect(throws: Never.self) { try LiveSession(environment: ["GITHUB_TOKEN": "x"]) }
    }

    @Test func cursorsAreGitHubStyleBase64Offsets() {
        #expect(StubSession.cursor(for: 3) == "Y3Vyc29yOjM=")
        #expect(StubSession.offset(of: "Y3Vyc29yOjM=") == 3)
        #expect(StubSession.offset(of: "garbage") == nil)
    }

    @Test func theLiveSessionReadsHTTPAnswersWithTheSharedCode() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [CannedGitHub.self]
        let session = LiveSession(token: "t0k3n", urlSession: URLSession(configuration: configuration))

        CannedGitHub.answer = (200, [:], try Fixtures.bundled.data(named: "graphql-not-found"))
        await #expect(
            throws: GitHubError.graphQL(messages: ["Could not resolve to a node with the global id of 'nope'."])
        ) {
            try await session.send(UserRepositoriesRequest(userID: "nope", first: 10, after: nil))
        }

        CannedGitHub.answer = (
            403, ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1800000000"],
            try Fixtures.bundled.data(named: "rate-limited")
        )
        await #expect(throws: GitHubError.rateLimited(resetsAt: Date(timeIntervalSince1970: 1_800_000_000))) {
            try await session.send(SearchUsersRequest(query: "mar", first: 4, after: nil))
        }

        let body = try StubSession().respond(to: .searchUsers(query: "mar", first: 4, after: nil)).body
        CannedGitHub.answer = (200, ["Content-Type": "application/json"], body)
        let page = try await session.send(SearchUsersRequest(query: "mar", first: 4, after: nil))
        #expect(page.nodes.count == 4)
        #expect(CannedGitHub.lastAuthorization == "bearer t0k3n")
    }
}

/// Answers every request with `answer`, as GitHub would; records the Authorization header.
final class CannedGitHub: URLProtocol {
    // The statics are guarded by `lock`: URLSession loads on its own threads.
    private static let lock = NSLock()
    typealias Answer = (status: Int, headers: [String: String], body: Data)
    nonisolated(unsafe) private static var stored: Answer = (200, [:], Data())
    nonisolated(unsafe) private static var authorization: String?

    static var answer: Answer {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    static var lastAuthorization: String? { lock.withLock { authorization } }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        Self.lock.withLock { Self.authorization = request.value(forHTTPHeaderField: "Authorization") }
        let answer = Self.answer
        let response = HTTPURLResponse(
            url: request.url!, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: answer.headers)!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: answer.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
