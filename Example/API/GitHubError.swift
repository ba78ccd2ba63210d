import Foundation

/// What went wrong talking to GitHub, with what a person needs to act on it.
enum GitHubError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// `--live` without a `GITHUB_TOKEN`.
    case missingToken
    /// HTTP 401: the token is wrong or expired.
    case unauthorized(message: String)
    /// HTTP 403 or 429 with no requests left; the limit resets at `resetsAt`, if known.
    case rateLimited(resetsAt: Date?)
    /// Another HTTP status.
    case http(status: Int, message: String?)
    /// HTTP 200 with a GraphQL `errors` array.
    case graphQL(messages: [String])
    /// The response did not have the expected shape: `field` is where (`data.search.nodes[2].login`).
    case decoding(field: String, reason: String)
    /// The request did not reach GitHub or the response did not come back.
    case transport(String)
    /// The request was cancelled.
    case cancelled

    /// One readable sentence.
    var description: String {
        switch self {
        case .missingToken:
            "--live needs a GitHub token in the GITHUB_TOKEN environment variable."
        case .unauthorized(let message):
            "GitHub refused the token (HTTP 401: \(message)). Check GITHUB_TOKEN."
        case .rateLimited(let resetsAt?):
            "GitHub's rate limit is used up; it resets at \(Self.timeFormatter.string(from: resetsAt)) UTC."
        case .rateLimited(nil):
            "GitHub's rate limit is used up; try again later."
        case .http(let status, let message?):
            "GitHub answered HTTP \(status): \(message)"
        case .http(let status, nil):
            "GitHub answered HTTP \(status)."
        case .graphQL(let messages):
            "GitHub could not run the query: \(messages.joined(separator: "; "))"
        case .decoding(let field, let reason):
            "GitHub's answer could not be read at \(field): \(reason)"
        case .transport(let message):
            "Could not reach GitHub: \(message)"
        case .cancelled:
            "The request was cancelled."
        }
    }

    private static let timeFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "HH:mm"
        return formatter
    }()

    /// `error` as a `GitHubError`: cancellation becomes `.cancelled`, anything else
    /// unexpected `.transport`.
    init(_ error: any Error) {
        switch error {
        case let error as GitHubError:
            self = error
        case is CancellationError:
            self = .cancelled
        case let error as URLError where error.code == .cancelled:
            self = .cancelled
        case let error as URLError:
            self = .transport(error.localizedDescription)
        default:
            self = .transport(String(describing: error))
        }
    }
}
