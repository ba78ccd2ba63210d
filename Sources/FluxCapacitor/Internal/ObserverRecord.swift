/// One observer of a ``ValueCore``: its handler, where to call it, and its place in the
/// core's list. It is also the ``Dust`` handed to the caller of `observe`.
final class ObserverRecord<Element: Sendable>: Dust, @unchecked Sendable {
    // Sendable: `handler` and `mailbox` are immutable; `state` is guarded by the core's
    // mutex; `core` is a weak reference, loaded and stored atomically by the runtime.

    enum State {
        /// Waiting in the core's `pendingAdds` for the round it joins at.
        case pending
        /// In the core's slab, at this slot.
        case active(Int)
        /// Asked to leave by a thread other than the one delivering a round.
        case leaving
        /// Out of the core.
        case removed
    }

    let handler: @Sendable (Element) -> Void
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
        if let mailbox {
            mailbox.deliver(value, to: handler)
        } else {
            handler(value)
        }
    }

    override func cleanUp() {
        core?.remove(self)
        mailbox?.cancel()
    }
}
