#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#else
#error("FluxCapacitor needs pthreads on this platform.")
#endif

/// Where threads wait for another thread to finish making a store.
///
/// A waiter reads the generation while it still holds the registry's lock (having seen
/// that the store is being made), lets go of that lock, and sleeps until the generation
/// changes; a maker bumps the generation after registering its store. So no wake-up is
/// missed. Uses a pthread mutex and condition variable of its own: waiting is rare, and the
/// registry's lock is a futex mutex, which has no condition variable.
final class CreationGate: @unchecked Sendable {
    // Sendable: `mutex` guards `generation`; `condition` is used with `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var generation: UInt64 = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// The current generation, to pass to `wait(whileGenerationIs:)`.
    var currentGeneration: UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return generation
    }

    /// Sleeps until some store made since `generation` was read has been registered.
    func wait(whileGenerationIs seen: UInt64) {
        pthread_mutex_lock(mutex)
        while generation == seen {
            pthread_cond_wait(condition, mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every waiter: a store was registered.
    func open() {
        pthread_mutex_lock(mutex)
        generation &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
