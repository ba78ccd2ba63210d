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
    // Sendable: `hasBeenCleaned`, `action`, `buster` and `moreBusters` are guarded by the striped
    // mutex for this object (`StripedLocks.mutex(for: self)`).
    private var hasBeenCleaned = false
    private var action: (@Sendable () -> Void)?
    private weak var buster: DustBuster?
    private var moreBusters: [WeakDustBuster] = []

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
    public init(_ cleanUp: @escaping @Sendable () -> Void) {
        action = cleanUp
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
        let action = self.action
        self.action = nil
        let buster = self.buster
        self.buster = nil
        let moreBusters = self.moreBusters
        self.moreBusters = []
        mutex.unlock()

        cleanUp()
        action?()
        buster?.remove(self)
        for weakBuster in moreBusters {
            weakBuster.buster?.remove(self)
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
            moreBusters.append(WeakDustBuster(buster: buster))
        }
        // Inserted with our mutex held, so a concurrent `clean()` either sees the buster
        // and removes the dust from it, or runs before and we return above.
        buster.insert(self)
    }

    /// Subclasses end their observation here; called once, by the first ``clean()``.
    func cleanUp() {}
}

private struct WeakDustBuster {
    weak var buster: DustBuster?
}
