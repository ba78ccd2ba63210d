// swift-tools-version:6.2

// Tools version 6.2 (Swift 6.2, Xcode 26) is the oldest this package supports. Since
// April 28, 2026 App Store Connect takes only apps built with Xcode 26 or later
// (https://developer.apple.com/news/upcoming-requirements), so every app that can ship has
// a 6.2 toolchain at least, and 6.2 is what SwiftPM's own rule on unsafe flags in
// dependencies keys on (swiftlang/swift-package-manager#8951, #8954). apple/swift-log did the
// same (apple/swift-log#411). Scripts/check-consumer proves that a package depending on a
// tagged release of this one builds.

import PackageDescription

// `FLUXCAPACITOR_INTERNAL_CHECKS=1 swift build` (or `swift test`) compiles the library's
// internal invariant checks (`_checkInvariants()`) in, the way swift-collections does with
// COLLECTIONS_INTERNAL_CHECKS; see Sources/FluxCapacitor/Internal/README.md. CI runs the
// ThreadSanitizer tests with them.
let internalChecks: [SwiftSetting] =
    Context.environment["FLUXCAPACITOR_INTERNAL_CHECKS"] == "1"
    ? [.define("FLUXCAPACITOR_INTERNAL_CHECKS")] : []

// `FLUXCAPACITOR_EXPLICIT_SENDABLE=1 swift build` warns about every public type that does
// not say whether it is Sendable (the `ExplicitSendable` warning group, Swift 6.3's compiler
// and later: swiftlang/swift#85319). CI builds with it, and warnings fail CI.
// It is off unless asked for, so that it never reaches a package that depends on this one:
// SwiftPM builds a dependency with `-suppress-warnings`, and SwiftPM 6.2 also passes the
// dependency's `-Wwarning ExplicitSendable`, which the compiler refuses next to it
// (swiftlang/swift-testing#1559 gates the same setting for that reason). The flag this
// replaces, `.unsafeFlags(["-Xfrontend", "-require-explicit-sendable"])`, made every
// versioned dependency on this package fail to resolve with tools version 6.1.
let explicitSendable = Context.environment["FLUXCAPACITOR_EXPLICIT_SENDABLE"] == "1"

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
        // tests of actions. (It imports XCTest where it can, to report failures there.) For
        // test targets only: it imports Swift Testing, which app targets cannot link.
        .library(name: "FluxCapacitorTesting", targets: ["FluxCapacitorTesting"]),
    ],
    targets: [
        .target(
            name: "FluxCapacitor",
            dependencies: ["CFluxCapacitorShims"],
            // Notes on the internals, for people, not a resource.
            exclude: ["Internal/README.md"],
            swiftSettings: internalChecks
        ),
        // The C11 the library is built on where Swift's own would not do on every platform
        // it supports (`Synchronization.Atomic` and `Mutex` need macOS 15 / iOS 18, and
        // ThreadSanitizer on Linux does not see `Mutex`): the atomics, and the mutex the
        // library's locks are built on. Its header's sections, one for one (DriftTests
        // fails when this list and the header's `MARK:` lines differ): Dispatcher scopes;
        // The shared dispatcher; A mutex that knows its owner; Waiting for a round; The
        // calling thread's dispatches; A value core's lock and round word; Lock order
        // (internal checks only); The store registry's words; The dispatch tape's clock; Swift
        // runtime entry points.
        .target(name: "CFluxCapacitorShims"),
        .target(
            name: "FluxCapacitorPersistence", dependencies: ["FluxCapacitor"],
            // Notes on the internals, for people, not a resource.
            exclude: ["Internal/README.md"]
        ),
        // Depends on FluxCapacitorPersistence for DispatchReplay, which plays a recording with
        // its DispatchFilePlayer.
        .target(
            name: "FluxCapacitorTesting", dependencies: ["FluxCapacitor", "FluxCapacitorPersistence"],
            exclude: ["Internal/README.md"]
        ),

        // The example app: `swift run repository-search` (an executable target of the root
        // package is a product of its own there). An app, not a library: no product exports
        // it, so no package that depends on this one sees its target or its name, and its
        // tests reach it with `@testable import repository_search`. Built in plain Swift 6
        // mode, with none of the upcoming features below, so that its code builds as an app
        // of yours would (it is excluded from them at the end of this file).
        .executableTarget(
            name: "repository-search",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence"],
            path: "Example",
            resources: [.copy("Resources/Fixtures")]
        ),
        // Test bookkeeping shared by the test targets (a lock-guarded value, polling).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // The stores, actions and threads that the tests of several products share (a
        // counter, a shelf of books, recorded states).
        .target(
            name: "FluxTestFixtures",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport"],
            path: "Tests/FluxTestFixtures"),
        .testTarget(
            name: "FluxCapacitorTests",
            dependencies: ["FluxCapacitor", "FluxCapacitorTesting", "TestSupport", "FluxTestFixtures"]
        ),
        // One test target per product: DispatchTester, the recorders, DispatchReplay.
        .testTarget(
            name: "FluxCapacitorTestingTests",
            dependencies: [
                "FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport", "FluxTestFixtures",
            ]
        ),
        .testTarget(
            name: "FluxCapacitorPersistenceTests",
            dependencies: [
                "FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport", "FluxTestFixtures",
            ]
        ),
        // A program the recorder's tests run as a child process (to kill it, to give it a
        // full disk), found beside the test binary (`swift test` builds every target).
        .executableTarget(
            name: "FluxCapacitorRecordingChild",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence"],
            path: "Tests/RecordingChild"
        ),
        .testTarget(
            name: "ExampleTests",
            dependencies: ["repository-search", "FluxCapacitorPersistence", "FluxCapacitorTesting", "TestSupport"],
            // A session that `repository-search --record` wrote, which ReplayTests replays.
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MigrationGuideTests",
            dependencies: ["FluxCapacitor", "FluxCapacitorPersistence", "TestSupport"]
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
                "TestSupport",
            ]
        ),
    ]
)

for target in package.targets
where [.executable, .test, .regular].contains(target.type) && !target.name.hasPrefix("C") {
    var settings = target.swiftSettings ?? []
    if target.name == "repository-search" {
        // The example builds as an app would, in plain Swift 6 mode (see its target).
        if explicitSendable {
            settings.append(.treatWarning("ExplicitSendable", as: .warning))
        }
        target.swiftSettings = settings
        continue
    }

    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0335-existential-any.md
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0444-member-import-visibility.md
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0409-access-level-on-imports.md
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0461-async-function-isolation.md
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    if explicitSendable {
        // Every public type says whether it is Sendable (see `explicitSendable` above).
        settings.append(.treatWarning("ExplicitSendable", as: .warning))
    }

    target.swiftSettings = settings
}
