#include "CFluxCapacitorShims.h"

#include <stdlib.h>

atomic_bool cflux_scopes_used_flag = false;

_Atomic(void *) cflux_shared_dispatcher_pointer = NULL;

#if defined(__linux__) || defined(__APPLE__)
// All zero: `state` 0 (Linux) and `OS_UNFAIR_LOCK_INIT`, which is `{0}` (Apple's
// `os/lock.h`), are unlocked, and `owner` 0 is nobody.
cflux_mutex cflux_striped_mutexes[CFLUX_STRIPED_MUTEX_COUNT];
#else
cflux_mutex cflux_striped_mutexes[CFLUX_STRIPED_MUTEX_COUNT] = {
    [0 ... CFLUX_STRIPED_MUTEX_COUNT - 1] = {PTHREAD_MUTEX_INITIALIZER, 0},
};
#endif

/// Initializes a mutex in place; returns false if that fails.
static bool cflux_mutex_init(cflux_mutex *mutex) {
#if defined(__linux__)
    atomic_init(&mutex->state, 0);
#elif defined(__APPLE__)
    mutex->lock = OS_UNFAIR_LOCK_INIT;
#else
    if (pthread_mutex_init(&mutex->lock, NULL) != 0) {
        return false;
    }
#endif
    atomic_init(&mutex->owner, 0);
    return true;
}

/// Undoes `cflux_mutex_init`.
static void cflux_mutex_deinit(cflux_mutex *mutex) {
#if !defined(__linux__) && !defined(__APPLE__)
    pthread_mutex_destroy(&mutex->lock);
#else
    (void)mutex;
#endif
}

cflux_mutex *cflux_mutex_create(void) {
    cflux_mutex *mutex = malloc(sizeof(cflux_mutex));
    if (mutex == NULL) {
        return NULL;
    }
    if (!cflux_mutex_init(mutex)) {
        free(mutex);
        return NULL;
    }
    return mutex;
}

void cflux_mutex_destroy(cflux_mutex *mutex) {
    cflux_mutex_deinit(mutex);
    free(mutex);
}

cflux_mutex *cflux_mutex_with_word_create(cflux_atomic_word **word) {
    cflux_mutex_with_word *block = malloc(sizeof(cflux_mutex_with_word));
    if (block == NULL) {
        return NULL;
    }
    if (!cflux_mutex_init(&block->mutex)) {
        free(block);
        return NULL;
    }
    atomic_init(&block->word.value, 0);
    *word = &block->word;
    return &block->mutex;
}

void cflux_mutex_with_word_destroy(cflux_mutex *mutex) {
    cflux_mutex_deinit(mutex);
    free((cflux_mutex_with_word *)mutex);
}

cflux_atomic_word *cflux_atomic_word_create(void) {
    cflux_atomic_word *word = malloc(sizeof(cflux_atomic_word));
    if (word == NULL) {
        return NULL;
    }
    atomic_init(&word->value, 0);
    return word;
}

void cflux_atomic_word_destroy(cflux_atomic_word *word) {
    free(word);
}

#if defined(__linux__)

#include <linux/futex.h>
#include <sched.h>
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
