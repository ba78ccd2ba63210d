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
    // (`StripedLocks.mutex(for: self)`); once `state` says cleaned, what it holds is read by
    // the one `clean()` that said so, and by `deinit`.
    private weak var buster: DustBuster?
    /// Whether the dust was cleaned, and what it holds, in one word, so that the dust of
    /// every `observe` is 56 bytes, glibc's 64-byte class (issue 23's budget of bytes per
    /// observer; a flag and a link beside it took 16 bytes more, with padding):
    /// - the bits above the lowest two: a +1 reference that `deinit` releases, or 0 for
    ///   none: an observer's `ObserverLink`, or a `RareDustState` (a dust's closure, its
    ///   busters after the first, and its link if it has one);
    /// - bit 1 (`holdsRare`): the reference is a `RareDustState`;
    /// - bit 0 (`cleanedBit`): cleaned.
    /// (A Swift object is aligned at least as a pointer, to 4 bytes even on watchOS's
    /// arm64_32, so the two bits are free.) A word rather than an enum of references: an
    /// enum's copies retain, and its cases are told apart by outlined value-witness code,
    /// which made observe + clean 2% dearer.
    // Unchecked: the striped mutex serializes every access (see above); the runtime's check
    // would cost more than the rest of a clean.
    @exclusivity(unchecked)
    private var state: UInt

    private static let cleanedBit: UInt = 1
    private static let holdsRare: UInt = 2

    /// The reference `state` holds (its +1 stays there), or `nil`.
    private static func reference(in state: UInt) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: state & ~(cleanedBit | holdsRare))
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
        let rare = Unmanaged.passRetained(RareDustState(action: cleanUp, link: nil))
        state = UInt(bitPattern: rare.toOpaque()) | Self.holdsRare
    }

    /// For subclasses, which override `cleanUp(link:)`.
    init() {
        state = 0
    }

    /// For an observer's dust: `link` is handed to `cleanUp(link:)`.
    init(link: ObserverLink) {
        state = UInt(bitPattern: Unmanaged.passRetained(link).toOpaque())
    }

    deinit {
        // Nobody else holds the dust: `state` is read without the mutex.
        guard let reference = Self.reference(in: state) else { return }
        if state & Self.holdsRare != 0 {
            Unmanaged<RareDustState>.fromOpaque(reference).release()
        } else {
            Unmanaged<ObserverLink>.fromOpaque(reference).release()
        }
    }

    /// Whether ``clean()`` has been called.
    public final var isCleaned: Bool {
        StripedLocks.mutex(for: self).withLock { state & Self.cleanedBit != 0 }
    }

    /// Ends the observation or subscription. Calling it again does nothing.
    public final func clean() {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        let state = self.state
        if state & Self.cleanedBit != 0 {
            mutex.unlock()
            return
        }
        self.state = state | Self.cleanedBit
        let buster = self.buster
        if buster != nil {
            // Only when set: assigning a weak reference costs a runtime call even for nil.
            self.buster = nil
        }
        mutex.unlock()

        // What `state` holds stays there (+1) until `deinit`: used without retaining it.
        guard let reference = Self.reference(in: state) else {
            cleanUp(link: nil)
            buster?.remove(self)
            return
        }
        if state & Self.holdsRare == 0 {
            Unmanaged<ObserverLink>.fromOpaque(reference)._withUnsafeGuaranteedRef { cleanUp(link: $0) }
            buster?.remove(self)
            return
        }
        // The box is this clean's alone now: `cleaned(by:)` leaves a cleaned dust alone.
        let rare = Unmanaged<RareDustState>.fromOpaque(reference).takeUnretainedValue()
        cleanUp(link: rare.link)
        let action = rare.action
        let moreBusters = rare.moreBusters
        // Let go of the closure's captures and the weak boxes now, not when the dust goes.
        rare.action = nil
        rare.moreBusters = []
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
        if state & Self.cleanedBit != 0 {
            return
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

    /// The dust's `RareDustState`, made if it has none (taking over the +1 of the link it
    /// holds, if any). Call with the dust's striped mutex held, before it is cleaned.
    private func rareStateLocked() -> RareDustState {
        let reference = Self.reference(in: state)
        if state & Self.holdsRare != 0, let reference {
            return Unmanaged<RareDustState>.fromOpaque(reference).takeUnretainedValue()
        }
        // The word's +1 on the link, if any, moves into the box.
        let link = reference.map { Unmanaged<ObserverLink>.fromOpaque($0).takeRetainedValue() }
        let rare = RareDustState(action: nil, link: link)
        state = UInt(bitPattern: Unmanaged.passRetained(rare).toOpaque()) | Self.holdsRare
        return rare
    }

    /// Ends what the dust stands for: called once, by the first ``clean()``, the one way
    /// a dust is cleaned up, with the link the dust held if it is an observer's (`nil` for
    /// every other dust). The library's own dusts override it; a dust made with
    /// ``init(_:)`` has nothing to override it, and `clean()` runs its closure after it.
    func cleanUp(link: ObserverLink?) {}
}

/// The closure of `Dust.init(_:)`, a dust's busters after the first, and the link of an
/// observer's dust that has them. Guarded by the striped mutex of the dust that holds it,
/// until the dust is cleaned; then the `clean()` that cleaned it alone touches it.
final class RareDustState {
    var action: (@Sendable () -> Void)?
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
