import Benchmark
import PeerWorkloads
import Workloads

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    for workload in Catalog.workloads {
        for contender in workload.contenders {
            Benchmark(
                workload.benchmarkName(contender),
                configuration: .init(
                    metrics: [.wallClock, .mallocCountTotal],
                    warmupIterations: 3,
                    maxDuration: .seconds(2),
                    maxIterations: workload.operationsPerIteration > 10_000 ? 50 : 1_000
                )
            ) { benchmark, runner in
                runner.run(iterations: workload.iterationsPerSample)
                blackHole(runner.checksum)
            } setup: {
                workload.makeAnyRunner(contender)
            }
        }
    }
}
