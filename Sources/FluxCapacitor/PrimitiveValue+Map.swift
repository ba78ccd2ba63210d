extension PrimitiveValue {
    /// A read-only value computed from this one with `transform`, which follows it: it
    /// holds `transform(value)` now and after every change.
    ///
    /// ```swift
    /// let repositoryCount: Constant<Int> = store.repositories.map(\.count)
    /// repositoryCount.observe { print("\($0) repositories") }.cleaned(by: dustBuster)
    /// ```
    ///
    /// `transform` runs once per change of this value, on the thread that delivers it (so
    /// never twice at the same time), and should be quick and free of side effects.
    ///
    /// The derived value holds this one, not the other way round: when nobody holds the
    /// derived value and nothing observes it, it goes away and stops observing this one.
    /// An observation of it keeps it alive until the observation is cleaned, so
    /// `value.map(…).observe(…).cleaned(by: dustBuster)` works as it reads. It also means
    /// that an observation whose ``Dust`` is dropped uncleaned keeps the derived value, and
    /// this value, alive for good (a plain `observe` ends with its value): clean it, or
    /// hand it to a ``DustBuster``.
    ///
    /// Each call makes a new derived value that observes this one and runs `transform`
    /// on every change: make it once and keep it (in a store's `let`, say) rather than
    /// calling `map` in a computed property that runs on every read.
    ///
    /// - Parameter transform: Makes the derived value from each value.
    /// - Returns: The derived value.
    @preconcurrency
    @inlinable
    public func map<Mapped: Sendable>(_ transform: @escaping @Sendable (Element) -> Mapped) -> Constant<Mapped> {
        let derived = core.derive(initial: transform) { derived, value in
            derived.set(transform(value))
        }
        return Constant(core: derived)
    }
}
