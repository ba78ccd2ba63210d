extension PrimitiveValue {
    /// Sets `object[keyPath: keyPath]` to the current value and to every later value, on
    /// `queue`, for as long as `object` lives.
    ///
    /// ```swift
    /// final class CounterLabel: @unchecked Sendable { var text = "" }
    ///
    /// store.repositories.map { "\($0.count) repositories" }.bind(to: label, \.text, on: .main)
    /// ```
    ///
    /// The object is held weakly; the binding ends as
    /// ``observe(on:ignoreFirst:duringScopeOf:changes:)`` does. The returned ``Dust``
    /// ends it sooner; there is no need to keep it.
    @discardableResult
    public func bind<Object: AnyObject & Sendable>(
        to object: Object,
        _ keyPath: any ReferenceWritableKeyPath<Object, Element> & Sendable,
        on queue: ExecuteQueue = .current
    ) -> Dust {
        observe(on: queue, ignoreFirst: false, duringScopeOf: object) { object, value in
            object[keyPath: keyPath] = value
        }
    }
}
