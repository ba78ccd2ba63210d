/// Where an observer is in its value core's bookkeeping. Guarded by the core's mutex.
@usableFromInline
enum ObserverState: Sendable {
    /// Waiting in the core's `pendingAdds` for the round it joins at.
    case pending
    /// In the core's slab, at this slot.
    case active(Int)
    /// In the core's slab at this slot, asked to leave by a thread other than the one
    /// delivering a round; the drainer removes it between rounds.
    case leaving(Int)
    /// Cleaned while pending by the drainer's own thread (perhaps from its first value's
    /// call): the drainer retires it when its turn to join comes.
    case cancelledWhilePending
    /// Out of the core.
    case removed
}

/// The part of an observer that does not depend on the element type: its place in the
/// core and the way back to it. Cleaning runs here, without generic code, so that it costs
/// no generic metadata lookups (it is reached through `Dust.clean()`, which cannot be
/// specialized for the element type).
@usableFromInline
class ObserverDust: Dust, @unchecked Sendable {
    // Sendable: `state` is guarded by the core's mutex; `link` is immutable.
    @usableFromInline
    @exclusivity(unchecked)
    final var state = ObserverState.pending
    final let link: ObserverLink

    init(link: ObserverLink) {
        self.link = link
        super.init()
    }

    override final func cleanUp() {
        // Let go of the observer outside the link's mutex: the handler's captures may run
        // user deinit code, which may clean other dust.
        switch link.withCore({ $0.remove(self) }) ?? nil {
        case .retireObserver?: retire()
        case .retireSlot(let reference)?: ValueCoreBase.retire(reference)
        case nil: break
        }
        cancelDeliveries()
    }

    /// Whether the observer is in its core or joining it (not cleaned). Read with the
    /// core's mutex held.
    final var isInCore: Bool {
        switch state {
        case .pending, .active: true
        case .leaving, .cancelledWhilePending, .removed: false
        }
    }

    /// Lets go of the handler once the observer has left its core for good.
    func retire() {}

    /// Drops deliveries waiting on a queue.
    func cancelDeliveries() {}
}

/// One observer of a ``ValueCore``: its handler and where to call it. It is also the
/// ``Dust`` handed to the caller of `observe`.
///
/// It is the one allocation of an `observe`, so keep it small: at 104 bytes it fits
/// glibc's 112-byte size class, and one more field made observe + clean 20–40% slower
/// (`Benchmarks/compare --filter 'observe.*'`). Rare state belongs in the core.
@usableFromInline
final class ObserverRecord<Element: Sendable>: ObserverDust, @unchecked Sendable {
    // Sendable: `mailbox` is immutable. `handler` is read by the thread delivering a
    // round while the observer is in the core's slab, and set to nil by `retire()` only
    // after it has left the slab (the core's mutex orders the two), so that a cleaned
    // observer's captures are released even while someone still holds its dust. It
    // skips the runtime's dynamic exclusivity checks, which cost as much as the rest of an
    // observe and clean.
    @usableFromInline
    @exclusivity(unchecked)
    var handler: (@Sendable (Element) -> Void)?
    /// `nil` for ``ExecuteQueue/current``.
    @usableFromInline
    let mailbox: Mailbox<Element>?

    @usableFromInline
    init(link: ObserverLink, queue: ExecuteQueue, handler: @escaping @Sendable (Element) -> Void) {
        self.handler = handler
        switch queue {
        case .current: mailbox = nil
        case .main: mailbox = Mailbox(target: nil)
        case .queue(let target): mailbox = Mailbox(target: target)
        }
        super.init(link: link)
    }

    /// Hands `value` to the observer, on its queue.
    @inlinable
    func receive(_ value: Element) {
        guard let handler else { return }
        receive(value, handler: handler)
    }

    /// Hands `value` to the observer through `handler` (read by the caller), on the
    /// observer's queue.
    @inlinable
    func receive(_ value: Element, handler: @escaping @Sendable (Element) -> Void) {
        if let mailbox {
            mailbox.deliver(value, to: handler)
        } else {
            handler(value)
        }
    }

    override func retire() {
        handler = nil
    }

    override func cancelDeliveries() {
        mailbox?.cancel()
    }
}
