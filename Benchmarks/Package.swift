// swift-tools-version:6.1

import PackageDescription

// A package of its own, so that the library stays free of dependencies; it depends on
// FluxCapacitor alone, so that `Benchmarks/instructions` builds offline. The wall-clock
// suite, which compares with peers (OpenCombine) through package-benchmark, is the package
// in WallClock/, which depends on this one.
let package = Package(
    name: "FluxCapacitorBenchmarks",
    platforms: [.macOS(.v14)],
    products: [
        // The workloads, for the wall-clock suite in WallClock/.
        .library(name: "Workloads", targets: ["Workloads"])
    ],
    dependencies: [
        .package(name: "FluxCapacitor", path: "..")
    ],
    targets: [
        // The workloads and their contenders (FluxCapacitor and a hand-written baseline).
        .target(
            name: "Workloads",
            dependencies: [
                .product(name: "FluxCapacitor", package: "FluxCapacitor"),
                // The recorder of the "recorder on" rows.
                .product(name: "FluxCapacitorPersistence", package: "FluxCapacitor"),
            ]
        ),
        // `Benchmarks/instructions`: runs each workload under callgrind and prints
        // instructions per operation, bytes and mallocs per object, and the budgets.
        .executableTarget(name: "InstructionCounts", dependencies: ["Workloads"]),
        // Counts mallocs by interposing malloc, for MemoryCounts only.
        .target(name: "CMallocCounter"),
        // Measures the heap bytes and mallocs of one memory workload (run by
        // InstructionCounts, natively, not under valgrind).
        .executableTarget(name: "MemoryCounts", dependencies: ["Workloads", "CMallocCounter"]),
        // `Benchmarks/big-state`: one change of a big collection in a store, wall clock,
        // beside an `@Observable` class holding the same (issue 39).
        .executableTarget(
            name: "BigState",
            dependencies: [
                .product(name: "FluxCapacitor", package: "FluxCapacitor"),
                .product(name: "FluxCapacitorPersistence", package: "FluxCapacitor"),
            ]),
        // `Benchmarks/contention`: several threads on one target (a set, an update, a send, a
        // dispatch, a mix), wall clock, against a mutex around the value and its observer.
        .executableTarget(
            name: "Contention", dependencies: [.product(name: "FluxCapacitor", package: "FluxCapacitor")]),
    ]
)
