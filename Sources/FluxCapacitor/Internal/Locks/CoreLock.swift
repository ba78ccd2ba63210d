public import CFluxCapacitorShims

/// A value core's lock and round word, and the way its observers reach it, in one object.
///
/// The core holds it, and so does every observer of the core (in its `Dust`'s state), so
/// that cleaning an observer reaches the core without a weak reference: a weak reference
/// would give the core a side table, and every retain and release of an object with a side
/// table takes the runtime's slow path (value cores are retained and released on hot
/// paths). The core's `deinit` detaches it under the lock; an observer uses the core only
/// while holding the lock (`withCore(_:)`). A core whose last reference is gone but whose
/// `deinit` waits for the lock is still whole, and is used without being retained.
///
/// The mutex, the round word (`ObserverCore.handedOverBit` says what it holds) and the core's
/// address are the `ManagedBuffer`'s element (`cflux_core_lock`), so the mutex and the
/// word have the stable addresses that a futex, `os_unfair_lock` and atomics need, and
/// Swift frees them with the object. (One object for the lock and the link: a live store
/// with one `Variable` keeps 64 bytes for both, one allocation, where two objects took two.)
@usableFromInline
final class CoreLock: ManagedBuffer<Void, cflux_core_lock>, MutexHolding {
    // Not `Sendable`, as no `ManagedBuffer` is: its holders are (the core and its
    // observers). The element is a mutex, an atomic word, and the core's address, which is
    // read and written with the mutex held.

    /// An unlocked lock, round word 0, attached to no core yet.
    static func make() -> CoreLock {
        let lock = unsafeDowncast(create(minimumCapacity: 1) { _ in }, to: CoreLock.self)
        cflux_mutex_init(lock.mutex)
        cflux_core_lock_store_round(lock.element, 0)
        cflux_core_lock_set_core(lock.element, nil)
        return lock
    }

    deinit {
        cflux_mutex_deinit(mutex)
    }

    /// The element, at the buffer's stable address (valid while the lock lives).
    @inlinable
    var element: UnsafeMutablePointer<cflux_core_lock> { withUnsafeMutablePointerToElements { $0 } }

    @inlinable
    var mutex: UnsafeMutablePointer<cflux_mutex> { cflux_core_lock_mutex(element) }

    @inlinable
    var rank: LockRank {
        .valueCore
    }

    // MARK: The round word

    /// The round word (acquire).
    @inlinable
    func loadRound() -> UInt {
        UInt(cflux_core_lock_load_round(element))
    }

    /// Stores the round word (release).
    @inlinable
    func storeRound(_ word: UInt) {
        cflux_core_lock_store_round(element, word)
    }

    /// Replaces the round word with `desired` if it is `expected`; returns whether it did.
    @inlinable
    func exchangeRound(expected: UInt, desired: UInt) -> Bool {
        cflux_core_lock_exchange_round(element, expected, desired)
    }

    // MARK: The core

    /// Called once, at the end of the core's `init`, before the core is shared.
    func attach(_ core: ObserverCore) {
        cflux_core_lock_set_core(element, Unmanaged.passUnretained(core).toOpaque())
    }

    /// Called by the core's `deinit`: from now on `withCore` finds nothing, and no
    /// `withCore` is still running.
    func detach() {
        withLock { cflux_core_lock_set_core(element, nil) }
    }

    /// Runs `body` with the core, if it is still alive, holding the lock. `body` must not
    /// take other locks of the library nor run user code.
    func withCore<Result>(_ body: (ObserverCore) -> Result) -> Result? {
        lock()
        defer { unlock() }
        guard let core = cflux_core_lock_core(element) else { return nil }
        // Unretained: the core cannot finish its deinit while the lock is held (see above),
        // and a core whose deinit waits for the lock must not be retained (its count is 0).
        return Unmanaged<ObserverCore>.fromOpaque(core)._withUnsafeGuaranteedRef(body)
    }
}
