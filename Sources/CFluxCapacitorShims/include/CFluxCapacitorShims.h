#ifndef CFLUXCAPACITOR_SHIMS_H
#define CFLUXCAPACITOR_SHIMS_H

// The few things FluxCapacitor needs from C11: atomics that ThreadSanitizer understands on
// every platform the library supports (`Synchronization.Atomic` needs macOS 15 / iOS 18,
// and ThreadSanitizer on Linux does not see `Synchronization.Mutex`).

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

// MARK: Dispatcher scopes

/// Whether any dispatcher scope was ever entered in this process; never reset.
extern atomic_bool cflux_scopes_used_flag;

/// Relaxed: a reader that misses the first store is not inside any scope yet, because
/// entering a scope happens before the code inside it runs (same thread, or a task
/// created after it).
static inline bool cflux_scopes_were_used(void) {
    return atomic_load_explicit(&cflux_scopes_used_flag, memory_order_relaxed);
}

/// Records that a dispatcher scope was entered.
static inline void cflux_mark_scopes_used(void) {
    atomic_store_explicit(&cflux_scopes_used_flag, true, memory_order_relaxed);
}

// MARK: The shared dispatcher

/// `Dispatcher.shared`, once it has been made and published; NULL before.
extern _Atomic(void *_Nullable) cflux_shared_dispatcher_pointer;

/// The published `Dispatcher.shared`, or NULL. Acquire, so that a reader sees the
/// dispatcher the publishing thread made.
static inline void *_Nullable cflux_shared_dispatcher(void) {
    return atomic_load_explicit(&cflux_shared_dispatcher_pointer, memory_order_acquire);
}

/// Publishes `Dispatcher.shared` (which lives as long as the process).
static inline void cflux_publish_shared_dispatcher(void *_Nonnull dispatcher) {
    atomic_store_explicit(&cflux_shared_dispatcher_pointer, dispatcher, memory_order_release);
}

// MARK: A mutex that knows its owner

/// A small mutex that records the thread holding it, so that a thread can ask "do I hold
/// it?" without locking: the answer is yes only if that thread stored its own id, which it
/// clears before unlocking, so a relaxed load is enough.
///
/// On Linux it is the three-state futex mutex of Ulrich Drepper's "Futexes Are Tricky"
/// (0 unlocked, 1 locked, 2 locked with waiters): an uncontended lock or unlock is one
/// atomic instruction. Its acquire/release atomics are compiled into this package, so
/// ThreadSanitizer sees the synchronization. On Apple platforms it wraps `os_unfair_lock`,
/// elsewhere a pthread mutex.
///
/// Swift owns the memory (a `ManagedBuffer` holds it, see Lock.swift), so that a mutex
/// has the stable address a futex and `os_unfair_lock` need; C only initializes it in
/// place and works on it.
#if defined(__APPLE__)
#include <os/lock.h>
#endif

typedef struct cflux_mutex {
#if defined(__linux__)
    _Atomic(uint32_t) state;
#elif defined(__APPLE__)
    os_unfair_lock lock;
#else
    pthread_mutex_t lock;
#endif
    _Atomic(uintptr_t) owner;
} cflux_mutex;

/// Initializes a mutex in place (unlocked, no owner).
void cflux_mutex_init(cflux_mutex *_Nonnull mutex);

/// Undoes `cflux_mutex_init` (only a pthread mutex has anything to undo).
void cflux_mutex_deinit(cflux_mutex *_Nonnull mutex);

/// A number that identifies the calling thread while it runs, never 0, with its two lowest
/// bits clear: the thread pointer on Linux x86_64 and arm64 (one instruction), else
/// `pthread_self()` (both are addresses of the thread's control block, which holds
/// pointers, so at least 8-byte aligned). The value core's round word keeps flags in those
/// bits (`ObserverCore.handedOverBit` says what the word holds).
///
/// The thread pointer is the thread's own control block only on Linux: glibc and musl keep
/// their `struct pthread` at `%fs:0` (x86_64) and in `TPIDR_EL0` (arm64). Not on Apple:
/// - arm64 Darwin keeps the CPU number in `TPIDR_EL0`, which `__builtin_thread_pointer()`
///   reads, and the thread's data in `TPIDRRO_EL0` (Apple's Kernel.framework header
///   `arm64/machine_machdep.h`: "We cache the current cthread pointer in TPIDRRO_EL0 and the
///   current CPU number in the low 12 bits of TPIDR_EL0"; xnu `libsyscall/os/tsd.h`,
///   `_os_cpu_number()`). Read as a thread id it would make two threads on one CPU one
///   owner, and a thread moved to another CPU a stranger to its own lock.
/// - x86_64 Apple (Intel Macs, x86_64 simulators) has no `__builtin_thread_pointer()`:
///   clang stops with "Target OS doesn't support __builtin_thread_pointer() yet".
/// `pthread_self()` is the thread's own `pthread_t` everywhere (POSIX), a pointer on Darwin
/// and an address on glibc and musl.
///
/// `-DCFLUX_FORCE_PTHREAD_SELF` (`swift test -Xcc -DCFLUX_FORCE_PTHREAD_SELF`) takes the
/// `pthread_self()` path on Linux too, so that CI runs the whole suite on the path Apple
/// platforms take.
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)) \
    && !defined(CFLUX_FORCE_PTHREAD_SELF) && defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define CFLUX_THREAD_ID_IS_THREAD_POINTER 1
#endif
#endif

static inline uintptr_t cflux_current_thread(void) {
#if defined(CFLUX_THREAD_ID_IS_THREAD_POINTER)
    return (uintptr_t)__builtin_thread_pointer();
#else
    return (uintptr_t)pthread_self();
#endif
}

#if defined(__linux__)

/// The contended path of `cflux_mutex_lock`: spin a little, then sleep on the futex.
void cflux_mutex_lock_contended(cflux_mutex *_Nonnull mutex);

/// The contended path of `cflux_mutex_unlock`: wake one waiter.
void cflux_mutex_wake(cflux_mutex *_Nonnull mutex);

static inline void cflux_mutex_lock(cflux_mutex *_Nonnull mutex) {
    uint32_t expected = 0;
    if (!atomic_compare_exchange_strong_explicit(
            &mutex->state, &expected, 1, memory_order_acquire, memory_order_relaxed)) {
        cflux_mutex_lock_contended(mutex);
    }
    atomic_store_explicit(&mutex->owner, cflux_current_thread(), memory_order_relaxed);
}

static inline void cflux_mutex_unlock(cflux_mutex *_Nonnull mutex) {
    atomic_store_explicit(&mutex->owner, 0, memory_order_relaxed);
    if (atomic_exchange_explicit(&mutex->state, 0, memory_order_release) == 2) {
        cflux_mutex_wake(mutex);
    }
}

#elif defined(__APPLE__)

static inline void cflux_mutex_lock(cflux_mutex *_Nonnull mutex) {
    os_unfair_lock_lock(&mutex->lock);
    atomic_store_explicit(&mutex->owner, cflux_current_thread(), memory_order_relaxed);
}

static inline void cflux_mutex_unlock(cflux_mutex *_Nonnull mutex) {
    atomic_store_explicit(&mutex->owner, 0, memory_order_relaxed);
    os_unfair_lock_unlock(&mutex->lock);
}

#else

static inline void cflux_mutex_lock(cflux_mutex *_Nonnull mutex) {
    pthread_mutex_lock(&mutex->lock);
    atomic_store_explicit(&mutex->owner, cflux_current_thread(), memory_order_relaxed);
}

static inline void cflux_mutex_unlock(cflux_mutex *_Nonnull mutex) {
    atomic_store_explicit(&mutex->owner, 0, memory_order_relaxed);
    pthread_mutex_unlock(&mutex->lock);
}

#endif

/// Whether the calling thread holds `mutex`.
static inline bool cflux_mutex_is_held_by_current_thread(cflux_mutex *_Nonnull mutex) {
    return atomic_load_explicit(&mutex->owner, memory_order_relaxed) == cflux_current_thread();
}

/// Lets another thread run: what a thread waiting its turn does between two looks.
void cflux_yield(void);

// MARK: Waiting for a round

/// A thread whose change waits for another thread's round of a value to end parks here, on
/// the slot of the value's core (64 slots, shared by address); the drainer that ends the
/// round unparks every thread parked on that slot. Each slot counts its unparks: a thread
/// reads the count (`cflux_park_count`) holding the core's lock, after it recorded in the
/// core that it waits, and parks only while the count is still that, so an unpark that
/// comes between its unlock and its park is not missed.

/// The unpark count of `core`'s slot.
uint64_t cflux_park_count(const void *_Nonnull core);

/// Sleeps until `core`'s slot has been unparked since its count was `count`.
void cflux_park(const void *_Nonnull core, uint64_t count);

/// Wakes every thread parked on `core`'s slot.
void cflux_unpark_all(const void *_Nonnull core);

/// Records that `waiter` (a thread) is about to park until a round that `drainer` (a
/// thread) delivers ends, unless `drainer` waits, directly or through others, for a round
/// that `waiter` delivers: then it records nothing and returns false, and `waiter` must
/// not park (each would wait for the other). Also false if too many threads wait at once
/// to keep track (256): not parking is always safe.
bool cflux_waits_add(uintptr_t waiter, uintptr_t drainer);

/// Records that `waiter` no longer waits.
void cflux_waits_remove(uintptr_t waiter);

// MARK: The calling thread's dispatches

/// What the library keeps per thread, for decisions a thread makes about itself: how many
/// dispatchers' mutexes it holds (so whether the code running on it is inside a dispatch,
/// and so synchronous: a mutex cannot be held across a suspension), and the value core it
/// holds for an in-place change in a dispatch, if any (`Variable.value`'s `_modify`).
typedef struct cflux_thread_state {
    uintptr_t dispatch_depth;
    void *_Nullable changing_in_place;
} cflux_thread_state;

/// The initial-exec model where the platform has it: one `%fs`-relative access on Linux
/// x86_64 (the library is linked into the program or a library loaded with it), instead of
/// a call of `__tls_get_addr` for each access. Apple platforms reach thread-local variables
/// through their own descriptors (`_tlv_get_addr`), whatever the model.
#if defined(__linux__)
#define CFLUX_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define CFLUX_TLS_MODEL
#endif

/// The calling thread's state (defined in shims.c).
extern _Thread_local cflux_thread_state cflux_this_thread CFLUX_TLS_MODEL;

/// Records that the calling thread took a dispatcher's mutex.
static inline void cflux_enter_dispatch(void) {
    cflux_this_thread.dispatch_depth++;
}

/// Records that the calling thread lets go of a dispatcher's mutex.
static inline void cflux_leave_dispatch(void) {
    cflux_this_thread.dispatch_depth--;
}

/// Whether the calling thread holds any dispatcher's mutex: it runs a dispatch (a reduce,
/// an observer or log subscriber of one, a store's `init`, a recomputation).
static inline bool cflux_is_dispatching(void) {
    return cflux_this_thread.dispatch_depth != 0;
}

/// The value core the calling thread holds for an in-place change, or NULL.
static inline void *_Nullable cflux_core_changing_in_place(void) {
    return cflux_this_thread.changing_in_place;
}

/// Records the value core the calling thread holds for an in-place change (NULL: none).
static inline void cflux_set_core_changing_in_place(void *_Nullable core) {
    cflux_this_thread.changing_in_place = core;
}

// MARK: A value core's lock and round word

/// What a value core's `CoreLock` holds in its own allocation: the core's mutex; its
/// round word, which the thread delivering a round (or a first value) clears without the
/// mutex when nothing else happened meanwhile (see `ObserverCore.handedOverBit`); and the core
/// itself, unretained, read and written with the mutex held (`CoreLock.withCore`).
typedef struct cflux_core_lock {
    cflux_mutex mutex;
    _Atomic(uintptr_t) round;
    void *_Nullable core;
} cflux_core_lock;

/// The core lock's mutex.
static inline cflux_mutex *_Nonnull cflux_core_lock_mutex(cflux_core_lock *_Nonnull lock) {
    return &lock->mutex;
}

/// The core (read with the mutex held).
static inline void *_Nullable cflux_core_lock_core(cflux_core_lock *_Nonnull lock) {
    return lock->core;
}

/// Sets the core (with the mutex held, or before the lock is shared).
static inline void cflux_core_lock_set_core(cflux_core_lock *_Nonnull lock, void *_Nullable core) {
    lock->core = core;
}

/// The round word (acquire).
static inline uintptr_t cflux_core_lock_load_round(cflux_core_lock *_Nonnull lock) {
    return atomic_load_explicit(&lock->round, memory_order_acquire);
}

/// Stores the round word (release).
static inline void cflux_core_lock_store_round(cflux_core_lock *_Nonnull lock, uintptr_t value) {
    atomic_store_explicit(&lock->round, value, memory_order_release);
}

/// Replaces the round word with `desired` if it is `expected` (acquire-release); returns
/// whether it did.
static inline bool cflux_core_lock_exchange_round(
    cflux_core_lock *_Nonnull lock, uintptr_t expected, uintptr_t desired) {
    return atomic_compare_exchange_strong_explicit(
        &lock->round, &expected, desired, memory_order_acq_rel, memory_order_acquire);
}

// MARK: Lock order (internal checks only)

/// The ranks of the locks the calling thread holds, in the order it took them, kept by
/// `LockRank.willTake`/`didRelease` for every mutex of the library (`Lock`, `CoreLock`, a
/// striped mutex) only when the library is built with FLUXCAPACITOR_INTERNAL_CHECKS (see
/// Internal/README.md, "Lock order"), in a `_Thread_local` stack of up to 64.

/// Records that the calling thread takes `lock` of `rank`: returns -1 if every lock it
/// holds ranks lower (or the same, with `same_rank_allowed`), else the index of the first
/// one that does not, and records nothing.
int cflux_held_locks_push(uintptr_t lock, uint8_t rank, bool same_rank_allowed);

/// The rank of the held lock at `index` (from `cflux_held_locks_push`).
uint8_t cflux_held_lock_rank(int index);

/// Records that the calling thread let go of `lock` (the last time it took it).
void cflux_held_locks_remove(uintptr_t lock);

/// For a dispatcher's mutex `lock` (rank `dispatcher_rank`) that the calling thread takes:
/// records, for each dispatcher's mutex it holds, that that one was held when `lock` was
/// taken, and returns the first one that was ever taken while `lock` was held (the two
/// nested both ways: two threads doing both at once deadlock), or 0.
uintptr_t cflux_dispatcher_order_check(uintptr_t lock, uint8_t dispatcher_rank);

/// Forgets what `cflux_dispatcher_order_check` recorded of `lock` (a dispatcher that goes,
/// whose address another may have next).
void cflux_dispatcher_order_forget(uintptr_t lock);

// MARK: The store registry's words

/// A relaxed atomic load of a word that Swift allocated (`__atomic` builtins work on plain
/// memory, and ThreadSanitizer sees them). The store registry's table keeps each store in a
/// word that `clear()` writes under the registry's lock while a dispatch reads it under the
/// dispatcher's.
static inline uintptr_t cflux_word_load_relaxed(const uintptr_t *_Nonnull word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/// A relaxed atomic store to a word that Swift allocated.
static inline void cflux_word_store_relaxed(uintptr_t *_Nonnull word, uintptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

// MARK: The dispatch tape's clock

/// Seconds since 1970, UTC (`CLOCK_REALTIME`): the time of a recorded dispatch. Inline, so
/// that a recorded dispatch makes no call of its own to read it (a Swift function of the
/// library was a call, and kept the recorded dispatch over its budget: the row
/// `dispatchRecorderOn` of `Benchmarks/instructions`).
static inline double cflux_realtime_seconds(void) {
    struct timespec time;
#if defined(__APPLE__)
    // Apple's <time.h> declares the clock as the enumerator `_CLOCK_REALTIME` of
    // `clockid_t` (macOS 10.12, iOS 10), and `CLOCK_REALTIME` as a `#define` of it. The
    // enumerator itself, so that apple-check's stand-in SDK, which declares only the
    // enumerator, checks this line too; the clock is the same.
    clock_gettime(_CLOCK_REALTIME, &time);
#else
    clock_gettime(CLOCK_REALTIME, &time);
#endif
    return (double)time.tv_sec + (double)time.tv_nsec / 1000000000.0;
}

// MARK: Swift runtime entry points

// Functions of the Swift runtime (libswiftCore), with the C calling convention, declared
// as swift/include/swift/Runtime/HeapObject.h declares them (pointers to `HeapObject` as
// `void *`). They are part of the runtime's stable ABI on Apple platforms and exported on
// Linux. The store registry uses them for native Swift objects only: objects whose
// reference counts the Swift runtime keeps (on Apple platforms, not subclasses of
// NSObject; see StoreTable.swift).

/// Adds one to the strong reference count of a native Swift object unless its deinit has
/// begun; returns the object if it did, else NULL. (What a weak reference's load does,
/// without the weak reference's side table.)
extern void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Adds one to the unowned reference count of a native Swift object: its memory (not its
/// life) lasts until the matching `swift_unownedRelease`, so `swift_tryRetain` stays safe
/// to call on it after its deinit. (Newer runtimes return the object; declared `void`, which
/// fits either.)
extern void swift_unownedRetain(void *_Nonnull object);

/// Takes one from the unowned reference count; the last one frees a deinitialized object.
extern void swift_unownedRelease(void *_Nonnull object);

#endif
