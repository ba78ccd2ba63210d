// swift-tools-version:6.1

import PackageDescription

// A package of its own, so that the library stays free of dependencies.
let package = Package(
    name: "FluxCapacitorBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "FluxCapacitor", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.4"),
    ],
    targets: [
        // The workloads and their contenders (FluxCapacitor, a hand-written baseline, OpenCombine).
        .target(
            name: "Workloads",
            dependencies: [
                .product(name: "FluxCapacitor", package: "FluxCapacitor"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // The package-benchmark suite that measures them.
        .executableTarget(
            name: "FluxCapacitorBenchmarks",
            dependencies: [
                "Workloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/FluxCapacitorBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // Reads a run's exported histograms and prints the comparison table.
        .executableTarget(
            name: "BenchmarkReport",
            dependencies: [
                "Workloads",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
    ]
)
