import Foundation

/// How each screen looks, as lines of text.
enum Screens {
    static func search(_ viewModel: SearchViewModel, maxRows: Int? = nil) -> [String] {
        guard !viewModel.query.isEmpty else {
            return ["[Search] type 'search QUERY' to find GitHub users"]
        }
        var lines = ["[Search \"\(Command.printable(viewModel.query))\" — \(viewModel.counterText) users]"]
        if let error = viewModel.errorMessage {
            lines.append("  error: \(error)")
        }
        if viewModel.users.isEmpty, viewModel.errorMessage == nil {
            lines.append("  (no users)")
        }
        lines += rows(viewModel.users, maxRows: maxRows) { index, user in
            let name = user.name.map { " — \($0)" } ?? ""
            return "  \(index + 1). \(user.login)\(name) · \(count(user.repositoryCount, "repository"))"
        }
        if viewModel.canLoadMore {
            lines.append("  … 'more' for the next page")
        }
        return lines
    }

    static func userRepositories(_ viewModel: UserRepositoryViewModel, maxRows: Int? = nil) -> [String] {
        guard let user = viewModel.user else {
            return ["[Repositories] no user selected"]
        }
        var lines = ["[\(user.login)'s repositories — \(viewModel.counterText)]"]
        if let error = viewModel.errorMessage {
            lines.append("  error: \(error)")
        }
        if viewModel.repositories.isEmpty, viewModel.errorMessage == nil {
            lines.append("  (no repositories)")
        }
        let favorites = viewModel.favoriteIDs
        lines += rows(viewModel.repositories, maxRows: maxRows) { index, repository in
            let star = favorites.contains(repository.id) ? "★ " : ""
            return "  \(index + 1). \(star)\(summary(of: repository))"
        }
        if viewModel.canLoadMore {
            lines.append("  … 'more' for the next page")
        }
        return lines
    }

    static func repository(_ viewModel: RepositoryViewModel) -> [String] {
        guard let repository = viewModel.repository else {
            return ["[Repository] none open"]
        }
        let language = repository.language.map { " · \($0)" } ?? ""
        return [
            "[\(repository.fullName)]",
            "  \(repository.summary ?? "(no description)")",
            "  \(count(repository.stargazerCount, "star")) · \(count(repository.forkCount, "fork"))\(language) · "
                + "updated \(day(repository.updatedAt))",
            "  \(repository.url.absoluteString)",
            viewModel.isFavorite ? "  ★ a favorite ('fav' to unstar)" : "  ☆ not a favorite ('fav' to star)",
        ]
    }

    static func favorites(_ viewModel: FavoriteViewModel) -> [String] {
        let favorites = viewModel.favorites
        var lines = ["[Favorites — \(favorites.count)]"]
        if favorites.isEmpty {
            lines.append("  (none yet: 'fav N' on a list of repositories)")
        }
        for (index, repository) in favorites.enumerated() {
            lines.append("  \(index + 1). ★ \(repository.fullName)")
        }
        return lines
    }

    /// The rows of `items`; past `maxRows`, the first few and the last few, with a line
    /// saying how many are elided.
    private static func rows<Item>(
        _ items: [Item], maxRows: Int?, row: (Int, Item) -> String
    ) -> [String] {
        let numbered = Array(items.enumerated())
        guard let maxRows, numbered.count > maxRows else {
            return numbered.map(row)
        }
        let head = max(1, maxRows / 2 - 1)
        let tail = max(1, maxRows - head - 1)
        return numbered.prefix(head).map(row)
            + ["  ⋮ (\(numbered.count - head - tail) rows not shown)"]
            + numbered.suffix(tail).map(row)
    }

    private static func summary(of repository: GitHub.Repository) -> String {
        var text = "\(repository.name) · \(count(repository.stargazerCount, "star"))"
        if let language = repository.language {
            text += " · \(language)"
        }
        if let summary = repository.summary {
            text += " — \(summary)"
        }
        return text
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        let plural = noun.hasSuffix("y") ? noun.dropLast() + "ies" : noun + "s"
        return "\(number) \(number == 1 ? noun : String(plural))"
    }

    private static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
