// swift-tools-version:6.1

import PackageDescription

// `FLUXCAPACITOR_INTERNAL_CHECKS=1 swift build` (or `swift test`) compiles the library's
// internal invariant checks (`_checkInvariants()`) in, the way swift-collections does with
// COLLECTIONS_INTERNAL_CHECKS; see Sources/FluxCapacitor/Internal/README.md. CI runs the
// ThreadSanitizer tests with them.
let internalChecks: [SwiftSetting] =
    Context.environment["FLUXCAPACITOR_INTERNAL_CHECKS"] == "1"
    ? [.define("FLUXCAPACITOR_INTERNAL_CHECKS")] : []

let package = Package(
    name: "FluxCapacitor",
    // Observation (so that every `Variable` and `Constant` takes part in it, with no
    // availability checks), Duration, Task.sleep(for:) and os_unfair_lock.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "FluxCapacitor", targets: ["FluxCapacitor"]),
        // Variables saved across launches: `Variable(_:persistedAs:in:)`, FileStorage, and
        // InMemoryStorage for tests and previews. Its own product, so that the core's
        // interface imports no Foundation.
        .library(name: "FluxCapacitorPersistence", targets: ["FluxCapacitorPersistence"]),
        // Helpers for testing stores and actions: an isolated-dispatcher trait for Swift
        // Testing, recorders of dispatches and values, and DispatchTester for exhaustive
        // tests of actions. (It imports XCTest where it can, to report failures there.)
        .library(name: "FluxCapacitorTesting", targets: ["FluxCapacitorTesting"]),
        // The example: `swift run repository-search`.
        .executable(name: "repository-search", targets: ["repository-search"]),
    ],
    targets: [
        .target(
            name: "FluxCapacitor",
            dependencies: ["CFluxCapacitorShims"],
            // Notes on the internals, for people, not a resource.
            exclude: ["Internal/README.md"],
            swiftSettings: internalChecks
        ),
        // One process-wide atomic flag, in C11 so that it works on every platform the
        // library supports (`Synchronization.Atomic` needs macOS 15 / iOS 18).
        .target(name: "CFluxCapacitorShims"),
        .target(name: "FluxCapacitorPersistence", dependencies: ["FluxCapacitor"]),
        .target(name: "FluxCapacitorTesting", dependencies: ["FluxCapacitor"]),

        // The example app, as its own library (so tests can reach it) and a thin executable,
        // the way swift-argument-parser declares its examples.
        .target(
            name: "RepositorySearchKit",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence"],
            path: "Example/RepositorySearchKit",
            resources: [.copy("Resources/Fixtures")]
        ),
        .executableTarget(
            name: "repository-search",
            dependencies: ["RepositorySearchKit"],
            path: "Example/repository-search"
        ),
        // Test bookkeeping shared by the test targets (a lock-guarded value, polling).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "FluxCapacitorTests",
            dependencies: ["FluxCapacitor", "FluxCapacitorTesting", "TestSupport"]
        ),
        .testTarget(
            name: "FluxCapacitorPersistenceTests",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport"]
        ),
        .testTarget(
            name: "ExampleTests",
            dependencies: ["RepositorySearchKit", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport"]
        ),
        .testTarget(
            name: "MigrationGuideTests",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence"]
        ),
        .testTarget(
            name: "ReadmeTests",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport"]
        ),
        // Finds the documentation's code samples (README, MIGRATION, the DocC articles, doc
        // comments) for the tests that check each is compiled or says why not.
        .target(name: "DocumentationSamples", path: "Tests/DocumentationSamples"),
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "DocumentationSamples", "FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting",
            ]
        ),
    ]
)

for target in package.targets
where [.executable, .test, .regular].contains(target.type) && !target.name.hasPrefix("C") {
    var settings = target.swiftSettings ?? []

    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0335-existential-any.md
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0444-member-import-visibility.md
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0409-access-level-on-imports.md
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    #if compiler(>=6.2)
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0461-async-function-isolation.md
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    #endif
    #if compiler(>=6.2)
    // Every public type says whether it is Sendable. (SwiftPM before 6.2 refuses packages
    // with unsafe flags as dependencies, so older toolchains build without the check.)
    settings.append(.unsafeFlags(["-Xfrontend", "-require-explicit-sendable"]))
    #endif

    target.swiftSettings = settings
}
