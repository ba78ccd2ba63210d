// swift-tools-version:6.1

import PackageDescription

// The wall-clock suite (`Benchmarks/compare`): package-benchmark runs the workloads of the
// benchmarks package (..) for FluxCapacitor, the hand-written baseline and a peer,
// OpenCombine. Its own package, because it needs dependencies the instruction counts do
// not.
let package = Package(
    name: "FluxCapacitorWallClock",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "FluxCapacitorBenchmarks", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.4"),
    ],
    targets: [
        // The peer's contenders (OpenCombine), and every contender of a workload by name.
        .target(
            name: "PeerWorkloads",
            dependencies: [
                .product(name: "Workloads", package: "FluxCapacitorBenchmarks"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // The package-benchmark suite that measures them.
        .executableTarget(
            name: "FluxCapacitorBenchmarks",
            dependencies: [
                "PeerWorkloads",
                .product(name: "Workloads", package: "FluxCapacitorBenchmarks"),
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
                .product(name: "Workloads", package: "FluxCapacitorBenchmarks"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
    ]
)
