#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

#include <stddef.h>

/// How many times malloc, calloc, realloc, posix_memalign, aligned_alloc or memalign were
/// called in this process (on glibc, where this target replaces them; 0 elsewhere).
size_t cbench_malloc_count(void);

/// The same, made by the calling thread only.
size_t cbench_thread_malloc_count(void);

/// Live heap bytes as glibc counts them (`mallinfo2().uordblks`: chunk sizes, with
/// malloc's header and rounding); 0 where there is no mallinfo2.
size_t cbench_heap_bytes(void);

/// Starts recording the requested sizes of the next allocations (up to 64), for
/// `MemoryCounts --sizes`.
void cbench_record_sizes(void);

/// How many sizes were recorded, and the one at `index`.
size_t cbench_recorded_count(void);
size_t cbench_recorded_size(size_t index);

#endif
