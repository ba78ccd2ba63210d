extension PrimitiveValue where Element: Equatable {
    /// A read-only value that follows this one but changes only when the new value differs
    /// from the last one it took, so its observers hear no repeats.
    ///
    /// ```swift
    /// store.isRepositoryFetching
    ///     .removeDuplicates()
    ///     .observe(on: .main) { isFetching in spinner.isHidden = !isFetching }
    ///     .cleaned(by: dustBuster)
    /// ```
    ///
    /// It holds this value (not the other way round) and lives as ``map(_:)``'s results do.
    public func removeDuplicates() -> Constant<Element> {
        let derived = core.derive(initial: { $0 }) { derived, value in
            // Only this observer sets the derived value, one call at a time.
            if derived.value != value {
                derived.set(value)
            }
        }
        return Constant(core: derived)
    }
}
