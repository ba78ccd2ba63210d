/// A token for an observation or subscription; ``clean()`` ends it.
///
/// Every ``PrimitiveValue/observe(on:ignoreFirst:changes:)`` returns a dust. Clean it
/// yourself, or hand it to a ``DustBuster`` that cleans it when the buster is cleaned or
/// goes away:
///
/// ```swift
/// store.repositories
///     .observe(on: .main) { repositories in
///         print(repositories.count)
///     }
///     .cleaned(by: dustBuster)
/// ```
///
/// A dust that you drop without cleaning does not end its observation (as in
/// FluxCapacitor 0.10 and 0.11, `_ = value.observe { … }` observes for as long as the value
/// lives). Cleaning is idempotent and thread-safe, and may happen during a notification:
/// an observer cleaned while a change is being delivered on the same thread is not called
/// again, not even later in the same round. An observer cleaned from another thread while
/// a change is being delivered may still receive that one change, after `clean()` has
/// returned: `clean()` never waits for observers (which could deadlock). So capture what
/// an observer uses weakly (`[weak self]`), not `unowned`, when its dust may be cleaned
/// from another thread (a `deinit`, say).
public class Dust: @unchecked Sendable {
    // Sendable: `hasBeenCleaned`, `buster` and `rare` are guarded by the striped mutex for
    // this object (`StripedLocks.mutex(for: self)`).
    private var hasBeenCleaned = false
    private weak var buster: DustBuster?
    /// What few dusts have: the closure of `init(_:)`, and busters after the first. Boxed,
    /// so that the dust of every `observe` (which has neither) stays one pointer smaller.
    private var rare: RareDustState?

    /// Makes a dust that runs `cleanUp` once, on the first ``clean()``.
    ///
    /// Use it to put your own cancellation in a ``DustBuster``:
    ///
    /// ```swift
    /// let refresh = Task { await action.fetchRepositories(ofUser: "ra1028") }
    /// Dust { refresh.cancel() }.cleaned(by: dustBuster)
    /// ```
    ///
    /// - Parameter cleanUp: What ``clean()`` runs, once.
    @preconcurrency
    public init(_ cleanUp: @escaping @Sendable () -> Void) {
        rare = RareDustState(action: cleanUp)
    }

    /// For subclasses, which override ``cleanUp()``.
    init() {}

    /// Whether ``clean()`` has been called.
    public final var isCleaned: Bool {
        StripedLocks.mutex(for: self).withLock { hasBeenCleaned }
    }

    /// Ends the observation or subscription. Calling it again does nothing.
    public final func clean() {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        if hasBeenCleaned {
            mutex.unlock()
            return
        }
        hasBeenCleaned = true
        let buster = self.buster
        if buster != nil {
            // Only when set: assigning a weak reference costs a runtime call even for nil.
            self.buster = nil
        }
        // `nil` rather than empty when there is no `rare`, the common case: releasing even the
        // empty array costs a runtime call.
        var moreBusters: [WeakDustBuster]?
        if let rare {
            moreBusters = rare.moreBusters
            rare.moreBusters = []
        }
        mutex.unlock()

        cleanUp()
        buster?.remove(self)
        if let moreBusters {
            for weakBuster in moreBusters {
                weakBuster.buster?.remove(self)
            }
        }
    }

    /// Hands the dust to `buster`, which cleans it when the buster is cleaned or goes away.
    /// The buster lets go of the dust as soon as it is cleaned. A dust that is already
    /// cleaned is not added.
    ///
    /// - Parameter buster: The buster that cleans the dust.
    public final func cleaned(by buster: DustBuster) {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        defer { mutex.unlock() }
        if hasBeenCleaned {
            return
        }
        if self.buster == nil {
            self.buster = buster
        } else if self.buster !== buster {
            if rare == nil {
                rare = RareDustState(action: nil)
            }
            rare.unsafelyUnwrapped.moreBusters.append(WeakDustBuster(buster: buster))
        }
        // Inserted with our mutex held, so a concurrent `clean()` either sees the buster
        // and removes the dust from it, or runs before and we return above.
        buster.insert(self)
    }

    /// Ends what the dust stands for: called once, by the first ``clean()``, the one way
    /// a dust is cleaned up. The library's own dusts override it; a dust made with
    /// ``init(_:)`` runs its closure.
    func cleanUp() {
        let action = StripedLocks.mutex(for: self).withLock {
            defer { rare?.action = nil }
            return rare?.action
        }
        action?()
    }
}

/// The closure of `Dust.init(_:)`, and a dust's busters after the first. Guarded by the
/// striped mutex of the dust that holds it.
private final class RareDustState {
    var action: (@Sendable () -> Void)?
    var moreBusters: [WeakDustBuster] = []

    init(action: (@Sendable () -> Void)?) {
        self.action = action
    }
}

private struct WeakDustBuster {
    weak var buster: DustBuster?
}
