#include "CFluxCapacitorShims.h"

#include <sched.h>

atomic_bool cflux_scopes_used_flag = false;

_Atomic(void *) cflux_shared_dispatcher_pointer = NULL;

_Thread_local cflux_thread_state cflux_this_thread CFLUX_TLS_MODEL = {0, NULL};

void cflux_mutex_init(cflux_mutex *mutex) {
#if defined(__linux__)
    atomic_init(&mutex->state, 0);
#elif defined(__APPLE__)
    mutex->lock = OS_UNFAIR_LOCK_INIT;
#else
    // Fails only for want of memory or with attributes, and it is given none; a failure
    // would show as the first lock failing.
    (void)pthread_mutex_init(&mutex->lock, NULL);
#endif
    atomic_init(&mutex->owner, 0);
}

void cflux_mutex_deinit(cflux_mutex *mutex) {
#if !defined(__linux__) && !defined(__APPLE__)
    pthread_mutex_destroy(&mutex->lock);
#else
    (void)mutex;
#endif
}

void cflux_yield(void) {
    sched_yield();
}

#define CFLUX_PARKING_SLOTS 64

static struct cflux_parking_slot {
    pthread_mutex_t mutex;
    pthread_cond_t condition;
    uint64_t count;
} cflux_parking[CFLUX_PARKING_SLOTS];

/// 0 until the slots are initialized, 1 while one thread does it, 2 after. (Not
/// `pthread_once`, nor static initializers, which the stand-in Apple SDK of
/// `Scripts/apple-check` does not declare; Darwin has both, and this works everywhere.)
static _Atomic(int) cflux_parking_state;

static struct cflux_parking_slot *cflux_parking_slot(const void *core) {
    if (atomic_load_explicit(&cflux_parking_state, memory_order_acquire) != 2) {
        int expected = 0;
        if (atomic_compare_exchange_strong_explicit(
                &cflux_parking_state, &expected, 1, memory_order_acquire, memory_order_acquire)) {
            for (int slot = 0; slot < CFLUX_PARKING_SLOTS; slot++) {
                pthread_mutex_init(&cflux_parking[slot].mutex, NULL);
                pthread_cond_init(&cflux_parking[slot].condition, NULL);
                cflux_parking[slot].count = 0;
            }
            atomic_store_explicit(&cflux_parking_state, 2, memory_order_release);
        } else {
            while (atomic_load_explicit(&cflux_parking_state, memory_order_acquire) != 2) {
                sched_yield();
            }
        }
    }
    return &cflux_parking[((uintptr_t)core >> 4) % CFLUX_PARKING_SLOTS];
}

uint64_t cflux_park_count(const void *core) {
    struct cflux_parking_slot *slot = cflux_parking_slot(core);
    pthread_mutex_lock(&slot->mutex);
    uint64_t count = slot->count;
    pthread_mutex_unlock(&slot->mutex);
    return count;
}

void cflux_park(const void *core, uint64_t count) {
    struct cflux_parking_slot *slot = cflux_parking_slot(core);
    pthread_mutex_lock(&slot->mutex);
    while (slot->count == count) {
        pthread_cond_wait(&slot->condition, &slot->mutex);
    }
    pthread_mutex_unlock(&slot->mutex);
}

void cflux_unpark_all(const void *core) {
    struct cflux_parking_slot *slot = cflux_parking_slot(core);
    pthread_mutex_lock(&slot->mutex);
    slot->count++;
    pthread_cond_broadcast(&slot->condition);
    pthread_mutex_unlock(&slot->mutex);
}

#define CFLUX_WAITS_MAX 256

/// A `cflux_mutex`, which zeroed memory is an unlocked one of on Linux and on Apple
/// platforms (`OS_UNFAIR_LOCK_INIT` is 0).
static cflux_mutex cflux_waits_lock;
static struct {
    uintptr_t waiter;
    uintptr_t drainer;
} cflux_waits[CFLUX_WAITS_MAX];
static int cflux_waits_count;

bool cflux_waits_add(uintptr_t waiter, uintptr_t drainer) {
    cflux_mutex_lock(&cflux_waits_lock);
    bool added = false;
    // Follow what `drainer` waits for, and what that one waits for, and so on: a chain
    // that comes back to `waiter` is a cycle. Each thread waits for one round at most, so
    // the chain is no longer than the table.
    uintptr_t next = drainer;
    for (int step = 0; step <= cflux_waits_count; step++) {
        if (next == waiter) {
            goto done;
        }
        int found = -1;
        for (int index = 0; index < cflux_waits_count; index++) {
            if (cflux_waits[index].waiter == next) {
                found = index;
                break;
            }
        }
        if (found < 0) {
            break;
        }
        next = cflux_waits[found].drainer;
    }
    if (cflux_waits_count < CFLUX_WAITS_MAX) {
        cflux_waits[cflux_waits_count].waiter = waiter;
        cflux_waits[cflux_waits_count].drainer = drainer;
        cflux_waits_count++;
        added = true;
    }
done:
    cflux_mutex_unlock(&cflux_waits_lock);
    return added;
}

void cflux_waits_remove(uintptr_t waiter) {
    cflux_mutex_lock(&cflux_waits_lock);
    for (int index = 0; index < cflux_waits_count; index++) {
        if (cflux_waits[index].waiter == waiter) {
            cflux_waits[index] = cflux_waits[cflux_waits_count - 1];
            cflux_waits_count--;
            break;
        }
    }
    cflux_mutex_unlock(&cflux_waits_lock);
}

#define CFLUX_HELD_LOCKS_MAX 64

/// The locks this thread holds and their ranks, innermost last (internal checks only).
static _Thread_local struct {
    uintptr_t locks[CFLUX_HELD_LOCKS_MAX];
    uint8_t ranks[CFLUX_HELD_LOCKS_MAX];
    int count;
} cflux_held_locks;

int cflux_held_locks_push(uintptr_t lock, uint8_t rank, bool same_rank_allowed) {
    for (int index = 0; index < cflux_held_locks.count; index++) {
        uint8_t held = cflux_held_locks.ranks[index];
        if (held > rank || (held == rank && !same_rank_allowed)) {
            return index;
        }
    }
    if (cflux_held_locks.count < CFLUX_HELD_LOCKS_MAX) {
        cflux_held_locks.locks[cflux_held_locks.count] = lock;
        cflux_held_locks.ranks[cflux_held_locks.count] = rank;
        cflux_held_locks.count++;
    }
    return -1;
}

uint8_t cflux_held_lock_rank(int index) {
    return cflux_held_locks.ranks[index];
}

void cflux_held_locks_remove(uintptr_t lock) {
    for (int index = cflux_held_locks.count - 1; index >= 0; index--) {
        if (cflux_held_locks.locks[index] == lock) {
            for (int next = index + 1; next < cflux_held_locks.count; next++) {
                cflux_held_locks.locks[next - 1] = cflux_held_locks.locks[next];
                cflux_held_locks.ranks[next - 1] = cflux_held_locks.ranks[next];
            }
            cflux_held_locks.count--;
            return;
        }
    }
}

/// Which dispatcher's mutex was held when which other was taken (internal checks only): a
/// pair (outer, inner) once seen. Small: a test run has a few hundred dispatchers that
/// nest, and a dispatcher that goes forgets its pairs.
#define CFLUX_ORDER_PAIRS_MAX 4096
/// A zeroed `cflux_mutex`, as `cflux_waits_lock`.
static cflux_mutex cflux_order_lock;
static struct {
    uintptr_t outer;
    uintptr_t inner;
} cflux_order_pairs[CFLUX_ORDER_PAIRS_MAX];
static int cflux_order_count;

uintptr_t cflux_dispatcher_order_check(uintptr_t lock, uint8_t dispatcher_rank) {
    uintptr_t conflict = 0;
    cflux_mutex_lock(&cflux_order_lock);
    for (int index = 0; index < cflux_held_locks.count && conflict == 0; index++) {
        uintptr_t held = cflux_held_locks.locks[index];
        if (cflux_held_locks.ranks[index] != dispatcher_rank || held == lock) {
            continue;
        }
        bool known = false;
        for (int pair = 0; pair < cflux_order_count; pair++) {
            if (cflux_order_pairs[pair].outer == lock && cflux_order_pairs[pair].inner == held) {
                conflict = held;
                break;
            }
            if (cflux_order_pairs[pair].outer == held && cflux_order_pairs[pair].inner == lock) {
                known = true;
            }
        }
        if (conflict == 0 && !known && cflux_order_count < CFLUX_ORDER_PAIRS_MAX) {
            cflux_order_pairs[cflux_order_count].outer = held;
            cflux_order_pairs[cflux_order_count].inner = lock;
            cflux_order_count++;
        }
    }
    cflux_mutex_unlock(&cflux_order_lock);
    return conflict;
}

void cflux_dispatcher_order_forget(uintptr_t lock) {
    cflux_mutex_lock(&cflux_order_lock);
    int kept = 0;
    for (int pair = 0; pair < cflux_order_count; pair++) {
        if (cflux_order_pairs[pair].outer != lock && cflux_order_pairs[pair].inner != lock) {
            cflux_order_pairs[kept++] = cflux_order_pairs[pair];
        }
    }
    cflux_order_count = kept;
    cflux_mutex_unlock(&cflux_order_lock);
}

#if defined(__linux__)

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void cflux_mutex_lock_contended(cflux_mutex *mutex) {
    // A holder usually lets go within a few hundred nanoseconds: spin before sleeping.
    for (int spin = 0; spin < 100; spin++) {
        uint32_t expected = 0;
        if (atomic_load_explicit(&mutex->state, memory_order_relaxed) == 0
            && atomic_compare_exchange_weak_explicit(
                &mutex->state, &expected, 1, memory_order_acquire, memory_order_relaxed)) {
            return;
        }
        sched_yield();
    }
    // Mark the lock contended (2) and sleep until it is free; whoever unlocks a contended
    // lock wakes one sleeper, which marks it contended again, to be safe.
    while (atomic_exchange_explicit(&mutex->state, 2, memory_order_acquire) != 0) {
        syscall(SYS_futex, &mutex->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
}

void cflux_mutex_wake(cflux_mutex *mutex) {
    syscall(SYS_futex, &mutex->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif
