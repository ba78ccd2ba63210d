/// One observer of a value core: its handler and where to call it. It is also the
/// ``Dust`` handed to the caller of `observe`.
///
/// It is the one allocation of an `observe`, so keep it small: it fits glibc's 96-byte size
/// class, and one more field once made observe + clean 20–40% slower
/// (`Benchmarks/compare --filter 'observe.*'`). Rare state belongs in the core.
@usableFromInline
final class ObserverRecord<Element: Sendable>: ObserverDust, @unchecked Sendable {
    // Sendable: `mailbox` is immutable. `handler` is read by the thread delivering a
    // round while the observer is in the core's slab, and set to nil by
    // `releaseHandler()` only after it has left the slab (the core's lock orders the two),
    // so that a cleaned observer's captures are released even while someone still holds
    // its dust. It skips the runtime's dynamic exclusivity checks, which cost as much as
    // the rest of an observe and clean.
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

    override func releaseHandler() {
        handler = nil
    }

    override func dropQueuedDeliveries() {
        mailbox?.dropQueued()
    }
}
