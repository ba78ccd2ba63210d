import Foundation

/// What a request asks GitHub for: the operations the example uses.
enum GitHubOperation: Sendable, Hashable {
    /// `search(query: $query, type: USER, first: $first, after: $after)`.
    case searchUsers(query: String, first: Int, after: String?)
    /// `node(id: $userID) { ... on User { repositories(first: $first, after: $after) } }`.
    case userRepositories(userID: String, first: Int, after: String?)
}

/// A GraphQL request to GitHub and how to read its answer.
protocol GitHubRequest: Sendable {
    associatedtype Response: Sendable

    var operation: GitHubOperation { get }

    /// Reads the body of a successful HTTP response.
    func decode(_ body: Data) throws -> Response
}

/// The JSON body GitHub's GraphQL endpoint takes: a document and its variables.
struct GraphQLRequestBody: Encodable, Sendable, Equatable {
    enum Variable: Encodable, Sendable, Equatable {
        case string(String)
        case int(Int)
        case null

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .null: try container.encodeNil()
            }
        }
    }

    let query: String
    let variables: [String: Variable]
}

extension GitHubOperation {
    /// The GraphQL document and variables for this operation.
    var graphQLBody: GraphQLRequestBody {
        switch self {
        case .searchUsers(let query, let first, let after):
            GraphQLRequestBody(
                query: GraphQL.searchUsers,
                variables: ["query": .string(query), "first": .int(first), "after": after.map { .string($0) } ?? .null])
        case .userRepositories(let userID, let first, let after):
            GraphQLRequestBody(
                query: GraphQL.userRepositories,
                variables: [
                    "userID": .string(userID), "first": .int(first), "after": after.map { .string($0) } ?? .null,
                ])
        }
    }
}

/// Search users by a query, a page at a time.
struct SearchUsersRequest: GitHubRequest {
    let query: String
    let first: Int
    let after: String?

    var operation: GitHubOperation { .searchUsers(query: query, first: first, after: after) }

    private struct Body: Decodable {
        struct Search: Decodable {
            let userCount: Int
            let pageInfo: GitHub.PageInfo
            let nodes: [GitHub.User]
        }
        let search: Search
    }

    func decode(_ body: Data) throws -> GitHub.Page<GitHub.User> {
        let search = try GraphQL.decode(Body.self, from: body).search
        return GitHub.Page(nodes: search.nodes, pageInfo: search.pageInfo, totalCount: search.userCount)
    }
}

/// A user's repositories, a page at a time.
struct UserRepositoriesRequest: GitHubRequest {
    let userID: String
    let first: Int
    let after: String?

    var operation: GitHubOperation { .userRepositories(userID: userID, first: first, after: after) }

    private struct Body: Decodable {
        struct Node: Decodable {
            let repositories: Connection
        }
        struct Connection: Decodable {
            let totalCount: Int
            let pageInfo: GitHub.PageInfo
            let nodes: [GitHub.Repository]
        }
        let node: Node?
    }

    func decode(_ body: Data) throws -> GitHub.Page<GitHub.Repository> {
        guard let connection = try GraphQL.decode(Body.self, from: body).node?.repositories else {
            throw GitHubError.graphQL(messages: ["Could not resolve to a User with the id \(userID)."])
        }
        return GitHub.Page(nodes: connection.nodes, pageInfo: connection.pageInfo, totalCount: connection.totalCount)
    }
}
