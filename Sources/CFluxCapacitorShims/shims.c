#include "CFluxCapacitorShims.h"

#include <stdlib.h>

atomic_bool cflux_scopes_used_flag = false;

#if defined(__linux__)

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

cflux_mutex *cflux_mutex_create(void) {
    cflux_mutex *mutex = malloc(sizeof(cflux_mutex));
    if (mutex == NULL) {
        return NULL;
    }
    atomic_init(&mutex->state, 0);
    atomic_init(&mutex->owner, 0);
    return mutex;
}

void cflux_mutex_destroy(cflux_mutex *mutex) {
    free(mutex);
}

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

#elif defined(__APPLE__)

#include <os/lock.h>

struct cflux_mutex {
    os_unfair_lock lock;
    _Atomic(uintptr_t) owner;
};

cflux_mutex *cflux_mutex_create(void) {
    cflux_mutex *mutex = malloc(sizeof(cflux_mutex));
    if (mutex == NULL) {
        return NULL;
    }
    mutex->lock = OS_UNFAIR_LOCK_INIT;
    atomic_init(&mutex->owner, 0);
    return mutex;
}

void cflux_mutex_destroy(cflux_mutex *mutex) {
    free(mutex);
}

void cflux_mutex_lock_platform(cflux_mutex *mutex) {
    os_unfair_lock_lock(&mutex->lock);
}

void cflux_mutex_unlock_platform(cflux_mutex *mutex) {
    os_unfair_lock_unlock(&mutex->lock);
}

_Atomic(uintptr_t) *cflux_mutex_owner(cflux_mutex *mutex) {
    return &mutex->owner;
}

#else

struct cflux_mutex {
    pthread_mutex_t lock;
    _Atomic(uintptr_t) owner;
};

cflux_mutex *cflux_mutex_create(void) {
    cflux_mutex *mutex = malloc(sizeof(cflux_mutex));
    if (mutex == NULL) {
        return NULL;
    }
    if (pthread_mutex_init(&mutex->lock, NULL) != 0) {
        free(mutex);
        return NULL;
    }
    atomic_init(&mutex->owner, 0);
    return mutex;
}

void cflux_mutex_destroy(cflux_mutex *mutex) {
    pthread_mutex_destroy(&mutex->lock);
    free(mutex);
}

void cflux_mutex_lock_platform(cflux_mutex *mutex) {
    pthread_mutex_lock(&mutex->lock);
}

void cflux_mutex_unlock_platform(cflux_mutex *mutex) {
    pthread_mutex_unlock(&mutex->lock);
}

_Atomic(uintptr_t) *cflux_mutex_owner(cflux_mutex *mutex) {
    return &mutex->owner;
}

#endif
