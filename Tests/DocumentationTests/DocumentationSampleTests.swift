import DocumentationSamples
import TestSupport
import Testing

@Suite("Documentation samples")
struct DocumentationSampleTests {
    @Test func everySampleIsCompiledOrSaysWhyNot() throws {
        let compiled = try CodeSamples.compiledCode()
        let samples = try CodeSamples.all()
        #expect(samples.count > 100, "the README, MIGRATION, the articles and the doc comments")
        for sample in samples {
            switch sample.status {
            case .compiled:
                let isCompiled = CodeSamples.isCompiled(sample, in: compiled)
                #expect(
                    isCompiled,
                    """
                    \(sample): not in any *Snippets.swift file. Compile it there, or mark it \
                    `<!-- not compiled: reason -->` on the line before its fence:
                    \(sample.code)
                    """)
            case .notCompiled(let reason):
                #expect(!reason.isEmpty, "\(sample): say why it is not compiled")
            }
        }
    }

    /// What a sample prints goes to `SampleOutput`, not the test log, and is what its
    /// comments say.
    @Test func theValueSamplesPrintWhatTheirCommentsSay() {
        #expect(SampleOutput.lines(printedBy: primitiveValueSample) == ["0", "10"])
        #expect(SampleOutput.lines(printedBy: variableSample) == ["2"])
        #expect(SampleOutput.lines(printedBy: constantInitSample) == ["1"])
    }

    @Test func markdownSamplesCarryTheirMarkerAndLine() {
        let text = """
            # Title

            ```swift
            let compiled = 1
            ```

            <!-- not compiled: needs UIKit -->
            ```swift
            view.backgroundColor = .red
            ```

            ```text
            not swift
            ```
            """
        let samples = CodeSamples.inMarkdown(text, file: "Guide.md")
        #expect(samples.map(\.line) == [3, 8])
        #expect(samples.map(\.code) == ["let compiled = 1", "view.backgroundColor = .red"])
        #expect(samples.map(\.status) == [.compiled, .notCompiled(reason: "needs UIKit")])
    }

    @Test func docCommentSamplesLoseTheirSlashesAndKeepTheirIndentation() {
        let source = """
            /// A type.
            ///
            /// <!-- not compiled: a fragment -->
            /// ```swift
            /// if ready {
            ///     go()
            /// }
            /// ```
            struct Thing {
                /// ```swift
                /// thing.run()
                /// ```
                func run() {}
            }
            """
        let samples = CodeSamples.inDocComments(source, file: "Thing.swift")
        #expect(samples.map(\.line) == [4, 10])
        #expect(samples.map(\.code) == ["if ready {\n    go()\n}", "thing.run()"])
        #expect(samples.map(\.status) == [.notCompiled(reason: "a fragment"), .compiled])
    }

    @Test func aSampleIsCompiledWhenItsWholeLinesAppearInOrderWhateverTheirIndentation() {
        let sample = CodeSample(file: "README.md", line: 1, code: "let a = 1 // one\nprint(a)", status: .compiled)
        #expect(CodeSamples.isCompiled(sample, in: "func f() {\n    let a = 1  // one\n\n    print(a)\n}"))
        #expect(!CodeSamples.isCompiled(sample, in: "let a = 1 // one\nprint(b)"))
        #expect(!CodeSamples.isCompiled(sample, in: "let a = 1 // one\nprint(a) // and more"), "a part of a line")
        #expect(!CodeSamples.isCompiled(sample, in: "var total = 0; let a = 1 // one\nprint(a)"), "a part of a line")
    }
}
