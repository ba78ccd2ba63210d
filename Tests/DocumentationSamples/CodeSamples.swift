public import Foundation

/// A Swift code sample of the documentation: a fenced ```` ```swift ```` block of a Markdown
/// file (README.md, MIGRATION.md, a DocC article), or of a doc comment.
///
/// Every sample is either compiled by the tests (it appears, line for line, in one of the
/// test targets' `*Snippets.swift` files) or says why not, on the line before its fence:
///
/// ```text
/// <!-- not compiled: SwiftUI does not exist on Linux -->
/// ```
///
/// (in a doc comment, `/// <!-- not compiled: … -->`). DocC and GitHub do not render the
/// comment.
public struct CodeSample: Sendable, CustomStringConvertible {
    /// Whether the tests compile a sample.
    public enum Status: Sendable, Equatable {
        /// It must appear in a `*Snippets.swift` file.
        case compiled
        /// It is marked as not compiled, for `reason`.
        case notCompiled(reason: String)
    }

    /// The file, relative to the package root.
    public let file: String
    /// The line of the opening fence, from 1.
    public let line: Int
    /// The language its fence names (`swift`, `sh`, `text`; empty if none).
    public let language: String
    /// The code, without the fences (and without the `///` of a doc comment).
    public let code: String
    /// Whether it is compiled.
    public let status: Status

    /// A sample of `file` at `line`.
    public init(file: String, line: Int, language: String = "swift", code: String, status: Status) {
        self.file = file
        self.line = line
        self.language = language
        self.code = code
        self.status = status
    }

    /// `file:line`, where an editor can open the sample.
    public var description: String { "\(file):\(line)" }
}

/// Finds the documentation's code samples and the code that compiles them.
public enum CodeSamples: Sendable {
    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static let marker = "<!-- not compiled:"

    /// The Swift samples of a Markdown text, or with `anyLanguage`, every fenced block.
    public static func inMarkdown(_ text: String, file: String, anyLanguage: Bool = false) -> [CodeSample] {
        samples(in: text.components(separatedBy: "\n").map { Substring($0) }, file: file, anyLanguage: anyLanguage)
    }

    /// The Swift samples of the doc comments (`///` lines) of a Swift source file, or with
    /// `anyLanguage`, every fenced block.
    public static func inDocComments(_ source: String, file: String, anyLanguage: Bool = false) -> [CodeSample] {
        // Each line becomes its doc comment text, or a line no fence or marker can match,
        // so that line numbers stay those of the file.
        let lines = source.components(separatedBy: "\n").map { line -> Substring in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("///") else { return "\u{0}" }
            let text = trimmed.dropFirst(3)
            return text.hasPrefix(" ") ? text.dropFirst() : text
        }
        return samples(in: lines, file: file, anyLanguage: anyLanguage)
    }

    private static func samples(in lines: [Substring], file: String, anyLanguage: Bool) -> [CodeSample] {
        var samples: [CodeSample] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].drop { $0 == " " }
            guard fence.hasPrefix("```"), anyLanguage || fence == "```swift" else {
                index += 1
                continue
            }
            let language = String(fence.dropFirst(3))
            let indentation = lines[index].count - fence.count
            let opening = index
            var code: [Substring] = []
            index += 1
            while index < lines.count, lines[index].drop(while: { $0 == " " }) != "```" {
                code.append(lines[index].dropFirst(min(indentation, lines[index].prefix { $0 == " " }.count)))
                index += 1
            }
            index += 1
            var status = CodeSample.Status.compiled
            if opening > 0 {
                let previous = lines[opening - 1].trimmingCharacters(in: .whitespaces)
                if previous.hasPrefix(marker), previous.hasSuffix("-->") {
                    let reason = previous.dropFirst(marker.count).dropLast(3)
                    status = .notCompiled(reason: reason.trimmingCharacters(in: .whitespaces))
                }
            }
            samples.append(
                CodeSample(
                    file: file, line: opening + 1, language: language, code: code.joined(separator: "\n"),
                    status: status))
        }
        return samples
    }

    /// Every sample: README.md, MIGRATION.md, the DocC articles, and the doc comments of
    /// `Sources`. With `anyLanguage`, every fenced block of those (shell commands, output).
    public static func all(anyLanguage: Bool = false) throws -> [CodeSample] {
        var samples: [CodeSample] = []
        for name in ["README.md", "MIGRATION.md"] {
            samples += inMarkdown(try text(of: name), file: name, anyLanguage: anyLanguage)
        }
        for path in try files(under: "Sources") {
            if path.hasSuffix(".md") && path.contains(".docc/") {
                samples += inMarkdown(try text(of: path), file: path, anyLanguage: anyLanguage)
            } else if path.hasSuffix(".swift") {
                samples += inDocComments(try text(of: path), file: path, anyLanguage: anyLanguage)
            }
        }
        return samples
    }

    /// The code that compiles the samples: every `*Snippets.swift` file under `Tests`,
    /// normalized as ``isCompiled(_:in:)`` compares it.
    public static func compiledCode() throws -> String {
        try files(under: "Tests").filter { $0.hasSuffix("Snippets.swift") }
            .map { try unindented(text(of: $0)) }
            .joined(separator: "\n")
    }

    /// Whether `sample` appears in `compiledCode` as whole lines, in order: indentation,
    /// blank lines and the width of runs of spaces aside (swift-format puts two spaces
    /// before a trailing comment, a Markdown sample may have one).
    public static func isCompiled(_ sample: CodeSample, in compiledCode: String) -> Bool {
        "\n\(unindented(compiledCode))\n".contains("\n\(unindented(sample.code))\n")
    }

    private static func unindented(_ code: String) -> String {
        code.components(separatedBy: "\n")
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    /// The text of the file at `path`, relative to the package root.
    public static func text(of path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The files under `folder` (relative to the package root, as are the paths returned),
    /// sorted.
    public static func files(under folder: String) throws -> [String] {
        let base = packageRoot.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.sorted().map { "\(folder)/\($0)" }
    }
}
