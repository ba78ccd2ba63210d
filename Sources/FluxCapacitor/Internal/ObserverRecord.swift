/// One observer of a ``ValueCore``: its handler, where to call it, and its place in the
/// core's list. It is also the ``Dust`` handed to the caller of `observe`.
final class ObserverRecord<Element: Sendable>: Dust, @unchecked Sendable {
    // Sendable: `mailbox` is immutable; `state` is guarded by the core's mutex; `core` is
    // a weak reference, loaded and stored atomically by the runtime. `handler` is read by
    // the thread delivering a round while the record is in the core's slab, and set to
    // nil by `retire()` only after the record has left the slab (the core's mutex orders
    // the two), so that a cleaned observer's captures are released even while someone
    // still holds its dust.

    enum State {
        /// Waiting in the core's `pendingAdds` for the round it joins at.
        case pending
        /// In the core's slab, at this slot.
        case active(Int)
        /// In the core's slab at this slot, asked to leave by a thread other than the one
        /// delivering a round; the drainer removes it between rounds.
        case leaving(Int)
        /// Out of the core.
        case removed
    }

    private var handler: (@Sendable (Element) -> Void)?
    /// `nil` for ``ExecuteQueue/current``.
    let mailbox: Mailbox<Element>?
    weak var core: ValueCore<Element>?
    var state = State.pending

    init(core: ValueCore<Element>, queue: ExecuteQueue, handler: @escaping @Sendable (Element) -> Void) {
        self.core = core
        self.handler = handler
        switch queue {
        case .current: mailbox = nil
        case .main: mailbox = Mailbox(target: nil)
        case .queue(let target): mailbox = Mailbox(target: target)
        }
        super.init()
    }

    /// Hands `value` to the observer, on its queue.
    @inline(__always)
    func receive(_ value: Element) {
        guard let handler else { return }
        if let mailbox {
            mailbox.deliver(value, to: handler)
        } else {
            handler(value)
        }
    }

    /// Lets go of the handler once the record has left its core for good.
    func retire() {
        handler = nil
    }

    override func cleanUp() {
        core?.remove(self)
        mailbox?.cancel()
    }
}
