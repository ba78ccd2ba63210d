/// Where observers put what they receive, so the work cannot be optimized away.
final class Sink: @unchecked Sendable {
    // Sendable: written by observers, which each workload runs one at a time (single
    // threaded, or serialized by the contender under test in the 2-thread workload), and
    // read by the benchmark after the run.
    var total = 0
}
