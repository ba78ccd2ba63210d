extension PrimitiveValue {
    /// Observes the value on `queue` for as long as `object` lives, handing `changes` the
    /// object with each value, so the closure needs no weak capture.
    ///
    /// ```swift
    /// final class RepositoryCounter: Sendable {
    ///     let count = Variable<Int>(0)
    ///
    ///     init(store: RepositoryStore = .instantiate()) {
    ///         store.repositories.observe(on: .current, duringScopeOf: self) {
    ///             counter, repositories in
    ///             counter.count.value = repositories.count
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// For a `@MainActor` object, use ``observe(ignoreFirst:duringScopeOf:changes:)``, whose
    /// closure runs on the main actor.
    ///
    /// The object is held weakly. Once it is gone, `changes` is not called again, and the
    /// observation is released at the value's next change (Swift offers no way to be told
    /// when an object goes away, so this is the first moment FluxCapacitor can notice).
    /// The returned ``Dust`` ends it sooner; there is no need to keep it.
    ///
    /// - Parameters:
    ///   - queue: Where to call `changes`.
    ///   - ignoreFirst: When `false` (the default), `changes` is first called with the
    ///     current value; pass `true` to be told of changes only.
    ///   - object: The object whose life bounds the observation.
    ///   - changes: Called with the object and each value, in order.
    /// - Returns: A ``Dust`` that ends the observation sooner. Dropping it is fine (this function
    ///   is `@discardableResult`, unlike the plain `observe`): the object's going ends it.
    @preconcurrency
    @discardableResult
    public func observe<Object: AnyObject & Sendable>(
        on queue: ExecuteQueue,
        ignoreFirst: Bool = false,
        duringScopeOf object: Object,
        changes: @escaping @Sendable (Object, Element) -> Void
    ) -> Dust {
        ScopedObservation.observe(duringScopeOf: object, changes: changes) {
            observe(on: queue, ignoreFirst: ignoreFirst, changes: $0)
        }
    }

    /// Observes the value for as long as the `@MainActor` object `object` lives, calling
    /// `changes` on the main actor with the object and each value.
    ///
    /// ```swift
    /// @MainActor
    /// final class RepositoryListViewModel {
    ///     private(set) var titles: [String] = []
    ///
    ///     init(store: RepositoryStore = .instantiate()) {
    ///         store.repositories.observe(duringScopeOf: self) {
    ///             viewModel, repositories in
    ///             viewModel.titles = repositories.map(\.name)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Values are delivered on ``ExecuteQueue/main`` (at once when set on the main thread),
    /// so this is for main-actor code; the observation ends as
    /// ``observe(on:ignoreFirst:duringScopeOf:changes:)``'s does.
    ///
    /// - Parameters:
    ///   - ignoreFirst: When `false` (the default), `changes` is first called with the
    ///     current value; pass `true` to be told of changes only.
    ///   - object: The object whose life bounds the observation.
    ///   - changes: Called on the main actor with the object and each value, in order.
    /// - Returns: A ``Dust`` that ends the observation sooner. Dropping it is fine (this function
    ///   is `@discardableResult`, unlike the plain `observe`): the object's going ends it.
    @preconcurrency
    @MainActor
    @discardableResult
    public func observe<Object: AnyObject>(
        ignoreFirst: Bool = false,
        duringScopeOf object: Object,
        changes: @escaping @MainActor (Object, Element) -> Void
    ) -> Dust {
        ScopedObservation.observeOnMainActor(duringScopeOf: object, changes: changes) {
            observe(on: .main, ignoreFirst: ignoreFirst, changes: $0)
        }
    }
}
