extension PrimitiveValue {
    /// Observes the value for as long as `object` lives, handing `changes` the object with
    /// each value, so the closure needs no weak capture.
    ///
    /// ```swift
    /// final class RepositoryListViewModel: Sendable {
    ///     init(store: RepositoryStore = .instantiate()) {
    ///         store.repositories.observe(on: .main, duringScopeOf: self) { viewModel, repositories in
    ///             viewModel.render(repositories)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The object is held weakly. Once it is gone, `changes` is not called again, and the
    /// observation is released at the value's next change (Swift offers no way to be told
    /// when an object goes away, so this is the first moment FluxCapacitor can notice).
    /// The returned ``Dust`` ends it sooner; there is no need to keep it.
    ///
    /// - Parameters:
    ///   - queue: Where to call `changes`; ``ExecuteQueue/current`` by default.
    ///   - ignoreFirst: When `false`, `changes` is first called with the current value.
    ///   - object: The object whose life bounds the observation.
    ///   - changes: Called with the object and each value, in order.
    @preconcurrency
    @discardableResult
    public func observe<Object: AnyObject & Sendable>(
        on queue: ExecuteQueue = .current,
        ignoreFirst: Bool = true,
        duringScopeOf object: Object,
        changes: @escaping @Sendable (Object, Element) -> Void
    ) -> Dust {
        let observation = ScopedObservation()
        let dust = observe(on: queue, ignoreFirst: ignoreFirst) { [weak object] value in
            guard let object else {
                observation.end()
                return
            }
            changes(object, value)
        }
        observation.begin(dust)
        return dust
    }
}
