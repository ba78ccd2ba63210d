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
/// from another thread (a `deinit`, say). The one dust of FluxCapacitor's whose cleaning
/// can wait is an ``InFlightTask``: it waits for a dispatch of its own work that another
/// thread is reducing at that moment (see <doc:ThreadingAndReentrancy>).
public class Dust: @unchecked Sendable {
    // Sendable: `buster` and `state` are guarded by the striped mutex for this object
    // (`StripedLocks.mutex(for: self)`). Subclasses guard their own state with it too.
    private weak var buster: DustBuster?
    /// Whether the dust was cleaned, and until then what its cleaning needs.
    private var state: State

    fileprivate enum State {
        /// A subclass's dust, whose `cleanUp(link:)` holds what it needs.
        case plain
        /// An observer's dust: its core's lock, the way back to the core.
        case observing(CoreLock)
        /// A dust's closure, its busters after the first, and its link if it has one.
        case rare(RareDustState)
        /// Cleaned: what it held was let go of.
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
    init(link: CoreLock) {
        state = .observing(link)
    }

    /// Whether ``clean()`` has been called.
    public final var isCleaned: Bool {
        StripedLocks.mutex(for: self).withLock { isCleanedLocked }
    }

    /// Whether the dust was cleaned: for a subclass that keeps its own state under the
    /// dust's striped mutex, which must be held.
    final var isCleanedLocked: Bool {
        if case .cleaned = state { true } else { false }
    }

    /// Ends the observation or subscription. Calling it again does nothing.
    public final func clean() {
        if let (state, buster) = takeForCleaning() {
            finishCleaning(state, buster)
        }
    }

    /// The second half of a ``clean()`` that ``markCleaned()`` began: what it took out of
    /// the dust.
    struct Cleaning {
        fileprivate let dust: Dust
        fileprivate let state: State
        fileprivate let buster: DustBuster?

        /// Ends what the dust stands for and takes it out of its busters, as ``clean()``
        /// does after marking it. Call with no lock held.
        func finish() {
            dust.finishCleaning(state, buster)
        }
    }

    /// The first half of ``clean()``, for a caller that must mark the dust cleaned inside a
    /// critical section of its own (`InFlightTasks` takes a task out of its table so): marks
    /// it cleaned and returns the second half, or `nil` if it was cleaned already. Call it
    /// holding no lock, or only one that ranks lower than a striped mutex, and call the
    /// second half's `finish()` once no lock is held.
    final func markCleaned() -> Cleaning? {
        takeForCleaning().map { Cleaning(dust: self, state: $0.state, buster: $0.buster) }
    }

    /// Marks the dust cleaned, in one critical section of its striped mutex, and takes out
    /// what it held and its first buster; `nil` if it was cleaned already.
    private final func takeForCleaning() -> (state: State, buster: DustBuster?)? {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        if case .cleaned = self.state {
            mutex.unlock()
            return nil
        }
        // Moved out, not copied: what it holds reaches its cleaning without a retain.
        var state = State.cleaned
        swap(&state, &self.state)
        let buster = self.buster
        if buster != nil {
            // Only when set: assigning a weak reference costs a runtime call even for nil.
            self.buster = nil
        }
        mutex.unlock()
        return (state, buster)
    }

    /// Ends what the dust stands for, runs its closure, and takes it out of its busters.
    private final func finishCleaning(_ state: consuming State, _ buster: DustBuster?) {
        switch consume state {
        case .observing(let link):
            cleanUp(link: link)
        case .plain:
            cleanUp(link: nil)
        case .rare(let rare):
            finishCleaning(rare)
        case .cleaned:
            fatalError("Dust: internal inconsistency: a dust cleaned twice")
        }
        if let buster {
            buster.remove(self)
        }
    }

    /// `finishCleaning` of a dust with a closure or more than one buster. The box is this
    /// clean's alone now: `cleaned(by:)` leaves a cleaned dust alone.
    private final func finishCleaning(_ rare: RareDustState) {
        cleanUp(link: rare.link)
        rare.action?()
        for weakBuster in rare.moreBusters {
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
        switch state {
        case .cleaned:
            return
        case .observing:
            break
        case .plain, .rare:
            if hasNothingLeftToCleanLocked {
                return
            }
        }
        if self.buster == nil {
            self.buster = buster
        } else if self.buster !== buster {
            rareStateLocked().moreBusters.append(WeakDustBuster(buster: buster))
        }
        // Inserted with our mutex held, so a concurrent `clean()` either sees the buster
        // and removes the dust from it, or runs before and we return above.
        buster.insert(self)
    }

    /// Whether a subclass's dust has ended on its own, so that a buster need not hold it
    /// (an ``InFlightTask`` whose work returned). Asked with the striped mutex held.
    var hasNothingLeftToCleanLocked: Bool {
        false
    }

    /// Takes the dust out of its busters without cleaning it: for a subclass's dust that
    /// ended on its own (an ``InFlightTask`` whose work returned), so that a buster kept by
    /// a long-lived screen does not hold one finished task per search. Call with no lock
    /// held, after `hasNothingLeftToCleanLocked` turned true.
    final func leaveBusters() {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        let buster = self.buster
        if buster != nil {
            self.buster = nil
        }
        var moreBusters: [WeakDustBuster] = []
        if case .rare(let rare) = state {
            swap(&moreBusters, &rare.moreBusters)
        }
        mutex.unlock()
        buster?.remove(self)
        for weakBuster in moreBusters {
            weakBuster.buster?.remove(self)
        }
    }

    /// The dust's `RareDustState`, made if it has none (keeping the link it holds, if any).
    /// Call with the dust's striped mutex held, before it is cleaned.
    private func rareStateLocked() -> RareDustState {
        switch state {
        case .rare(let rare):
            return rare
        case .observing(let link):
            let rare = RareDustState(action: nil, link: link)
            state = .rare(rare)
            return rare
        case .plain:
            let rare = RareDustState(action: nil, link: nil)
            state = .rare(rare)
            return rare
        case .cleaned:
            fatalError("Dust: internal inconsistency: more busters for a cleaned dust")
        }
    }

    /// One dust that cleans all of `dusts` (the one dust itself, when there is one).
    @usableFromInline
    static func cleaningAll(_ dusts: [Dust]) -> Dust {
        if dusts.count == 1 {
            return dusts[0]
        }
        return Dust {
            for dust in dusts {
                dust.clean()
            }
        }
    }

    /// Ends what the dust stands for: called once, by the first ``clean()``, the one way
    /// a dust is cleaned up, with the link the dust held if it is an observer's (`nil` for
    /// every other dust). The library's own dusts override it; a dust made with
    /// ``init(_:)`` has nothing to override it, and `clean()` runs its closure after it.
    func cleanUp(link: CoreLock?) {}
}

/// The closure of `Dust.init(_:)`, a dust's busters after the first, and the link of an
/// observer's dust that has them. Guarded by the striped mutex of the dust that holds it,
/// until the dust is cleaned; then the `clean()` that cleaned it alone touches it.
final class RareDustState {
    let action: (@Sendable () -> Void)?
    let link: CoreLock?
    var moreBusters: [WeakDustBuster] = []

    init(action: (@Sendable () -> Void)?, link: CoreLock?) {
        self.action = action
        self.link = link
    }
}

struct WeakDustBuster {
    weak var buster: DustBuster?
}
