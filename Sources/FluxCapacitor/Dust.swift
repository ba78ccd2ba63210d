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
    // Sendable: `buster` and `state` are guarded by the striped mutex for this object
    // (`StripedLocks.mutex(for: self)`).
    private weak var buster: DustBuster?
    /// Whether the dust was cleaned, and what it holds until then, in one word: so that
    /// the dust of every `observe` is 56 bytes, glibc's 64-byte class (issue 23's budget of
    /// bytes per observer; a flag beside it took 8 bytes more, with its padding).
    private var state: State

    /// A dust's state (`Dust.state`). One word: the payloads are native class references,
    /// whose spare bits tell the cases apart.
    enum State {
        /// Not cleaned; holds nothing (the library's own dusts other than observers).
        case plain
        /// Not cleaned; an observer's dust, holding the link to its value core, which
        /// `clean()` hands to `cleanUp(link:)`.
        case link(ObserverLink)
        /// Not cleaned; holds what few dusts have: the closure of `init(_:)`, busters after
        /// the first, and an observer's link if the dust had one.
        case rare(RareDustState)
        /// Cleaned.
        case cleaned
    }

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
        state = .rare(RareDustState(action: cleanUp, link: nil))
    }

    /// For subclasses, which override `cleanUp(link:)`.
    init() {
        state = .plain
    }

    /// For an observer's dust: `link` is handed to `cleanUp(link:)`.
    init(link: ObserverLink) {
        state = .link(link)
    }

    /// Whether ``clean()`` has been called.
    public final var isCleaned: Bool {
        StripedLocks.mutex(for: self).withLock {
            if case .cleaned = state { true } else { false }
        }
    }

    /// Ends the observation or subscription. Calling it again does nothing.
    public final func clean() {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        // Swapped, not copied: the held link or box moves out without a retain.
        var taken = State.cleaned
        swap(&state, &taken)
        if case .cleaned = taken {
            mutex.unlock()
            return
        }
        let buster = self.buster
        if buster != nil {
            // Only when set: assigning a weak reference costs a runtime call even for nil.
            self.buster = nil
        }
        mutex.unlock()

        switch taken {
        case .plain, .cleaned:
            cleanUp(link: nil)
            buster?.remove(self)
        case .link(let link):
            cleanUp(link: link)
            buster?.remove(self)
        case .rare(let rare):
            // The box is this dust's no more (the state says cleaned): read without the mutex.
            cleanUp(link: rare.link)
            rare.action?()
            buster?.remove(self)
            for weakBuster in rare.moreBusters {
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
        if case .cleaned = state {
            return
        }
        if self.buster == nil {
            self.buster = buster
        } else if self.buster !== buster {
            let rare: RareDustState
            switch state {
            case .rare(let held): rare = held
            case .plain, .cleaned: rare = RareDustState(action: nil, link: nil)
            case .link(let link): rare = RareDustState(action: nil, link: link)
            }
            state = .rare(rare)
            rare.moreBusters.append(WeakDustBuster(buster: buster))
        }
        // Inserted with our mutex held, so a concurrent `clean()` either sees the buster
        // and removes the dust from it, or runs before and we return above.
        buster.insert(self)
    }

    /// Ends what the dust stands for: called once, by the first ``clean()``, the one way
    /// a dust is cleaned up, with the link the dust held if it is an observer's (`nil` for
    /// every other dust). The library's own dusts override it; a dust made with
    /// ``init(_:)`` has nothing to override it, and `clean()` runs its closure after it.
    func cleanUp(link: ObserverLink?) {}
}

/// The closure of `Dust.init(_:)`, a dust's busters after the first, and the link of an
/// observer's dust that has them. Guarded by the striped mutex of the dust that holds it,
/// until the dust is cleaned; then `clean()` alone reads it.
final class RareDustState {
    let action: (@Sendable () -> Void)?
    let link: ObserverLink?
    var moreBusters: [WeakDustBuster] = []

    init(action: (@Sendable () -> Void)?, link: ObserverLink?) {
        self.action = action
        self.link = link
    }
}

struct WeakDustBuster {
    weak var buster: DustBuster?
}
