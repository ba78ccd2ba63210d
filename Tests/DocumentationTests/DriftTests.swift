import DocumentationSamples
import Foundation
import Testing

/// Facts the documentation repeats from the code, checked so that they cannot drift apart
/// unseen (issue 33): the minimum Swift version, the shim's description in Package.swift,
/// and code samples narrow enough for DocC's page.
@Suite("Documentation drift")
struct DriftTests {
    // MARK: The minimum Swift version

    /// The version of `// swift-tools-version:X.Y` on Package.swift's first line.
    static func toolsVersion() throws -> String {
        let manifest = try CodeSamples.text(of: "Package.swift")
        let firstLine = manifest.prefix { $0 != "\n" }
        let match = try #require(firstLine.firstMatch(of: /^\/\/ swift-tools-version: ?(\d+\.\d+)/))
        return String(match.1)
    }

    /// The minimum Swift versions a text names: "Swift 6.2 or later", "Swift 6.2 (Xcode 26)
    /// or later", "needs Swift 6.2", "Swift 6.2+", across line breaks.
    static func minimumSwiftVersions(in text: String) -> Set<String> {
        let flat = text.replacing(/\s+/, with: " ")
        let patterns = [
            /Swift (\d+\.\d+(?:\.\d+)?)(?: \([^)]*\))? or (?:later|newer)/,
            /(?:needs|requires|requiring) Swift (\d+\.\d+(?:\.\d+)?)/,
            /Swift (\d+\.\d+(?:\.\d+)?)\+/,
        ]
        return Set(patterns.flatMap { pattern in flat.matches(of: pattern).map { String($0.1) } })
    }

    /// The documents that may state the minimum Swift version: every Markdown and Swift file
    /// of the library and the example, and the top-level documents. Not the tests (which
    /// quote versions on purpose), the changelog (which keeps each release's own minimum),
    /// nor CI's copy of the Apple SDK kit (a tool of its own).
    static func documents() throws -> [String] {
        let top = ["README.md", "CONTRIBUTING.md", "MIGRATION.md", "Package.swift", "Benchmarks/README.md"]
        let trees = try ["Sources", "Example"].flatMap { try CodeSamples.files(under: $0) }
        return top + trees.filter { $0.hasSuffix(".md") || $0.hasSuffix(".swift") }
    }

    @Test func everyMinimumSwiftVersionTheDocsNameIsTheToolsVersion() throws {
        let version = try Self.toolsVersion()
        var named: [String: Set<String>] = [:]
        for path in try Self.documents() {
            named[path] = Self.minimumSwiftVersions(in: try CodeSamples.text(of: path))
            for other in named[path, default: []] where other != version {
                Issue.record(
                    """
                    \(path) names Swift \(other) as the minimum, but Package.swift's \
                    swift-tools-version is \(version): say Swift \(version) or later (or change \
                    the tools version, and then every document that names it).
                    """)
            }
        }
        for path in ["README.md", "CONTRIBUTING.md", "Sources/FluxCapacitor/FluxCapacitor.docc/FluxCapacitor.md"] {
            #expect(named[path, default: []].contains(version), "\(path) says which Swift it needs: \(version)")
        }
    }

    @Test func theMinimumSwiftVersionIsFoundInTheWaysTheDocsSayIt() {
        let text = """
            needs Swift 6.2 or later; Swift 5.9 (Xcode 15)
            or newer. It requires Swift 6.0, and Swift 6.1+ works. CI runs Swift 6.3.1 on Linux.
            """
        #expect(Self.minimumSwiftVersions(in: text) == ["6.2", "5.9", "6.0", "6.1"])
    }

    // MARK: The shim's description

    /// The shim header's `MARK:` sections, in order.
    static func shimSections() throws -> [String] {
        let header = try CodeSamples.text(of: "Sources/CFluxCapacitorShims/include/CFluxCapacitorShims.h")
        return header.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\/\/ MARK: (.+)$/).map { $0.1.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The sections Package.swift's comment on the shim target lists: the comment lines right
    /// above `.target(name: "CFluxCapacitorShims")`, after "Its header's sections, one for
    /// one (…):", up to the final period, split at semicolons.
    static func sectionsPackageSwiftNames() throws -> [String] {
        let lines = try CodeSamples.text(of: "Package.swift").split(separator: "\n", omittingEmptySubsequences: false)
        let target = try #require(lines.firstIndex { $0.contains(#".target(name: "CFluxCapacitorShims""#) })
        var comment: [Substring] = []
        var index = target - 1
        while index >= 0, let text = lines[index].firstMatch(of: /^\s*\/\/ ?(.*)$/) {
            comment.insert(text.1, at: 0)
            index -= 1
        }
        let prose = comment.joined(separator: " ")
        let list = try #require(prose.firstMatch(of: /Its header's sections, one for one \([^)]*\): (.+)\.\s*$/))
        return list.1.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func packageSwiftListsTheShimsHeaderSectionsOneForOne() throws {
        let sections = try Self.shimSections()
        let listed = try Self.sectionsPackageSwiftNames()
        #expect(!sections.isEmpty)
        #expect(
            listed == sections,
            """
            Package.swift's comment on the CFluxCapacitorShims target lists the header's sections \
            as \(listed), but Sources/CFluxCapacitorShims/include/CFluxCapacitorShims.h has \
            \(sections) (its `// MARK:` lines). Describe what the shim holds now, and list them.
            """)
    }

    // MARK: One overview per page

    /// A documentation extension file (`# ``Symbol```, under a catalog's `Reference/`) adds
    /// topics to its symbol's page, not an `## Overview` or `## Discussion`: the symbol's
    /// doc comment is the page's overview, and DocC would show a second one under the
    /// first (the `Variable` page did: "Discussion", then "Overview").
    @Test func extensionFilesAddNoSecondOverview() throws {
        let extensions = try CodeSamples.files(under: "Sources").filter { path in
            path.contains(".docc/Reference/") && path.hasSuffix(".md")
        }
        #expect(extensions.count >= 15, "the Reference pages of the three catalogs")
        for path in extensions {
            for line in try CodeSamples.text(of: path).split(separator: "\n")
            where line == "## Overview" || line == "## Discussion" {
                Issue.record(
                    """
                    \(path): "\(line)" in an extension file doubles the symbol's own overview; \
                    move the text into the symbol's doc comment.
                    """)
            }
        }
    }

    // MARK: The internals' maps

    /// The map of a product's `Internal/README.md`: each `- `Folder/`: …` item of its
    /// "## Map" section, with the `.swift` files the item names.
    static func map(in readme: String) throws -> [String: Set<String>] {
        let section = try #require(readme.components(separatedBy: "\n## Map\n").dropFirst().first)
        let body = section.components(separatedBy: "\n## ")[0]
        var map: [String: Set<String>] = [:]
        for item in body.components(separatedBy: "\n- ").dropFirst() {
            let folder = try #require(item.firstMatch(of: /^`([A-Za-z]+)\/`:/)).1
            map[String(folder)] = Set(item.matches(of: /`([A-Za-z+]+\.swift)`/).map { String($0.1) })
        }
        return map
    }

    /// "Internal/README's map follows the folders" (issue 43): every folder of a product's
    /// `Internal/` and every file in it is on the map, and nothing else is.
    @Test(arguments: ["FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting"])
    func theInternalsMapNamesEveryFolderAndFile(module: String) throws {
        let folder = "Sources/\(module)/Internal"
        let map = try Self.map(in: CodeSamples.text(of: "\(folder)/README.md"))
        var folders: [String: Set<String>] = [:]
        for path in try CodeSamples.files(under: folder) where path.hasSuffix(".swift") {
            let parts = path.dropFirst(folder.count + 1).split(separator: "/")
            #expect(parts.count == 2, "\(path): a file of Internal/ is in a subsystem's folder")
            if parts.count == 2 {
                folders[String(parts[0]), default: []].insert(String(parts[1]))
            }
        }
        #expect(!folders.isEmpty)
        #expect(
            map == folders,
            """
            \(folder)/README.md's map (its "## Map" list: `Folder/`, then each file in \
            code spans) says \(map.sorted { $0.key < $1.key }), but the folders hold \
            \(folders.sorted { $0.key < $1.key }).
            """)
    }

    // MARK: Traps that say why

    /// A misuse trap names the type and the fix, in every build: the library traps with
    /// `fatalError`, since `precondition` and `preconditionFailure` print no message in an
    /// `-O` build (Swift's documentation of their `message`: "A string to print ... in a
    /// playground or `-Onone` build"), so an app's release build would stop with no word
    /// of why.
    @Test(arguments: ["FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting"])
    func everyTrapOfTheLibraryPrintsItsMessageInEveryBuild(module: String) throws {
        var silent: [String] = []
        var traps = 0
        for path in try CodeSamples.files(under: "Sources/\(module)") where path.hasSuffix(".swift") {
            for (number, line) in try CodeSamples.text(of: path).split(separator: "\n").enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if code.contains(/\b(precondition|preconditionFailure|assertionFailure)\(/) {
                    silent.append("\(path):\(number + 1)")
                }
                if code.contains("fatalError(") {
                    traps += 1
                }
            }
        }
        #expect(silent.isEmpty, "trap with fatalError (a message in every build) instead: \(silent)")
        #expect(traps > 0)
    }

    // MARK: Code that fits DocC's page

    /// The widest line a code block may have: DocC cuts longer lines off in a 1,280-pixel
    /// window.
    static let columns = 80

    /// The blocks the rule covers: every fenced block, whatever its language, of README.md,
    /// MIGRATION.md, CONTRIBUTING.md, the DocC articles, the notes on the internals
    /// (`Sources/*/Internal/README.md`) and the doc comments of `Sources`. Output quoted as
    /// printed (`text` blocks) is wrapped too, and the text before it says so (issue 43: no
    /// sample scrolls sideways). Benchmarks/README.md is not covered.
    static func blocks() throws -> [CodeSample] {
        let notes = try CodeSamples.files(under: "Sources").filter { path in
            path.hasSuffix(".md") && !path.contains(".docc/")
        }
        #expect(notes.count >= 3, "the notes on each product's internals")
        var blocks = try CodeSamples.all(anyLanguage: true)
        for path in ["CONTRIBUTING.md"] + notes {
            blocks += CodeSamples.inMarkdown(try CodeSamples.text(of: path), file: path, anyLanguage: true)
        }
        return blocks
    }

    @Test func theRuleCoversEveryKindOfBlock() throws {
        let blocks = try Self.blocks()
        let files = Set(blocks.map(\.file))
        for file in ["README.md", "MIGRATION.md", "Sources/FluxCapacitor/Internal/README.md"] {
            #expect(files.contains(file), "\(file)'s blocks")
        }
        #expect(files.contains { $0.contains(".docc/") }, "the articles' blocks")
        #expect(files.contains { $0.hasSuffix(".swift") }, "the doc comments' blocks")
        let languages = Set(blocks.map(\.language))
        #expect(languages.isSuperset(of: ["swift", "sh", "text"]))
    }

    @Test func everyCodeSampleFitsEightyColumns() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count > 100)
        for block in blocks {
            for (offset, line) in block.code.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.count > Self.columns {
                Issue.record(
                    """
                    \(block.file):\(block.line + 1 + offset): \(line.count) columns, over \(Self.columns) \
                    (DocC cuts it off, GitHub scrolls it); wrap it, and its copy in the \
                    *Snippets.swift file that compiles it (output: say it is wrapped):
                    \(line)
                    """)
            }
        }
    }
}
