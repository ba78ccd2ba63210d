/// The part of an observer that does not depend on the element type: its place in the
/// core and the way back to it. Cleaning runs here, without generic code, so that it costs
/// no generic metadata lookups (it is reached through `Dust.clean()`, which cannot be
/// specialized for the element type).
///
/// Cleaning takes one path: `Dust.clean()` → `cleanUp(link:)` → the core's state machine
/// (`ObserverCore.removeLocked(_:)`, under the core's lock, which says what to let go of) →
/// back here, where that is let go of with no lock held.
@usableFromInline
class ObserverDust: Dust, @unchecked Sendable {
    // Sendable: `place` is guarded by the core's lock. The core's lock (the way back to the
    // core) is kept in `Dust`'s state, which hands it to `cleanUp(link:)`.
    // Unchecked: only the machine writes it, under the core's lock; checked, the row
    // `observeClean30000` of `Benchmarks/instructions` is a fifth dearer, over its budget.
    @usableFromInline
    @exclusivity(unchecked)
    final var place = ObserverPlace.joining

    override init(link: CoreLock) {
        super.init(link: link)
    }

    override final func cleanUp(link: CoreLock?) {
        // (`link` is never nil here: an observer's dust is made with one.)
        if link?.isHeldByCurrentThread == true {
            fatalError(
                "An observer of a Variable was cleaned while that Variable's value was being changed "
                    + "in place on the same thread (the closure of `variable.update { }` cleaned it). "
                    + "Clean it after the update.")
        }
        // Let go of the observer outside the lock: the handler's captures may run user
        // deinit code, which may clean other dust.
        switch link?.withCore({ $0.removeLocked(self) }) {
        case .releaseHandler?: releaseHandler()
        case .release(let reference)?: reference.takeRetainedValue().releaseHandler()
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

    /// Lets go of the handler once the observer has left its core for good.
    func releaseHandler() {}

    /// Drops deliveries waiting on a dispatch queue.
    func dropQueuedDeliveries() {}
}
