/// The values of a ``Variable`` or ``Constant`` as an `AsyncSequence`: the current value
/// first, then each change, in order. Get one from ``PrimitiveValue/values`` or
/// ``PrimitiveValue/values(bufferingPolicy:)``.
///
/// ```swift
/// for await repositories in store.repositories.values {
///     render(repositories)
/// }
/// ```
///
/// Observation starts when iteration starts (in `makeAsyncIterator()`), and reading the
/// current value and registering for changes are one step, so no change in between is
/// missed. It ends, and the observation is released, when the loop ends (`break`,
/// `return`, a thrown error), when the iterating task is cancelled, or when the iterator
/// goes away: nothing keeps running after it. The sequence never ends on its own.
///
/// **Buffering.** Changes arrive on the thread that delivers them (the one that makes
/// them, or the one it handed them to: see <doc:ThreadingAndReentrancy>) and wait in a
/// buffer until the consumer asks for them. With ``PrimitiveValue/values`` the buffer is unbounded: a
/// slow consumer sees every value, in order, and the buffer grows with its backlog. With
/// `.bufferingNewest(1)` a slow consumer skips to the latest value (the usual choice for
/// rendering state); with `.bufferingOldest(n)` it sees the first `n` values it has not
/// taken and misses the later ones.
public struct AsyncValues<Element: Sendable>: AsyncSequence, Sendable {
    /// The sequence never fails.
    public typealias Failure = Never

    /// What a consumer that falls behind sees: `.unbounded`, `.bufferingNewest(n)` or
    /// `.bufferingOldest(n)`, as for `AsyncStream`.
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    let core: ValueCore<Element>
    let bufferingPolicy: BufferingPolicy

    /// Starts observing: the iterator yields the current value, then each change.
    ///
    /// - Returns: The iterator, already observing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(bufferingPolicy: bufferingPolicy) { continuation in
            core.observe(on: .current, ignoreFirst: false) { value in
                continuation.yield(value)
            }
        }
    }

    /// Yields the values of an ``AsyncValues`` sequence.
    public struct AsyncIterator: AsyncIteratorProtocol {
        // The stream, not one iterator of it: each `next` takes a fresh iterator from it (they
        // share the stream's one buffer, and one task iterates at a time), a local value the
        // call may hand to `AsyncStream.Iterator.next()`, which runs off the caller's actor.
        // Handing it the stored iterator (`self.base`) instead is a Swift 6 region-isolation
        // error, and `next(isolation:)`, which would not need to, is macOS 15 / iOS 18.
        let stream: AsyncStream<Element>
        let subscription: Subscription

        /// Starts `observe`, which feeds the continuation it is given, and iterates what it
        /// yields; the observation ends with the iterator or the iterating task.
        init(
            bufferingPolicy: BufferingPolicy,
            observe: (AsyncStream<Element>.Continuation) -> Dust
        ) {
            let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
            let observation = observe(continuation)
            // Cancelling the consuming task ends the stream and lands here.
            continuation.onTermination = { _ in observation.clean() }
            self.stream = stream
            subscription = Subscription(observation: observation, continuation: continuation)
        }

        /// The next value, waiting for it if needed; `nil` once the iterating task is
        /// cancelled.
        ///
        /// - Returns: The next value, or `nil` once the task is cancelled.
        public mutating func next() async -> Element? {
            await next(isolation: #isolation)
        }

        /// The next value, waiting for it on `actor`; `nil` once the iterating task is
        /// cancelled.
        ///
        /// - Parameter actor: The actor to wait on: the caller's.
        /// - Returns: The next value, or `nil` once the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            // The package supports macOS 14 / iOS 17; `AsyncStream.Iterator.next(isolation:)`
            // is macOS 15 / iOS 18 / tvOS 18 / watchOS 11 / visionOS 2 (its `@available` in
            // the standard library's interface). Before those, `next()` waits off the actor
            // and returns to it, with the same values in the same order.
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                var base = stream.makeAsyncIterator()
                return await base.next(isolation: actor)
            } else {
                return await nextWithoutIsolation()
            }
        }

        /// The path before macOS 15 / iOS 18: `AsyncStream.Iterator.next()`, which waits
        /// off the caller's actor. (Internal, so that Linux, where the other path is always
        /// available, tests it too.)
        mutating func nextWithoutIsolation() async -> Element? {
            var base = stream.makeAsyncIterator()
            return await base.next()
        }
    }

    /// Ends the observation when the iterator goes away (a `for await` loop that ends
    /// drops its iterator).
    final class Subscription: Sendable {
        let observation: Dust
        let continuation: AsyncStream<Element>.Continuation

        init(observation: Dust, continuation: AsyncStream<Element>.Continuation) {
            self.observation = observation
            self.continuation = continuation
        }

        deinit {
            observation.clean()
            continuation.finish()
        }
    }
}

// An iterator is used by one task at a time, as `AsyncIteratorProtocol` expects.
@available(*, unavailable)
extension AsyncValues.AsyncIterator: Sendable {}

extension PrimitiveValue {
    /// The current value, then each change, in order, as an `AsyncSequence`; every value
    /// is buffered until the consumer takes it (see ``AsyncValues`` for the policy).
    ///
    /// ```swift
    /// Task {
    ///     for await isFetching in store.isRepositoryFetching.values {
    ///         print(isFetching ? "loading…" : "done")
    ///     }
    /// }
    /// ```
    public var values: AsyncValues<Element> {
        AsyncValues(core: core, bufferingPolicy: .unbounded)
    }

    /// The current value, then each change, as an `AsyncSequence` that keeps what a slow
    /// consumer has not taken according to `bufferingPolicy`.
    ///
    /// ```swift
    /// let states = store.repositories.values(bufferingPolicy: .bufferingNewest(1))
    /// for await repositories in states {
    ///     render(repositories)  // always the latest state, never a backlog
    /// }
    /// ```
    ///
    /// - Parameter bufferingPolicy: What to keep for a consumer that falls behind.
    /// - Returns: The sequence.
    public func values(bufferingPolicy: AsyncValues<Element>.BufferingPolicy) -> AsyncValues<Element> {
        AsyncValues(core: core, bufferingPolicy: bufferingPolicy)
    }
}
