import Foundation

/// GraphQL documents and the reading of GraphQL answers, shared by every session.
enum GraphQL {
    static let searchUsers = """
        query SearchUsers($query: String!, $first: Int!, $after: String) {
          search(query: $query, type: USER, first: $first, after: $after) {
            userCount
            pageInfo { hasNextPage endCursor }
            nodes {
              ... on User {
                id login name bio avatarUrl url
                repositories { totalCount }
              }
            }
          }
        }
        """

    static let userRepositories = """
        query UserRepositories($userID: ID!, $first: Int!, $after: String) {
          node(id: $userID) {
            ... on User {
              repositories(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
                totalCount
                pageInfo { hasNextPage endCursor }
                nodes {
                  id name description url stargazerCount forkCount
                  primaryLanguage { name }
                  updatedAt
                }
              }
            }
          }
        }
        """

    private struct Envelope<Body: Decodable>: Decodable {
        struct Message: Decodable {
            let message: String
        }
        let data: Body?
        let errors: [Message]?
    }

    /// Reads `data` from a GraphQL answer; an `errors` array becomes `GitHubError.graphQL`,
    /// a shape that does not fit becomes `GitHubError.decoding` naming the field.
    static func decode<Body: Decodable>(_ type: Body.Type, from data: Data) throws -> Body {
        let envelope: Envelope<Body>
        do {
            envelope = try GitHub.makeDecoder().decode(Envelope<Body>.self, from: data)
        } catch let error as DecodingError {
            throw GitHubError(decoding: error)
        } catch {
            throw GitHubError.decoding(field: "(root)", reason: String(describing: error))
        }
        if let errors = envelope.errors, !errors.isEmpty {
            throw GitHubError.graphQL(messages: errors.map(\.message))
        }
        guard let body = envelope.data else {
            throw GitHubError.decoding(field: "data", reason: "missing")
        }
        return body
    }
}

/// What an HTTP answer from GitHub means, shared by every session: the body of a success,
/// or the error a status stands for.
enum GitHubHTTP {
    static func body(status: Int, headers: [String: String], body: Data) throws -> Data {
        let headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        if (200..<300).contains(status) {
            return body
        }
        let message = (try? JSONDecoder().decode(Message.self, from: body))?.message
        if status == 401 {
            throw GitHubError.unauthorized(message: message ?? "Bad credentials")
        }
        if status == 429 || (status == 403 && headers["x-ratelimit-remaining"] == "0") {
            let reset = headers["x-ratelimit-reset"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
            throw GitHubError.rateLimited(resetsAt: reset)
        }
        throw GitHubError.http(status: status, message: message)
    }

    private struct Message: Decodable {
        let message: String
    }
}

extension GitHubError {
    /// A decoding error, with the path of the field that did not fit.
    init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.reduce("") { path, key in
                if let index = key.intValue {
                    return path + "[\(index)]"
                }
                return path.isEmpty ? key.stringValue : path + "." + key.stringValue
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            self = .decoding(field: path(context.codingPath + [key]), reason: "missing")
        case .valueNotFound(_, let context):
            self = .decoding(field: path(context.codingPath), reason: "null where a value was expected")
        case .typeMismatch(let type, let context):
            self = .decoding(field: path(context.codingPath), reason: "expected a value of type \(type)")
        case .dataCorrupted(let context):
            self = .decoding(
                field: context.codingPath.isEmpty ? "(root)" : path(context.codingPath),
                reason: context.debugDescription)
        @unknown default:
            self = .decoding(field: "(unknown)", reason: String(describing: error))
        }
    }
}
