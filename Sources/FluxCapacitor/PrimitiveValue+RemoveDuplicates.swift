extension PrimitiveValue where Element: Equatable {
    /// A read-only value that follows this one but changes only when the new value differs
    /// from the last one it took, so its observers hear no repeats.
    ///
    /// ```swift
    /// store.isRepositoryFetching
    ///     .removeDuplicates()
    ///     .observe(on: .main) { isFetching in
    ///         print(isFetching ? "loading…" : "done")
    ///     }
    ///     .cleaned(by: dustBuster)
    /// ```
    ///
    /// It holds this value (not the other way round) and lives as ``map(_:)``'s results do.
    /// It compares on the thread that sets this value, so `Element`'s `Equatable` works on
    /// any thread: in an Xcode 26 app target, a type of the app's is `nonisolated` (see
    /// <doc:/FluxCapacitorPersistence/Xcode26AppTargets>).
    ///
    /// - Returns: The value without repeats.
    public func removeDuplicates() -> Constant<Element> {
        removeDuplicates(by: ==)
    }
}

extension PrimitiveValue {
    /// A read-only value that follows this one but changes only when `areEquivalent` says
    /// the new value differs from the last one it took.
    ///
    /// ```swift
    /// let names = store.repositories.removeDuplicates {
    ///     $0.map(\.name) == $1.map(\.name)
    /// }
    /// ```
    ///
    /// `areEquivalent` runs on the thread that delivers the change, one call at a time.
    ///
    /// - Parameter areEquivalent: Whether two values count as the same.
    /// - Returns: The value without repeats.
    @preconcurrency
    @inlinable
    public func removeDuplicates(
        by areEquivalent: @escaping @Sendable (Element, Element) -> Bool
    ) -> Constant<Element> {
        let derived = core.derive(initial: { $0 }) { derived, value in
            // Only this observer sets the derived value, one call at a time.
            if !areEquivalent(derived.read(), value) {
                derived.set(value)
            }
        }
        return Constant(core: derived)
    }
}
