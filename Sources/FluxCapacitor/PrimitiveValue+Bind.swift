extension PrimitiveValue {
    /// Sets `object[keyPath: keyPath]` to the current value and to every later value, on
    /// `queue`, for as long as `object` lives.
    ///
    /// ```swift
    /// nonisolated final class Gauge: @unchecked Sendable {  // `lock` guards `stored`
    ///     private let lock = NSLock()
    ///     private var stored = 0
    ///     var value: Int {
    ///         get { lock.withLock { stored } }
    ///         set { lock.withLock { stored = newValue } }
    ///     }
    /// }
    ///
    /// let gauge = Gauge()
    /// store.repositories.map(\.count).bind(to: gauge, \.value, on: .current)
    /// ```
    ///
    /// For a `@MainActor` object, use ``bind(to:_:)``, which sets it on the main actor.
    /// (`nonisolated` keeps `Gauge` off the main actor in an Xcode 26 app target, where a
    /// class is on it unless it says otherwise: see <doc:/FluxCapacitorPersistence/Xcode26AppTargets>.)
    ///
    /// The object is held weakly; the binding ends as
    /// ``observe(on:ignoreFirst:duringScopeOf:changes:)`` does. The returned ``Dust``
    /// ends it sooner; there is no need to keep it.
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
        observe(on: queue, ignoreFirst: false, duringScopeOf: object) { object, value in
            object[keyPath: keyPath] = value
        }
    }

    /// Sets `object[keyPath: keyPath]` to the current value and to every later value, on
    /// the main actor, for as long as the `@MainActor` object `object` lives.
    ///
    /// ```swift
    /// @MainActor
    /// final class RepositoryListViewModel {
    ///     var counter = ""
    ///
    ///     init(store: RepositoryStore = .instantiate()) {
    ///         store.repositories.map { "\($0.count) repositories" }
    ///             .bind(to: self, \.counter)
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
        return observe(ignoreFirst: false, duringScopeOf: object) { object, value in
            object[keyPath: keyPath] = value
        }
    }
}
