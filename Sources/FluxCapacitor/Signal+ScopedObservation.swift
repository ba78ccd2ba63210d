extension Signal {
    /// Observes the signal on `queue` for as long as `object` lives, handing `changes` the
    /// object with each value sent, so the closure needs no weak capture.
    ///
    /// ```swift
    /// nonisolated final class FavoriteToaster: Sendable {
    ///     init(store: FavoriteStore = .instantiate()) {
    ///         store.saved.observe(on: .current, duringScopeOf: self) {
    ///             toaster, repository in
    ///             toaster.show("\(repository.name) saved to favorites")
    ///         }
    ///     }
    ///
    ///     func show(_ message: String) {
    ///         print(message)
    ///     }
    /// }
    /// ```
    ///
    /// For a `@MainActor` object, use ``observe(duringScopeOf:changes:)``, whose closure runs
    /// on the main actor. (`nonisolated` keeps `FavoriteToaster` off the main actor in an
    /// Xcode 26 app target, where a class is on it unless it says otherwise: see
    /// <doc:/FluxCapacitorPersistence/Xcode26AppTargets>.)
    ///
    /// The object is held weakly. Once it is gone, `changes` is not called again, and the
    /// observation is released when the next value is sent. The returned ``Dust`` ends it
    /// sooner; there is no need to keep it.
    ///
    /// - Parameters:
    ///   - queue: Where to call `changes`.
    ///   - object: The object whose life bounds the observation.
    ///   - changes: Called with the object and each value, in the order sent.
    /// - Returns: A ``Dust`` that ends the observation sooner. Dropping it is fine (this function
    ///   is `@discardableResult`, unlike the plain `observe`): the object's going ends it.
    @preconcurrency
    @discardableResult
    public func observe<Object: AnyObject & Sendable>(
        on queue: ExecuteQueue,
        duringScopeOf object: Object,
        changes: @escaping @Sendable (Object, Element) -> Void
    ) -> Dust {
        ScopedObservation.observe(duringScopeOf: object, changes: changes) {
            observe(on: queue, changes: $0)
        }
    }

    /// Observes the signal for as long as the `@MainActor` object `object` lives, calling
    /// `changes` on the main actor with the object and each value sent.
    ///
    /// ```swift
    /// @MainActor
    /// final class FavoriteViewModel {
    ///     private(set) var toast: String?
    ///
    ///     init(store: FavoriteStore = .instantiate()) {
    ///         store.saved.observe(duringScopeOf: self) { viewModel, repository in
    ///             viewModel.toast = "\(repository.name) saved to favorites"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Values are delivered on ``ExecuteQueue/main`` (at once when sent on the main
    /// thread); the observation ends as ``observe(on:duringScopeOf:changes:)``'s does.
    ///
    /// - Parameters:
    ///   - object: The object whose life bounds the observation.
    ///   - changes: Called on the main actor with the object and each value, in order.
    /// - Returns: A ``Dust`` that ends the observation sooner. Dropping it is fine (this function
    ///   is `@discardableResult`, unlike the plain `observe`): the object's going ends it.
    @preconcurrency
    @MainActor
    @discardableResult
    public func observe<Object: AnyObject>(
        duringScopeOf object: Object,
        changes: @escaping @MainActor (Object, Element) -> Void
    ) -> Dust {
        ScopedObservation.observeOnMainActor(duringScopeOf: object, changes: changes) {
            observe(on: .main, changes: $0)
        }
    }
}
