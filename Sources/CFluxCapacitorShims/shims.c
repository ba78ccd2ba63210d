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
