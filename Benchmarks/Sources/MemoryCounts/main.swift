// Prints the heap bytes and mallocs that one memory workload's contender keeps per object:
//
//     MemoryCounts <workload id> <FluxCapacitor|baseline> [--sizes]
//
// prints "<bytes per object> <mallocs per object>"; with --sizes, then the requested sizes
// of the first allocations it measured (where the bytes go). Run by `Benchmarks/instructions`, natively
// (valgrind replaces malloc, so mallinfo2 would not see the program's heap).

import CMallocCounter
import Foundation
import Workloads

let arguments = Array(CommandLine.arguments.dropFirst())
let sizes = arguments.count == 3 && arguments[2] == "--sizes"
guard arguments.count == 2 || sizes,
    let workload = MemoryCatalog.workloads.first(where: { $0.id == arguments[0] }),
    let contender = Contender(rawValue: arguments[1])
else {
    print(
        "usage: MemoryCounts <\(MemoryCatalog.workloads.map(\.id).joined(separator: "|"))> "
            + "<FluxCapacitor|baseline> [--sizes]")
    exit(2)
}

let runner = workload.makeRunner(contender)
runner.prepare(count: workload.count)
let mallocCount = workload.countsThisThreadOnly ? cbench_thread_malloc_count : cbench_malloc_count
let bytesBefore = cbench_heap_bytes()
let mallocsBefore = mallocCount()
if sizes {
    cbench_record_sizes()
}
runner.add(count: workload.count)
let mallocs = mallocCount() - mallocsBefore
// What a thread of the library's did beside this one (a recorder's writer) is finished
// before the heap is read, so that only what stays is counted.
runner.settle()
let bytes = cbench_heap_bytes() - bytesBefore
let recordedCount = cbench_recorded_count()
print(Double(bytes) / Double(workload.count), Double(mallocs) / Double(workload.count))
if sizes {
    let recorded = (0..<recordedCount).map { cbench_recorded_size($0) }
    print("requested sizes of the first allocations:", recorded.prefix(12).map(String.init).joined(separator: " "))
}
withExtendedLifetime(runner) {}
