// Prints the heap bytes and mallocs that one memory workload's contender keeps per object:
//
//     MemoryCounts <workload id> <FluxCapacitor|baseline>
//
// prints "<bytes per object> <mallocs per object>". Run by `Benchmarks/instructions`, natively
// (valgrind replaces malloc, so mallinfo2 would not see the program's heap).

import CMallocCounter
import Foundation
import Workloads

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2,
    let workload = MemoryCatalog.workloads.first(where: { $0.id == arguments[0] }),
    let contender = Contender(rawValue: arguments[1])
else {
    print("usage: MemoryCounts <\(MemoryCatalog.workloads.map(\.id).joined(separator: "|"))> <FluxCapacitor|baseline>")
    exit(2)
}

let runner = workload.makeRunner(contender)
runner.prepare(count: workload.count)
let bytesBefore = cbench_heap_bytes()
let mallocsBefore = cbench_malloc_count()
runner.add(count: workload.count)
let bytes = cbench_heap_bytes() - bytesBefore
let mallocs = cbench_malloc_count() - mallocsBefore
print(Double(bytes) / Double(workload.count), Double(mallocs) / Double(workload.count))
withExtendedLifetime(runner) {}
