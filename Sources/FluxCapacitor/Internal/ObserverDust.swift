/// The part of an observer that does not depend on the element type: its place in the
/// core and the way back to it. Cleaning runs here, without generic code, so that it costs
/// no generic metadata lookups (it is reached through `Dust.clean()`, which cannot be
/// specialized for the element type).
///
/// Cleaning takes one path: `Dust.clean()` → `cleanUp(link:)` → the core's state machine
/// (`ObserverCore.remove(_:)`, which says what to let go of) → back here, where that is let
/// go of with no lock held.
@usableFromInline
class ObserverDust: Dust, @unchecked Sendable {
    // Sendable: `place` is guarded by the core's lock. The link to the core is kept in
    // `Dust`'s state word (one field fewer), which hands it to `cleanUp(link:)`.
    // Unchecked: only the machine writes it, under the core's lock; the runtime's check
    // would cost as much as the rest of an observe and clean.
    @usableFromInline
    @exclusivity(unchecked)
    final var place = ObserverPlace.joining

    override init(link: ObserverLink) {
        super.init(link: link)
    }

    override final func cleanUp(link: ObserverLink?) {
        // Let go of the observer outside the link's lock: the handler's captures may run
        // user deinit code, which may clean other dust. (`link` is never nil here: an
        // observer's dust is made with one.)
        switch link?.withCore({ $0.remove(self) }) {
        case .releaseHandler?: releaseHandler()
        case .release(let reference)?: Self.release(reference)
        case .nothing?, nil: break
        }
        dropQueuedDeliveries()
    }

    /// Whether the observer is in its core or joining it (not cleaned). Read with the
    /// core's lock held.
    final var isObserving: Bool {
        switch place {
        case .joining, .inSlab: true
        case .leaving, .leftWhileJoining, .left: false
        }
    }

    /// Lets go of an observer that has left the slab: its handler, then the slab's +1
    /// reference, which keeps it alive until then.
    static func release(_ reference: Unmanaged<ObserverDust>) {
        // Unretained: `reference` is the +1 this releases just after.
        reference._withUnsafeGuaranteedRef { $0.releaseHandler() }
        reference.release()
    }

    /// Lets go of the handler once the observer has left its core for good.
    func releaseHandler() {}

    /// Drops deliveries waiting on a dispatch queue.
    func dropQueuedDeliveries() {}
}
