/// Where observers put what they receive, so the work cannot be optimized away. (A copy of
/// the benchmarks package's internal `Sink`: were that one public, the optimizer could no
/// longer drop the exclusivity checks on `total` in that package's own contenders, which
/// would add about 86 instructions to every observer call there.)
final class Sink: @unchecked Sendable {
    // Sendable: written by observers, which each workload runs one at a time (single
    // threaded, or serialized by the contender under test in the 2-thread workload), and
    // read by the benchmark after the run.
    var total = 0
}
