public import CFluxCapacitorShims

/// A mutex that knows which thread holds it (see `cflux_mutex` in the C shims).
///
/// The library uses pthread mutexes rather than `Synchronization.Mutex` because
/// ThreadSanitizer on Linux does not see `Mutex` (a correct `Mutex`-guarded counter is
/// reported as a race) and because `Mutex` needs macOS 15 / iOS 18. Knowing the owner lets
/// a thread that may already hold the lock (the dispatching thread calling back into the
/// dispatcher) ask without locking, instead of paying for a recursive mutex on every
/// lock.
///
/// A value of this type is a handle: copies share one mutex. The owner calls
/// ``deallocate()`` exactly once, from its `deinit`.
@usableFromInline
struct Lock: @unchecked Sendable {
    // Sendable: the pointee is a mutex, made to be shared.
    @usableFromInline
    let pointer: UnsafeMutablePointer<cflux_mutex>

    @usableFromInline
    init() {
        guard let pointer = cflux_mutex_create() else {
            fatalError("FluxCapacitor could not make a mutex: pthread_mutex_init or malloc failed.")
        }
        self.pointer = pointer
    }

    /// A lock whose mutex was made elsewhere (`makeWithAtomicWord()`).
    @usableFromInline
    init(pointer: UnsafeMutablePointer<cflux_mutex>) {
        self.pointer = pointer
    }

    /// A lock and an atomic word in one allocation, for a value core (its lock and round
    /// word): one malloc, and 32 bytes, fewer than `Lock()` and `AtomicWord()` apart. Free
    /// them with `deallocateWithAtomicWord()`, never with either `deallocate()`.
    @usableFromInline
    static func makeWithAtomicWord() -> (lock: Lock, word: AtomicWord) {
        var word: UnsafeMutablePointer<cflux_atomic_word>?
        guard let mutex = cflux_mutex_with_word_create(&word), let word else {
            fatalError("FluxCapacitor could not make a mutex: pthread_mutex_init or malloc failed.")
        }
        return (Lock(pointer: mutex), AtomicWord(pointer: word))
    }

    /// The word made with this lock by `makeWithAtomicWord()` (only for such a lock): a
    /// value core finds its round word so, without a field of its own for it.
    @inlinable
    var atomicWordBeside: AtomicWord {
        AtomicWord(pointer: cflux_word_beside_mutex(pointer))
    }

    /// Frees a lock made by `makeWithAtomicWord()`, and its word.
    @usableFromInline
    func deallocateWithAtomicWord() {
        cflux_mutex_with_word_destroy(pointer)
    }

    @inlinable
    func lock() {
        cflux_mutex_lock(pointer)
    }

    @inlinable
    func unlock() {
        cflux_mutex_unlock(pointer)
    }

    /// Whether the calling thread holds the lock. Cheap, and never blocks.
    @inlinable
    var isHeldByCurrentThread: Bool {
        cflux_mutex_is_held_by_current_thread(pointer)
    }

    @inlinable
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    @usableFromInline
    func deallocate() {
        cflux_mutex_destroy(pointer)
    }
}

/// The identity of the calling thread, as a number that is never 0. (`package`, for
/// FluxCapacitorPersistence's record of which threads are reporting.)
@usableFromInline
package enum ThreadID: Sendable {
    @inlinable
    package static var current: UInt {
        UInt(cflux_current_thread())
    }
}
