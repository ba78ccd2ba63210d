/// The values sent into a ``Sink`` as an `AsyncSequence`: each value sent after iteration
/// started, in order. Get one from ``Signal/values`` or ``Signal/values(bufferingPolicy:)``.
///
/// ```swift
/// for await repository in store.saved.values {
///     showToast("\(repository.name) saved to favorites")
/// }
/// ```
///
/// Observation starts when iteration starts, in `makeAsyncIterator()`: what is sent after
/// that call is delivered, what was sent before is not. It ends, and the observation is
/// released, when the loop ends, when the iterating task is cancelled, or when the
/// iterator goes away. The sequence never ends on its own.
///
/// **Buffering.** Values arrive on the thread that delivers them (the one that sends them,
/// or the one it handed them to: see <doc:ThreadingAndReentrancy>) and wait in a buffer
/// until the consumer asks for them, as with ``AsyncValues``: every value with
/// ``Signal/values`` (the buffer grows with a slow consumer's backlog), or what
/// `bufferingPolicy` keeps.
public struct AsyncSignalValues<Element: Sendable>: AsyncSequence, Sendable {
    /// The sequence never fails.
    public typealias Failure = Never

    /// Yields the values, as ``AsyncValues``'s iterator does.
    public typealias AsyncIterator = AsyncValues<Element>.AsyncIterator

    /// What the sequence keeps for a consumer that falls behind: `AsyncStream`'s policy,
    /// the same type as ``AsyncValues/BufferingPolicy``, named after the sequence it
    /// buffers (as `AsyncStream<Element>.Continuation.BufferingPolicy` is).
    ///
    /// ```swift
    /// let latest: AsyncSignalValues<Int>.BufferingPolicy = .bufferingNewest(1)
    /// let saved = sink.signal.values(bufferingPolicy: latest)
    /// ```
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    let core: DeliveryCore<Element>
    let bufferingPolicy: BufferingPolicy

    /// Starts observing: the iterator yields each value sent from now on.
    ///
    /// ```swift
    /// var iterator = sink.signal.values.makeAsyncIterator()
    /// sink.send(1)
    /// let one = await iterator.next()  // 1
    /// ```
    ///
    /// - Returns: The iterator, already observing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(bufferingPolicy: bufferingPolicy) { continuation in
            Signal(core: core).observe { value in
                continuation.yield(value)
            }
        }
    }
}

extension Signal {
    /// Each value sent from the start of iteration on, in order, as an `AsyncSequence`;
    /// every value is buffered until the consumer takes it (see ``AsyncSignalValues``).
    public var values: AsyncSignalValues<Element> {
        AsyncSignalValues(core: core, bufferingPolicy: .unbounded)
    }

    /// Each value sent from the start of iteration on, as an `AsyncSequence` that keeps
    /// what a slow consumer has not taken according to `bufferingPolicy`.
    ///
    /// ```swift
    /// let saves = store.saved.values(bufferingPolicy: .bufferingNewest(1))
    /// for await repository in saves {
    ///     showToast("\(repository.name) saved to favorites")  // the latest one only
    /// }
    /// ```
    ///
    /// - Parameter bufferingPolicy: What to keep for a consumer that falls behind.
    /// - Returns: The sequence.
    public func values(bufferingPolicy: AsyncSignalValues<Element>.BufferingPolicy) -> AsyncSignalValues<Element> {
        AsyncSignalValues(core: core, bufferingPolicy: bufferingPolicy)
    }
}
