/// How an observer reaches its value core without a weak reference.
///
/// A weak reference would give the core a side table, and every retain and release of an
/// object with a side table takes the runtime's slow path; value cores are retained and
/// released on hot paths. So observers hold this link instead; the core clears it in its
/// `deinit`, under the link's striped mutex, and an observer uses the core only while
/// holding that mutex. A core whose last reference is gone but whose `deinit` waits for
/// the mutex is still whole, and is used without being retained.
@usableFromInline
final class ObserverLink: @unchecked Sendable {
    // Sendable: `core` is read and written with `StripedLocks.mutex(for: self)` held.
    // Unmanaged, unretained: a strong reference would keep the core alive, a weak one give
    // it a side table (see above); the core clears it in its deinit.
    private var core: Unmanaged<ObserverCore>?

    init() {}

    /// Called once, at the end of the core's `init`.
    func attach(_ core: ObserverCore) {
        StripedLocks.mutex(for: self).withLock { self.core = .passUnretained(core) }
    }

    /// Runs `body` with the core, if it is still alive, holding the link's mutex. `body`
    /// must not take striped locks nor run user code.
    func withCore<Result>(_ body: (ObserverCore) -> Result) -> Result? {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        defer { mutex.unlock() }
        // Unretained: the core cannot finish its deinit while this mutex is held (see above).
        return core?._withUnsafeGuaranteedRef(body)
    }

    /// Called by the core's `deinit`: from now on `withCore` finds nothing, and no
    /// `withCore` is still running.
    func detach() {
        StripedLocks.mutex(for: self).withLock { core = nil }
    }
}
