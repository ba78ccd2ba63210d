import Foundation
import Testing

@testable import repository_search

@Suite("Decoding the fixtures")
struct FixtureDecodingTests {
    let fixtures = Fixtures.bundled
    let decoder = GitHub.makeDecoder()

    @Test func theUsersFixtureDecodesAsGitHubUsers() throws {
        let users = try decoder.decode([GitHub.User].self, from: fixtures.data(named: "users"))
        #expect(users.count == 8)
        #expect(users.first?.login == "marty-mcfly")
        #expect(users.first?.repositoryCount == 25)
        #expect(users.contains { $0.login == "margaret-lake" && $0.name == nil })
    }

    @Test(arguments: [
        "marty-mcfly", "marvin-berry", "mark-delorean", "marlene-mcfly", "margaret-lake", "marge-no-repos",
        "doc-brown", "biff-tannen",
    ])
    func everyRepositoriesFixtureDecodesAndMatchesItsUser(login: String) throws {
        let repositories = try decoder.decode(
            [GitHub.Repository].self, from: fixtures.data(named: "repositories/\(login)"))
        let users = try decoder.decode([GitHub.User].self, from: fixtures.data(named: "users"))
        #expect(repositories.count == users.first { $0.login == login }?.repositoryCount)
        #expect(repositories.allSatisfy { $0.fullName.hasPrefix("\(login)/") })
    }

    @Test func aRepositoryInTheOlderSchemaDecodesItsStargazers() throws {
        let repository = try decoder.decode(
            GitHub.Repository.self, from: fixtures.data(named: "repository-older-schema"))
        #expect(repository.stargazerCount == 88)
        #expect(repository.language == "Swift")
        #expect(repository.updatedAt == ISO8601DateFormatter().date(from: "2015-10-21T16:29:00Z"))
    }

    @Test func theGraphQLErrorFixturesAreGraphQLErrors() throws {
        #expect(throws: GitHubError.graphQL(messages: ["Could not resolve to a node with the global id of 'nope'."])) {
            try UserRepositoriesRequest(userID: "nope", first: 10, after: nil)
                .decode(fixtures.data(named: "graphql-not-found"))
        }
        let error = #expect(throws: GitHubError.self) {
            try SearchUsersRequest(query: "mar", first: 4, after: nil).decode(fixtures.data(named: "graphql-error"))
        }
        guard case .graphQL(let messages)? = error else {
            Issue.record("expected a GraphQL error, got \(String(describing: error))")
            return
        }
        #expect(messages.first?.hasPrefix("Something went wrong while executing your query.") == true)
    }

    @Test func theHTTPErrorFixturesAreReadAsTheirErrors() throws {
        #expect(throws: GitHubError.unauthorized(message: "Bad credentials")) {
            try GitHubHTTP.body(status: 401, headers: [:], body: fixtures.data(named: "bad-credentials"))
        }
        #expect(throws: GitHubError.rateLimited(resetsAt: Date(timeIntervalSince1970: 1_800_000_000))) {
            try GitHubHTTP.body(
                status: 403, headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1800000000"],
                body: fixtures.data(named: "rate-limited"))
        }
    }

    @Test func modelsSurviveAnEncodeDecodeRoundTrip() throws {
        let users = try decoder.decode([GitHub.User].self, from: fixtures.data(named: "users"))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let encoded = try encoder.encode(users)
        #expect(try decoder.decode([GitHub.User].self, from: encoded) == users)
    }
}
