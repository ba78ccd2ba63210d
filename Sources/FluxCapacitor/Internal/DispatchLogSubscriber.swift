/// A dispatch-log subscription. Cleaning it lets go of the handler at once; the
/// dispatcher forgets the subscription at its next logged dispatch. (Cleaning never waits
/// for the dispatcher, which is busy while a dispatch runs user code.)
final class DispatchLogSubscriber: Dust, @unchecked Sendable {
    // Sendable: `storedHandler` is guarded by the striped mutex for this object.
    private var storedHandler: (@Sendable (DispatchEvent) -> Void)?

    init(handler: @escaping @Sendable (DispatchEvent) -> Void) {
        storedHandler = handler
        super.init()
    }

    /// The handler, or `nil` once cleaned.
    var handler: (@Sendable (DispatchEvent) -> Void)? {
        StripedLocks.mutex(for: self).withLock { storedHandler }
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
