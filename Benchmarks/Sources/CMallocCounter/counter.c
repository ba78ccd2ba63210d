// Counts allocations by defining the allocation functions in the executable, which the
// dynamic linker then binds every library's calls to (the Swift runtime's included), and
// forwarding to glibc's own entry points. The process-wide count is a plain word (the
// workloads that read it are single-threaded); each thread also counts its own, for the
// workloads with a thread of the library's beside the measured one (a recorder's writer).
// Linked into MemoryCounts alone, so that the instruction counts pay nothing for it.
#include "CMallocCounter.h"

#if defined(__linux__)
#include <malloc.h>  // (defines __GLIBC__ on glibc)
#endif

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static size_t count;
static _Thread_local size_t threadCount;
static int recording;
static size_t recorded[64];
static size_t recordedCount;

static void record(size_t size) {
    count += 1;
    threadCount += 1;
    if (recording && recordedCount < 64) {
        recorded[recordedCount++] = size;
    }
}

void cbench_record_sizes(void) {
    recording = 1;
    recordedCount = 0;
}

size_t cbench_recorded_count(void) { return recordedCount; }

size_t cbench_recorded_size(size_t index) { return recorded[index]; }

void *malloc(size_t size) {
    record(size);
    return __libc_malloc(size);
}

void *calloc(size_t number, size_t size) {
    record(number * size);
    return __libc_calloc(number, size);
}

void *realloc(void *pointer, size_t size) {
    record(size);
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    record(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    record(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    record(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

size_t cbench_malloc_count(void) { return count; }

size_t cbench_thread_malloc_count(void) { return threadCount; }

size_t cbench_heap_bytes(void) { return mallinfo2().uordblks; }

#else

size_t cbench_malloc_count(void) { return 0; }

size_t cbench_thread_malloc_count(void) { return 0; }

void cbench_record_sizes(void) {}

size_t cbench_recorded_count(void) { return 0; }

size_t cbench_recorded_size(size_t index) { return 0; }

size_t cbench_heap_bytes(void) { return 0; }

#endif
