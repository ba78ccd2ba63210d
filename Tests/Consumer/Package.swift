// swift-tools-version:6.2

// A package that depends on FluxCapacitor as a user's would: by version, from its
// repository. Scripts/check-consumer tags a copy of this checkout 1.0.0, puts its file URL in
// place of FLUXCAPACITOR_URL, and builds, runs and tests this package in the Swift 5 and the
// Swift 6 language modes, and as a new Xcode 26 app target is set up. README's and the
// articles' install samples are lines of this file (DocumentationTests checks it).

import PackageDescription

// The language mode of this package's own code: Scripts/check-consumer sets 5 or 6.
let languageMode: SwiftLanguageMode =
    Context.environment["CONSUMER_LANGUAGE_MODE"] == "5" ? .v5 : .v6

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    dependencies: [
        .package(url: "FLUXCAPACITOR_URL", from: "1.0.0")
    ],
    targets: [
        .executableTarget(
            name: "counter",
            dependencies: [
                .product(name: "FluxCapacitor", package: "FluxCapacitor"),
                .product(
                    name: "FluxCapacitorPersistence", package: "FluxCapacitor"),
            ]
        ),
        .testTarget(
            name: "CounterTests",
            dependencies: [
                "counter",
                .product(name: "FluxCapacitorTesting", package: "FluxCapacitor"),
            ]
        ),
    ],
    swiftLanguageModes: [languageMode]
)

// CONSUMER_APP_TARGET=1: every target as a new Xcode 26 app target is set up, code isolated
// to the main actor unless it says otherwise ("Default Actor Isolation: MainActor") and
// "Approachable Concurrency" on. In the Swift 6 mode that adds two upcoming features; in
// the Swift 5 mode, three more that Swift 6 has anyway. The `quickstart` executable is
// README's quick start, which Scripts/check-consumer copies into Sources/quickstart/main.swift.
if Context.environment["CONSUMER_APP_TARGET"] == "1" {
    var app: [SwiftSetting] = [
        .defaultIsolation(MainActor.self),
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
        .enableUpcomingFeature("InferIsolatedConformances"),
    ]
    if Context.environment["CONSUMER_LANGUAGE_MODE"] == "5" {
        app += ["InferSendableFromCaptures", "GlobalActorIsolatedTypesUsability", "DisableOutwardActorInference"]
            .map { .enableUpcomingFeature($0) }
    }
    package.targets.append(
        .executableTarget(
            name: "quickstart",
            dependencies: [.product(name: "FluxCapacitor", package: "FluxCapacitor")]
        ))
    // CONSUMER_DOC_SAMPLES=1: every Swift sample of the documentation, as the package's own
    // tests compile them (their `*Snippets.swift` files and what those assume), which
    // Scripts/check-consumer copies into Tests/<name>: they must build here too.
    if Context.environment["CONSUMER_DOC_SAMPLES"] == "1" {
        let all: [Target.Dependency] = [
            .product(name: "FluxCapacitor", package: "FluxCapacitor"),
            .product(name: "FluxCapacitorPersistence", package: "FluxCapacitor"),
            .product(name: "FluxCapacitorTesting", package: "FluxCapacitor"),
            "TestSupport",
        ]
        package.targets += [
            .target(name: "TestSupport", path: "Tests/TestSupport"),
            .testTarget(name: "ReadmeSamples", dependencies: all),
            .testTarget(name: "DocCSamples", dependencies: all),
            .testTarget(name: "MigrationSamples", dependencies: all),
        ]
    }
    // Not the tests' bookkeeping, which is no part of an app.
    for target in package.targets where target.name != "TestSupport" {
        target.swiftSettings = (target.swiftSettings ?? []) + app
    }
}
