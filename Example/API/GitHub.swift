import Foundation

/// The GitHub models the example uses, decoded from GitHub's GraphQL API v4 shapes.
enum GitHub {
    /// A GitHub user (`User` in the GraphQL schema).
    struct User: Codable, Sendable, Hashable, Identifiable, CustomStringConvertible {
        let id: String
        let login: String
        let name: String?
        let bio: String?
        let avatarURL: URL
        let url: URL
        /// `repositories { totalCount }`.
        let repositoryCount: Int

        var description: String { login }

        private enum CodingKeys: String, CodingKey {
            case id, login, name, bio, url, repositories
            case avatarURL = "avatarUrl"
        }

        private struct RepositoryConnectionCount: Codable {
            let totalCount: Int
        }

        init(
            id: String, login: String, name: String? = nil, bio: String? = nil,
            avatarURL: URL, url: URL, repositoryCount: Int
        ) {
            self.id = id
            self.login = login
            self.name = name
            self.bio = bio
            self.avatarURL = avatarURL
            self.url = url
            self.repositoryCount = repositoryCount
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            login = try container.decode(String.self, forKey: .login)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            bio = try container.decodeIfPresent(String.self, forKey: .bio)
            avatarURL = try container.decode(URL.self, forKey: .avatarURL)
            url = try container.decode(URL.self, forKey: .url)
            repositoryCount = try container.decode(RepositoryConnectionCount.self, forKey: .repositories).totalCount
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(login, forKey: .login)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(bio, forKey: .bio)
            try container.encode(avatarURL, forKey: .avatarURL)
            try container.encode(url, forKey: .url)
            try container.encode(RepositoryConnectionCount(totalCount: repositoryCount), forKey: .repositories)
        }
    }

    /// A repository (`Repository` in the GraphQL schema).
    struct Repository: Codable, Sendable, Hashable, Identifiable, CustomStringConvertible {
        let id: String
        let name: String
        let summary: String?
        let url: URL
        /// `stargazerCount`, or `stargazers { totalCount }` in the older schema.
        let stargazerCount: Int
        let forkCount: Int
        /// `primaryLanguage { name }`.
        let language: String?
        let updatedAt: Date

        var description: String { name }

        /// `owner/name`, from the URL.
        var fullName: String {
            url.pathComponents.suffix(2).joined(separator: "/")
        }

        private enum CodingKeys: String, CodingKey {
            case id, name, url, stargazerCount, stargazers, forkCount, primaryLanguage, updatedAt
            case summary = "description"
        }

        private struct Count: Codable {
            let totalCount: Int
        }

        private struct Language: Codable {
            let name: String
        }

        init(
            id: String, name: String, summary: String? = nil, url: URL, stargazerCount: Int = 0,
            forkCount: Int = 0, language: String? = nil, updatedAt: Date = Date(timeIntervalSince1970: 0)
        ) {
            self.id = id
            self.name = name
            self.summary = summary
            self.url = url
            self.stargazerCount = stargazerCount
            self.forkCount = forkCount
            self.language = language
            self.updatedAt = updatedAt
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            summary = try container.decodeIfPresent(String.self, forKey: .summary)
            url = try container.decode(URL.self, forKey: .url)
            if let count = try container.decodeIfPresent(Int.self, forKey: .stargazerCount) {
                stargazerCount = count
            } else {
                stargazerCount = try container.decode(Count.self, forKey: .stargazers).totalCount
            }
            forkCount = try container.decode(Int.self, forKey: .forkCount)
            language = try container.decodeIfPresent(Language.self, forKey: .primaryLanguage)?.name
            updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(summary, forKey: .summary)
            try container.encode(url, forKey: .url)
            try container.encode(stargazerCount, forKey: .stargazerCount)
            try container.encode(forkCount, forKey: .forkCount)
            try container.encodeIfPresent(language.map(Language.init), forKey: .primaryLanguage)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    /// Where a page of a connection ends (`pageInfo { hasNextPage endCursor }`).
    struct PageInfo: Codable, Sendable, Hashable, CustomStringConvertible {
        let hasNextPage: Bool
        let endCursor: String?

        var description: String {
            hasNextPage ? "more after \(endCursor ?? "?")" : "last page"
        }
    }

    /// One page of a connection: its nodes, where it ends, and how many there are in all.
    struct Page<Node: Sendable & Hashable>: Sendable, Hashable {
        let nodes: [Node]
        let pageInfo: PageInfo
        let totalCount: Int
    }

    /// The decoder for GitHub's JSON: ISO 8601 dates.
    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
