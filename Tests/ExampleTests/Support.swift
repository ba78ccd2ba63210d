import FluxCapacitorPersistence
import Foundation
import Testing

@testable import repository_search

/// A session that answers with canned pages or errors, and records what it was asked.
final class MockSession: GitHubSession, @unchecked Sendable {
    // Sendable: `lock` guards `requests` and the canned answers.
    private let lock = NSLock()
    private var recorded: [GitHubOperation] = []
    private var userPages: [Result<GitHub.Page<GitHub.User>, GitHubError>]
    private var repositoryPages: [Result<GitHub.Page<GitHub.Repository>, GitHubError>]

    init(
        users: [Result<GitHub.Page<GitHub.User>, GitHubError>] = [],
        repositories: [Result<GitHub.Page<GitHub.Repository>, GitHubError>] = []
    ) {
        userPages = users
        repositoryPages = repositories
    }

    var requests: [GitHubOperation] {
        lock.withLock { recorded }
    }

    func send<Request: GitHubRequest>(_ request: Request) async throws -> Request.Response {
        let answer: Any = try lock.withLock {
            recorded.append(request.operation)
            switch request.operation {
            case .searchUsers:
                guard !userPages.isEmpty else { throw GitHubError.transport("no canned page of users") }
                return try userPages.removeFirst().get()
            case .userRepositories:
                guard !repositoryPages.isEmpty else { throw GitHubError.transport("no canned page of repositories") }
                return try repositoryPages.removeFirst().get()
            }
        }
        return answer as! Request.Response
    }
}

enum Sample {
    static func user(_ login: String, repositories: Int = 3) -> GitHub.User {
        GitHub.User(
            id: "id-\(login)", login: login, name: login.capitalized,
            avatarURL: URL(string: "https://avatars.example/\(login)")!,
            url: URL(string: "https://github.com/\(login)")!, repositoryCount: repositories)
    }

    static func repository(_ name: String, owner: String = "marty") -> GitHub.Repository {
        GitHub.Repository(
            id: "id-\(owner)-\(name)", name: name, summary: "About \(name)",
            url: URL(string: "https://github.com/\(owner)/\(name)")!, stargazerCount: 7, language: "Swift")
    }

    static func page<Node>(_ nodes: [Node], total: Int, next: String? = nil) -> GitHub.Page<Node> {
        GitHub.Page(
            nodes: nodes, pageInfo: GitHub.PageInfo(hasNextPage: next != nil, endCursor: next), totalCount: total)
    }
}

/// Runs each test with an `InMemoryStorage` of its own as the default storage, so that the
/// favorites of the stores it makes are saved there (never in the user's folder, never
/// shared with a test running alongside).
struct InMemoryStorageTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @concurrent @Sendable () async throws -> Void
    ) async throws {
        try await Persistence.withDefaultStorage(InMemoryStorage(coalescingInterval: .zero)) {
            try await function()
        }
    }
}

extension Trait where Self == InMemoryStorageTrait {
    /// Runs each test with an in-memory default storage of its own.
    static var inMemoryStorage: Self {
        InMemoryStorageTrait()
    }
}
