extension ValueCore {
    /// Makes a value derived from this one: it starts at `initial(value)` and `update`
    /// decides what each later value of the source does to it. The derived core holds this
    /// core and its observation of it (released when the derived core goes), and its own
    /// observers keep it alive until they are cleaned.
    func derive<Derived: Sendable>(
        initial: (Element) -> Derived,
        update: @escaping @Sendable (ValueCore<Derived>, Element) -> Void
    ) -> ValueCore<Derived> {
        let (value, version) = snapshot()
        let derived = ValueCore<Derived>(initial(value))
        derived.isKeptAliveByObservers = true
        // Weak: the source must not keep the derived value alive.
        let observation = observe(on: .current, after: version) { [weak derived] value in
            guard let derived else { return }
            update(derived, value)
        }
        derived.upstream = (observation, self)
        return derived
    }
}
