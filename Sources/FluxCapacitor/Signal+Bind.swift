extension Signal {
    /// Sets `object[keyPath: keyPath]` to every value sent from now on, on `queue`, for as
    /// long as `object` lives. The property keeps the last value sent; nothing is set
    /// before the first one.
    ///
    /// ```swift
    /// store.saved.map { Optional($0.name) }.bind(to: banner, \.message, on: .current)
    /// ```
    ///
    /// For a `@MainActor` object, use ``bind(to:_:)``, which sets it on the main actor.
    ///
    /// The object is held weakly; the binding ends as
    /// ``observe(on:duringScopeOf:changes:)`` does. The returned ``Dust`` ends it sooner;
    /// there is no need to keep it.
    ///
    /// - Parameters:
    ///   - object: The object to set.
    ///   - keyPath: The property of `object` to set.
    ///   - queue: Where to set it.
    /// - Returns: A ``Dust`` that ends the binding sooner. Dropping it is fine (this function
    ///   is `@discardableResult`, unlike the plain `observe`): the object's going ends it.
    @discardableResult
    public func bind<Object: AnyObject & Sendable>(
        to object: Object,
        _ keyPath: any ReferenceWritableKeyPath<Object, Element> & Sendable,
        on queue: ExecuteQueue
    ) -> Dust {
        observe(on: queue, duringScopeOf: object) { object, value in
            object[keyPath: keyPath] = value
        }
    }

    /// Sets `object[keyPath: keyPath]` to every value sent from now on, on the main actor,
    /// for as long as the `@MainActor` object `object` lives.
    ///
    /// ```swift
    /// @MainActor
    /// final class FavoriteViewModel {
    ///     var lastSaved: GitHub.Repository?
    ///
    ///     init(store: FavoriteStore = .instantiate()) {
    ///         store.saved.map(Optional.some).bind(to: self, \.lastSaved)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to set.
    ///   - keyPath: The property of `object` to set.
    /// - Returns: A ``Dust`` that ends the binding sooner. Dropping it is fine (this function
    ///   is `@discardableResult`, unlike the plain `observe`): the object's going ends it.
    @MainActor
    @discardableResult
    public func bind<Object: AnyObject>(
        to object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, Element>
    ) -> Dust {
        // Used only on the main actor, where the key path was formed.
        nonisolated(unsafe) let keyPath = keyPath
        return observe(duringScopeOf: object) { object, value in
            object[keyPath: keyPath] = value
        }
    }
}
