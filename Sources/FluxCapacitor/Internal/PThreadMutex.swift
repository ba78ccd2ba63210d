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

/// A `pthread_mutex_t` at a stable heap address.
///
/// The library uses pthread mutexes rather than `Synchronization.Mutex` because
/// ThreadSanitizer on Linux does not see `Mutex` (a correct `Mutex`-guarded counter is
/// reported as a race) and because `Mutex` needs macOS 15 / iOS 18.
///
/// A value of this type is a handle: copies share one mutex. The owner calls
/// ``deallocate()`` exactly once, from its `deinit`.
struct PThreadMutex: @unchecked Sendable {
    // Sendable: the pointee is a pthread mutex, which is made to be shared between threads.
    let pointer: UnsafeMutablePointer<pthread_mutex_t>

    /// Makes a mutex; a recursive one may be locked again by the thread that holds it.
    init(recursive: Bool = false) {
        pointer = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive {
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        }
        let result = pthread_mutex_init(pointer, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
    }

    @inline(__always)
    func lock() {
        let result = pthread_mutex_lock(pointer)
        assert(result == 0, "pthread_mutex_lock failed with \(result)")
    }

    @inline(__always)
    func unlock() {
        let result = pthread_mutex_unlock(pointer)
        assert(result == 0, "pthread_mutex_unlock failed with \(result)")
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    func deallocate() {
        pthread_mutex_destroy(pointer)
        pointer.deallocate()
    }
}

/// A `pthread_cond_t` at a stable heap address, used with a ``PThreadMutex``.
struct PThreadCondition: @unchecked Sendable {
    // Sendable: the pointee is a pthread condition variable, made to be shared between threads.
    let pointer: UnsafeMutablePointer<pthread_cond_t>

    init() {
        pointer = .allocate(capacity: 1)
        let result = pthread_cond_init(pointer, nil)
        precondition(result == 0, "pthread_cond_init failed with \(result)")
    }

    /// Waits for a ``broadcast()``; `mutex` must be held and is held again on return.
    func wait(_ mutex: PThreadMutex) {
        let result = pthread_cond_wait(pointer, mutex.pointer)
        assert(result == 0, "pthread_cond_wait failed with \(result)")
    }

    func broadcast() {
        pthread_cond_broadcast(pointer)
    }

    func deallocate() {
        pthread_cond_destroy(pointer)
        pointer.deallocate()
    }
}

/// The identity of the calling thread, as a number that is never 0.
enum ThreadID {
    @inline(__always)
    static var current: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
