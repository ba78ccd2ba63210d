public import CFluxCapacitorShims

/// A mutex that knows which thread holds it (`cflux_mutex` in the C shims: a futex mutex on
/// Linux, `os_unfair_lock` on Apple platforms), in an object of its own.
///
/// Not `Synchronization.Mutex`: ThreadSanitizer on Linux does not see it (a correct
/// `Mutex`-guarded counter is reported as a race) and it needs macOS 15 / iOS 18. Knowing
/// the owner lets a thread that may already hold the lock (the dispatching thread calling
/// back into the dispatcher) ask without locking, instead of paying for a recursive mutex
/// on every lock.
///
/// The mutex lives in the object's own allocation (a `ManagedBuffer`'s element), so that it
/// has the stable address a futex and `os_unfair_lock` need, and Swift frees it with the
/// object. Each lock has a place in the library's one lock order (``LockRank``).
@usableFromInline
final class Lock: ManagedBuffer<LockRank, cflux_mutex>, MutexHolding {
    // Not `Sendable`, as no `ManagedBuffer` is: the classes that hold one are (each says
    // what its lock guards), and a mutex is made to be shared.

    /// Makes an unlocked mutex of `rank`.
    @usableFromInline
    static func make(_ rank: LockRank) -> Lock {
        let lock = unsafeDowncast(create(minimumCapacity: 1) { _ in rank }, to: Lock.self)
        cflux_mutex_init(lock.mutex)
        return lock
    }

    deinit {
        #if FLUXCAPACITOR_INTERNAL_CHECKS
        if rank == .dispatcher {
            cflux_dispatcher_order_forget(UInt(bitPattern: mutex))
        }
        #endif
        cflux_mutex_deinit(mutex)
    }

    /// The mutex, at the buffer's stable address (valid while the lock lives).
    @inlinable
    var mutex: UnsafeMutablePointer<cflux_mutex> { withUnsafeMutablePointerToElements { $0 } }

    @inlinable
    var rank: LockRank {
        header
    }
}

/// What a `Lock`, a value core's `CoreLock` and a striped mutex share: a mutex at a stable
/// address, and its place in the lock order.
@usableFromInline
protocol MutexHolding {
    /// The mutex, at an address that stays put while its holder lives.
    var mutex: UnsafeMutablePointer<cflux_mutex> { get }
    /// Its place in the lock order.
    var rank: LockRank { get }
}

extension MutexHolding {
    @inlinable
    func lock() {
        LockRank.willTake(self)
        cflux_mutex_lock(mutex)
    }

    @inlinable
    func unlock() {
        cflux_mutex_unlock(mutex)
        LockRank.didRelease(self)
    }

    /// Whether the calling thread holds the lock. Cheap, and never blocks.
    @inlinable
    var isHeldByCurrentThread: Bool {
        cflux_mutex_is_held_by_current_thread(mutex)
    }

    @inlinable
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// The library's one lock order: a thread takes a lock only while every lock it holds
/// ranks lower, so that no two threads can each wait for a lock the other holds.
/// Internal/README.md ("Lock order") says what runs under each. Built with
/// `FLUXCAPACITOR_INTERNAL_CHECKS`, every lock and unlock is checked against it and a lock
/// taken out of order stops the program naming both locks; otherwise the checks are empty
/// and cost nothing.
@usableFromInline
enum LockRank: UInt8, Sendable {
    /// A dispatcher's `mutex`, held for a whole dispatch: `reduce(with:)`, `.current`
    /// observers and dispatch-log subscribers (user code) run under it, so every other
    /// lock may be taken inside it. A dispatch may dispatch to another dispatcher, so two
    /// dispatchers' mutexes may nest (in either order: keep such dispatches one-way).
    case dispatcher = 1
    // Rank 2 is FluxCapacitorPersistence's I/O (a persisted value's `ioLock`, a recorder's
    // writer queue), which the checked build does not see (Internal/README.md, "Lock order").
    /// `InFlightTasks`' table of running tasks; a task is marked cancelled under it.
    case inFlightTasks = 3
    /// A `StoreRegistry`'s table of stores (taken with the dispatcher's mutex held).
    case registry = 4
    /// A value core's lock (`CoreLock`): the machine's bookkeeping, never held while
    /// observers run (except by `Variable.update(_:)`'s closure, which must not reach other
    /// values).
    case valueCore = 5
    /// A striped mutex (`StripedLocks`): a dust's state, an `InFlightTask`'s phase, a
    /// mailbox's queue, a scoped observation's dust, a log subscriber's handler.
    case striped = 6
    /// A `DustBuster`'s bag of dusts (inserted into while the dust's striped mutex is held).
    case dustBuster = 7
    /// A recorder's tape (`DispatchTape`): the states waiting for its writer, appended to in
    /// a dispatch (the dispatcher's mutex held) and taken by the writer; no other lock inside.
    case tape = 8

    /// How a failure names a lock of this rank.
    var name: String {
        switch self {
        case .dispatcher: "a dispatcher's mutex"
        case .inFlightTasks: "an InFlightTasks' table lock"
        case .registry: "a store registry's lock"
        case .valueCore: "a value core's lock"
        case .striped: "a striped mutex (a dust's or a mailbox's state)"
        case .dustBuster: "a DustBuster's lock"
        case .tape: "a recorder's tape lock"
        }
    }

    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Checks that the calling thread may take `lock` now, and records that it does.
    @usableFromInline
    static func willTake(_ lock: some MutexHolding) {
        let rank = lock.rank
        let address = UInt(bitPattern: lock.mutex)
        if rank == .dispatcher {
            let other = cflux_dispatcher_order_check(address, rank.rawValue)
            if other != 0 {
                fatalError(
                    "FluxCapacitor internal inconsistency (lock order): two dispatchers nest both ways: the "
                        + "dispatcher with mutex \(String(address, radix: 16)) is taken while holding the one "
                        + "with mutex \(String(other, radix: 16)), which was taken while holding it before. "
                        + "Two threads doing both at once wait for each other: keep dispatches (and combined "
                        + "values) between two dispatchers one way. See \"Lock order\" in "
                        + "Sources/FluxCapacitor/Internal/README.md.")
            }
        }
        let conflict = cflux_held_locks_push(address, rank.rawValue, rank == .dispatcher)
        guard conflict >= 0 else { return }
        let held = LockRank(rawValue: cflux_held_lock_rank(conflict)).map(\.name) ?? "an unknown lock"
        fatalError(
            "FluxCapacitor internal inconsistency (lock order): \(rank.name) (rank \(rank.rawValue)) taken "
                + "while holding \(held) (rank \(cflux_held_lock_rank(conflict))). "
                + "See \"Lock order\" in Sources/FluxCapacitor/Internal/README.md.")
    }

    /// Records that the calling thread let go of `lock`.
    @usableFromInline
    static func didRelease(_ lock: some MutexHolding) {
        cflux_held_locks_remove(UInt(bitPattern: lock.mutex))
    }
    #else
    @inlinable
    static func willTake(_: some MutexHolding) {}

    @inlinable
    static func didRelease(_: some MutexHolding) {}
    #endif
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
