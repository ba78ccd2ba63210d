extension PrimitiveValue where Trait == ImmutableTrait {
    /// Makes a read-only value computed from several values with `transform`, which
    /// follows them all: it holds `transform` of their values now and after every change
    /// of any of them.
    ///
    /// ```swift
    /// let status = Constant(
    ///     combining: store.repositories, store.isRepositoryFetching
    /// ) { repositories, isFetching in
    ///     isFetching ? "loading…" : "\(repositories.count) repositories"
    /// }
    /// status.observe(on: .main) { print($0) }.cleaned(by: dustBuster)
    /// ```
    ///
    /// The sources may be ``Variable``s or ``Constant``s, of one store or of several, and
    /// of any number (one works too, as ``map(_:)`` does).
    ///
    /// **One change per dispatch.** When one dispatch changes several of the sources,
    /// `transform` runs once after that store's `reduce(with:)` has returned, with every
    /// source as the reduce left it, and observers hear one new value: never a combination
    /// that existed only halfway through the reduce. Each reduce is one change, so a
    /// dispatch made from a `reduce` or an observer (which runs after the current one) is a
    /// change of its own. Outside a dispatch, each set of a source is its own change.
    /// As with any value, the new value reaches `.current` observers before `invoke`
    /// returns.
    ///
    /// **Every reduce that changes a source is a change**, even one that leaves the result
    /// as it was (a source set back to its old value, or a change `transform` ignores):
    /// observers hear the same value again, as with ``map(_:)``. Add
    /// ``removeDuplicates()`` to hear only real changes.
    ///
    /// **Always the latest values.** `transform` reads each source as it is when it runs,
    /// not as it was when the change that triggered it was made. So where sources change
    /// on several threads at once, or an observer changes a source while another change of
    /// it is being delivered, consecutive changes of a source may be heard as one; the
    /// combined value never goes back to older values, and after the last change it holds
    /// `transform` of the sources' last values.
    ///
    /// The rest is as for ``map(_:)``: observers get the current value first (unless they
    /// pass `ignoreFirst: true`), then every change, in order, each once, on any thread;
    /// `transform` runs on the thread that delivers a change, one call at a time, and should
    /// be quick and free of side effects; reading ``value-8fm8g`` inside
    /// `withObservationTracking` (a SwiftUI `body`, an `@Observable` model) is told of the
    /// combined value's next change, which follows every change of a source. The combined
    /// value holds its sources, not the other way round: when nobody holds it and nothing
    /// observes it, it goes away and stops observing them. Make it once and keep it (in a
    /// store's `let`, say), not in a computed property.
    ///
    /// The combined value belongs to the dispatcher that is ``Dispatcher/current`` where it
    /// is made (in a store's `init`, that store's dispatcher), and every recomputation
    /// holds that dispatcher, as a dispatch does. So a change outside any dispatch waits
    /// for a dispatch of that dispatcher running on another thread to end before it reads
    /// the sources, as `invoke` would: do not make a `reduce` or a `.current` observer wait
    /// for a thread that sets a source. A source that changes in a dispatch of another
    /// dispatcher stops the program, naming both dispatchers (recomputing there could
    /// deadlock, and read the other dispatcher's stores halfway through a reduce): make the
    /// combined value in the dispatcher whose dispatches change its sources. A transform
    /// that changes one of its own sources stops the program too (a cycle). See
    /// <doc:ThreadingAndReentrancy>.
    ///
    /// - Parameters:
    ///   - sources: The values to follow.
    ///   - transform: Makes the combined value from the sources' values, in the order of
    ///     `sources`.
    @preconcurrency
    @inlinable
    public convenience init<each SourceTrait, each SourceElement: Sendable>(
        combining sources: repeat PrimitiveValue<each SourceTrait, each SourceElement>,
        transform: @escaping @Sendable (repeat each SourceElement) -> Element
    ) {
        self.init(core: ValueCore.combining(repeat (each sources).core, transform: transform))
    }
}
