import DocumentationSamples
import Foundation
import Testing

/// The install samples (package manifests) of the documentation are lines of
/// Tests/Consumer/Package.swift, which Scripts/check-consumer builds in CI against a tagged
/// release: what a reader copies is what CI proves.
@Suite("Install samples")
struct InstallSampleTests {
    static let marker = "a package manifest; the lines of Tests/Consumer/Package.swift, which CI builds"

    let consumerManifest: String
    let samples: [CodeSample]

    init() throws {
        consumerManifest = try String(
            contentsOf: CodeSamples.packageRoot.appendingPathComponent("Tests/Consumer/Package.swift"),
            encoding: .utf8)
        samples = try CodeSamples.all()
    }

    var manifestSamples: [CodeSample] {
        samples.filter { $0.status == .notCompiled(reason: Self.marker) }
    }

    @Test func everyManifestSampleIsLinesOfTheConsumerPackage() {
        #expect(
            Set(manifestSamples.map(\.file)).isSuperset(of: [
                "README.md", "Sources/FluxCapacitor/FluxCapacitor.docc/GettingStarted.md",
            ]))
        for sample in manifestSamples {
            #expect(
                CodeSamples.isCompiled(sample, in: consumerManifest),
                """
                \(sample): not lines of Tests/Consumer/Package.swift. Change the consumer package \
                (and run Scripts/check-consumer) or the sample, so that they agree:
                \(sample.code)
                """)
        }
    }

    @Test func everySampleThatDeclaresADependencyIsAManifestSample() {
        for sample in samples
        where sample.code.contains(".package(url:") || sample.code.contains(".product(name:") {
            #expect(
                sample.status == .notCompiled(reason: Self.marker),
                "\(sample): a manifest sample; mark it <!-- not compiled: \(Self.marker) -->")
        }
    }

    @Test func readmeInstallsARelease() throws {
        let install = try #require(
            manifestSamples.first { $0.file == "README.md" && $0.code.contains(".package(url:") })
        #expect(install.code.contains(#".package(url: "FLUXCAPACITOR_URL", from: "1.0.0")"#))
        #expect(!install.code.contains("branch:"))
    }

    @Test func theURLPlaceholderIsExplainedInTheReadmeAndNoSampleCarriesAnotherURL() throws {
        let readme = try String(
            contentsOf: CodeSamples.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("The samples below write it as `FLUXCAPACITOR_URL`"))
        for sample in samples where sample.code.contains(".package(url:") {
            #expect(
                sample.code.contains(#".package(url: "FLUXCAPACITOR_URL""#),
                "\(sample): write the repository's URL as FLUXCAPACITOR_URL, which README explains")
        }
    }
}
