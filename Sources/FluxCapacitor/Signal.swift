/// Events that hold no value: what is sent into a ``Sink`` while you observe, each once,
/// and nothing sent before. Get one from ``Sink/signal``, or derive one with ``map(_:)``
/// and ``filter(_:)``.
///
/// ```swift
/// let sink = Sink<Int>()
/// let dust = sink.signal.observe { value in
///     print(value)  // 100
/// }
/// sink.send(100)
/// dust.clean()
/// ```
///
/// A signal's observers have the guarantees of a ``Variable``'s observers, from the same
/// machinery: each sees every value sent while it observes, once, in the order sent, on its
/// ``ExecuteQueue``, never two calls at a time; all observers see the same order. A value
/// sent from inside an observer is delivered after the current one, to every observer
/// (observers `a` and `b` of values 1 then 2, where `a` sends 2 when it gets 1, see
/// `a1, b1, a2, b2`). Any thread may send, observe and clean at once, and observers may
/// send, observe, clean and dispatch. Nothing is stored: a sent value is let go of once it
/// was delivered.
///
/// A signal is a view of its sink: copies observe the same events.
public struct Signal<Element: Sendable>: Sendable {
    @usableFromInline
    let core: DeliveryCore<Element>

    @usableFromInline
    init(core: DeliveryCore<Element>) {
        self.core = core
    }

    /// Calls `changes` with every value sent from now on, on `queue`, until the returned
    /// ``Dust`` is cleaned.
    ///
    /// - Parameters:
    ///   - queue: Where to call `changes`; ``ExecuteQueue/current`` by default.
    ///   - changes: Called with each value sent from now on (never one sent before), in
    ///     the order sent, each once, never twice at the same time.
    /// - Returns: A ``Dust`` that ends the observation; clean it, or hand it to a
    ///   ``DustBuster``. Dropping it does not end the observation: it then lasts as long as
    ///   the signal's sink, as VueFlux's `observe` does. Like ``PrimitiveValue``'s
    ///   `observe`, and unlike the forms that an object's life ends
    ///   (`observe(on:duringScopeOf:changes:)`, `bind(to:_:on:)`), it is not
    ///   `@discardableResult`: the returned `Dust` is the only way to end the observation,
    ///   so the compiler warns when it is dropped. Write `_ = signal.observe { … }` where the
    ///   observation is meant to last as long as the sink.
    ///
    /// ```swift
    /// store.saved
    ///     .observe(on: .main) { repository in
    ///         showToast("\(repository.name) saved to favorites")
    ///     }
    ///     .cleaned(by: dustBuster)
    /// ```
    @preconcurrency
    @inlinable
    public func observe(
        on queue: ExecuteQueue = .current,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Dust {
        core.observeChanges(on: queue, changes: changes)
    }
}
