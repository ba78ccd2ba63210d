#ifndef CFLUXCAPACITOR_ATOMICS_H
#define CFLUXCAPACITOR_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>

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

#endif
