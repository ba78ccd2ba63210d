extension ValueCore {
    /// Makes a value derived from this one: it starts at `initial(value)` and `update`
    /// decides what each later value of the source does to it. The derived core holds this
    /// core and its observation of it (released when the derived core goes), and its own
    /// observers keep it alive until they are cleaned.
    ///
    /// Inlinable (as `map` and `removeDuplicates(by:)` are), so that the derived value's
    /// updates run specialized for its type in the caller's module (unspecialized, each
    /// set of the derived value looked its type's metadata up, and the row `map` of
    /// `Benchmarks/instructions` was 45% dearer).
    @inlinable
    func derive<Derived: Sendable>(
        initial: (Element) -> Derived,
        update: @escaping @Sendable (ValueCore<Derived>, Element) -> Void
    ) -> ValueCore<Derived> {
        let (value, version) = snapshot()
        let derived = ValueCore<Derived>(initial(value), isDerived: true)
        // Weak: the source must not keep the derived value alive.
        let observation = observe(on: .current, after: version) { [weak derived] value in
            guard let derived else { return }
            update(derived, value)
        }
        derived.hold(upstream: observation, source: self)
        return derived
    }
}

extension DeliveryCore {
    /// Makes a signal derived from this one (`map`, `filter`): `update` decides what each
    /// value sent from now on sends to it. It lives as a derived value does (see
    /// `derive(initial:update:)`).
    func deriveSignal<Derived: Sendable>(
        update: @escaping @Sendable (DeliveryCore<Derived>, Element) -> Void
    ) -> DeliveryCore<Derived> {
        let derived = DeliveryCore<Derived>(isDerived: true)
        let observation = observeChanges(on: .current) { [weak derived] value in
            guard let derived else { return }
            update(derived, value)
        }
        derived.hold(upstream: observation, source: self)
        return derived
    }
}

extension ObserverCore {
    @usableFromInline
    /// Makes this core a derived one: it holds `source` and cleans `upstream` (its
    /// observation of the source) when it goes, and its own observers keep it alive until
    /// they are cleaned. Call once, before the core is shared.
    func hold(upstream: Dust, source: AnyObject) {
        self.upstream = (upstream, source)
    }
}
