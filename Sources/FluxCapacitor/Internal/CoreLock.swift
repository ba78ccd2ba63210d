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
/// The mutex and the round word (`ObserverCore.round` says what it holds) are the
/// `ManagedBuffer`'s element, so they have the stable addresses that a futex,
/// `os_unfair_lock` and atomics need, and Swift frees them with the object. (One object
/// for the lock and the link: a live store with one `Variable` keeps 64 bytes for both,
/// one allocation, where two objects took two.)
@usableFromInline
final class CoreLock: ManagedBuffer<Unmanaged<ObserverCore>?, cflux_core_lock>, MutexHolding {
    // Not `Sendable`, as no `ManagedBuffer` is: its holders are (the core and its
    // observers). The element is a mutex and an atomic word, made to be shared; the header
    // (the core, unretained) is read and written with the mutex held.

    /// An unlocked lock, round word 0, attached to no core yet.
    static func make() -> CoreLock {
        let lock = unsafeDowncast(create(minimumCapacity: 1) { _ in nil }, to: CoreLock.self)
        lock.withUnsafeMutablePointerToElements { element in
            cflux_mutex_init(cflux_core_lock_mutex(element))
            cflux_core_lock_store_round(element, 0)
        }
        return lock
    }

    deinit {
        withUnsafeMutablePointerToElements { cflux_mutex_deinit(cflux_core_lock_mutex($0)) }
    }

    @inlinable
    var mutex: UnsafeMutablePointer<cflux_mutex> {
        withUnsafeMutablePointerToElements { cflux_core_lock_mutex($0) }
    }

    @inlinable
    var rank: LockRank {
        .valueCore
    }

    // MARK: The round word

    /// The round word (acquire).
    @inlinable
    func loadRound() -> UInt {
        withUnsafeMutablePointerToElements { UInt(cflux_core_lock_load_round($0)) }
    }

    /// Stores the round word (release).
    @inlinable
    func storeRound(_ word: UInt) {
        withUnsafeMutablePointerToElements { cflux_core_lock_store_round($0, word) }
    }

    /// Replaces the round word with `desired` if it is `expected`; returns whether it did.
    @inlinable
    func exchangeRound(expected: UInt, desired: UInt) -> Bool {
        withUnsafeMutablePointerToElements { cflux_core_lock_exchange_round($0, expected, desired) }
    }

    // MARK: The core

    /// The core, read and written through the header's pointer: the lock serializes every
    /// access, and `header` (a class's stored property) would be checked for exclusivity at
    /// run time, which cost a clean 76 instructions (callgrind, observe + clean).
    private var core: Unmanaged<ObserverCore>? {
        get { withUnsafeMutablePointerToHeader { $0.pointee } }
        set { withUnsafeMutablePointerToHeader { $0.pointee = newValue } }
    }

    /// Called once, at the end of the core's `init`, before the core is shared.
    func attach(_ core: ObserverCore) {
        self.core = .passUnretained(core)
    }

    /// Called by the core's `deinit`: from now on `withCore` finds nothing, and no
    /// `withCore` is still running.
    func detach() {
        withLock { core = nil }
    }

    /// Runs `body` with the core, if it is still alive, holding the lock. `body` must not
    /// take other locks of the library nor run user code.
    func withCore<Result>(_ body: (ObserverCore) -> Result) -> Result? {
        lock()
        defer { unlock() }
        // Unretained: the core cannot finish its deinit while the lock is held (see above).
        return core?._withUnsafeGuaranteedRef(body)
    }
}
