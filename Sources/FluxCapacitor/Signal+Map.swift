extension Signal {
    /// A signal that sends `transform(value)` for each value this one sends.
    ///
    /// ```swift
    /// let names: Signal<String> = store.saved.map(\.name)
    /// names.observe { print("saved \($0)") }.cleaned(by: dustBuster)
    /// ```
    ///
    /// `transform` runs once per value, on the thread that delivers it (so never twice at
    /// the same time), whether or not anyone observes the result; keep it quick and free of
    /// side effects.
    ///
    /// The derived signal holds this one, not the other way round, and lives as
    /// ``PrimitiveValue/map(_:)``'s results do: an observation of it keeps it alive until
    /// the observation is cleaned.
    ///
    /// - Parameter transform: Makes the derived value of each value sent.
    /// - Returns: The signal of the transformed values.
    @preconcurrency
    public func map<Mapped: Sendable>(_ transform: @escaping @Sendable (Element) -> Mapped) -> Signal<Mapped> {
        Signal<Mapped>(
            core: core.deriveSignal { derived, value in
                derived.send(transform(value))
            })
    }

    /// A signal that sends the values of this one for which `isIncluded` returns `true`.
    ///
    /// ```swift
    /// let swiftRepositories = store.saved.filter { $0.name.hasPrefix("swift") }
    /// ```
    ///
    /// `isIncluded` runs as ``map(_:)``'s `transform` does, and the result lives as its
    /// result does.
    ///
    /// - Parameter isIncluded: Whether a value passes.
    /// - Returns: The signal of the values that pass.
    @preconcurrency
    public func filter(_ isIncluded: @escaping @Sendable (Element) -> Bool) -> Signal<Element> {
        Signal(
            core: core.deriveSignal { derived, value in
                if isIncluded(value) {
                    derived.send(value)
                }
            })
    }
}
