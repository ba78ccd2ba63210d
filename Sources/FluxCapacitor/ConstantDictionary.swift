/// An observable dictionary that can only be read: how a store exposes a
/// ``VariableDictionary``. See ``PrimitiveDictionary``.
///
/// ```swift
/// let rows: ConstantDictionary<Int, Row> = ConstantDictionary(_rows)
/// ```
///
/// `ConstantDictionary<Key, Value>` is ``PrimitiveDictionary`` with the ``ImmutableTrait``.
public typealias ConstantDictionary<Key: Hashable & Sendable, Value: Sendable> =
    PrimitiveDictionary<ImmutableTrait, Key, Value>

extension PrimitiveDictionary where Trait == ImmutableTrait {
    /// Makes a constant that shows `variable`'s elements and keys, and their changes.
    ///
    /// ```swift
    /// rows = ConstantDictionary(_rows)
    /// ```
    ///
    /// - Parameter variable: The dictionary to show.
    @inlinable
    public convenience init(_ variable: VariableDictionary<Key, Value>) {
        self.init(storage: variable.storage)
    }

    /// The element of `key`, or `nil`. Read through Observation, it tracks that element
    /// alone (or, for a key that is not there, the keys).
    ///
    /// ```swift
    /// let title = store.rows[7]?.title
    /// ```
    ///
    /// - Parameter key: The key of the element.
    @inlinable
    public subscript(key: Key) -> Value? {
        storage.readNotingObservation(of: key)
    }
}
