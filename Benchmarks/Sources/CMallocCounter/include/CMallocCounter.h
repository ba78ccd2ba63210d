#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

#include <stddef.h>

/// How many times malloc, calloc, realloc, posix_memalign, aligned_alloc or memalign were
/// called in this process (on glibc, where this target replaces them; 0 elsewhere).
size_t cbench_malloc_count(void);

/// Live heap bytes as glibc counts them (`mallinfo2().uordblks`: chunk sizes, with
/// malloc's header and rounding); 0 where there is no mallinfo2.
size_t cbench_heap_bytes(void);

#endif
