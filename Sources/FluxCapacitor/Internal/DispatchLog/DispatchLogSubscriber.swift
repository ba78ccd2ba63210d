/// A dispatch-log subscription. Cleaning it lets go of the handler at once; the
/// dispatcher forgets the subscription at its next logged dispatch. (Cleaning never waits
/// for the dispatcher, which is busy while a dispatch runs user code.)
@usableFromInline
final class DispatchLogSubscriber: Dust, @unchecked Sendable {
    // Sendable: `storedHandler` is guarded by the striped mutex for this object.
    private var storedHandler: (@Sendable (DispatchEvent) -> Void)?

    init(handler: @escaping @Sendable (DispatchEvent) -> Void) {
        storedHandler = handler
        super.init()
    }

    /// The handler, or `nil` once cleaned. (Locked and unlocked by hand: a closure returned
    /// through `withLock`'s generic result is reabstracted, which allocated a thunk per
    /// call: 2 mallocs per logged dispatch.)
    var handler: (@Sendable (DispatchEvent) -> Void)? {
        let mutex = StripedLocks.mutex(for: self)
        mutex.lock()
        let handler = storedHandler
        mutex.unlock()
        return handler
    }

    override func cleanUp(link _: CoreLock?) {
        let handler = StripedLocks.mutex(for: self).withLock {
            defer { storedHandler = nil }
            return storedHandler
        }
        // Released outside the lock: its captures may run user deinit code.
        _ = handler
    }
}
