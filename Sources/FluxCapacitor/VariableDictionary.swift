/// An observable dictionary that can be changed, whose every element is an observable
/// value of its own: a store's rows. See ``PrimitiveDictionary``.
///
/// ```swift
/// let rows = VariableDictionary<Int, Row>()
/// rows[7] = Row(id: 7, title: "Seven")
/// rows[7]?.title = "Sept"
/// rows[7] = nil
/// ```
///
/// `VariableDictionary<Key, Value>` is ``PrimitiveDictionary`` with the ``MutableTrait``.
public typealias VariableDictionary<Key: Hashable & Sendable, Value: Sendable> =
    PrimitiveDictionary<MutableTrait, Key, Value>

extension PrimitiveDictionary where Trait == MutableTrait {
    /// Makes an empty dictionary.
    ///
    /// ```swift
    /// let rows = VariableDictionary<Int, Row>()
    /// ```
    @inlinable
    public convenience init() {
        self.init(storage: KeyedValues(EmptyCollection()))
    }

    /// Makes a dictionary of `elements`, in their order (the last of two equal keys wins,
    /// in the place of the first).
    ///
    /// ```swift
    /// let scores = VariableDictionary(
    ///     uniqueKeysWithValues: [("ada", 3), ("grace", 5)])
    /// ```
    ///
    /// - Parameter elements: The keys and their values.
    @inlinable
    public convenience init(uniqueKeysWithValues elements: some Sequence<(Key, Value)>) {
        self.init(storage: KeyedValues(elements))
    }

    /// The element of `key`, or `nil`. Setting it sets that element (observers of that
    /// element hear of it), inserts it after the others if `key` is not there, or removes
    /// it when set to `nil`; changing it in place (`rows[id]?.title = "New"`) changes that
    /// element alone.
    ///
    /// ```swift
    /// rows[7] = Row(id: 7, title: "Seven")
    /// rows[7]?.title = "Sept"
    /// let title = rows[7]?.title  // "Sept"
    /// rows[7] = nil
    /// ```
    ///
    /// Read through Observation, it tracks that element alone (or, for a key that is not
    /// there, the keys). Changed in place inside a dispatch, it holds that element for the
    /// change as ``PrimitiveValue/value-3l5s6`` holds a variable, with the same rules (see
    /// <doc:ThreadingAndReentrancy>).
    ///
    /// - Parameter key: The key of the element.
    @inlinable
    public subscript(key: Key) -> Value? {
        get {
            storage.readNotingObservation(of: key)
        }
        set {
            if let newValue {
                storage.set(newValue, forKey: key)
            } else {
                storage.removeValue(forKey: key)
            }
        }
        _modify {
            // One `yield` and little else, so that the optimizer inlines this accessor into
            // the caller (as a call, its frame did not fit the coroutine's buffer: a malloc
            // for each change).
            let core = storage.core(for: key)
            let change = core?.beginChangeInPlace()
            var element = core.map { core in change != nil ? core.storage.element : core.read() }
            defer { storage.endChange(of: key, core: core, change, element) }
            yield &element
        }
    }

    /// Removes the element of `key`.
    ///
    /// ```swift
    /// let removed = rows.removeValue(forKey: 7)
    /// ```
    ///
    /// - Parameter key: The key of the element.
    /// - Returns: The element's value, or `nil` if `key` was not there.
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        storage.removeValue(forKey: key)
    }

    /// Removes every element.
    ///
    /// ```swift
    /// rows.removeAll()
    /// ```
    @inlinable
    public func removeAll() {
        storage.removeAll()
    }

    /// Removes the elements for which `shouldBeRemoved` returns true.
    ///
    /// ```swift
    /// rows.removeAll { $0.title.isEmpty }
    /// ```
    ///
    /// - Parameter shouldBeRemoved: Called with each element, with no lock held.
    @inlinable
    public func removeAll(where shouldBeRemoved: (Value) throws -> Bool) rethrows {
        try storage.removeAll(where: shouldBeRemoved)
    }
}

extension PrimitiveDictionary where Trait == MutableTrait, Value: Identifiable, Key == Value.ID {
    /// Makes a dictionary of `elements` by their ids, in their order.
    ///
    /// ```swift
    /// let rows = VariableDictionary([
    ///     Row(id: 1, title: "One"), Row(id: 2, title: "Two"),
    /// ])
    /// ```
    ///
    /// - Parameter elements: The elements (the last of two with one id wins).
    @inlinable
    public convenience init(_ elements: some Sequence<Value>) {
        self.init(uniqueKeysWithValues: elements.lazy.map { ($0.id, $0) })
    }

    /// Sets the element of `element.id`, inserting it after the others if it is not there.
    ///
    /// ```swift
    /// rows.append(Row(id: 3, title: "Three"))
    /// ```
    ///
    /// - Parameter element: The element.
    @inlinable
    public func append(_ element: Value) {
        storage.set(element, forKey: element.id)
    }

    /// Sets each element of `elements` by its id, inserting the new ones after the others,
    /// in their order.
    ///
    /// ```swift
    /// rows.append(contentsOf: page)
    /// ```
    ///
    /// - Parameter elements: The elements.
    @inlinable
    public func append(contentsOf elements: some Sequence<Value>) {
        for element in elements {
            storage.set(element, forKey: element.id)
        }
    }
}

extension PrimitiveDictionary: Decodable where Trait == MutableTrait, Key: Decodable, Value: Decodable {
    /// Decodes what ``encode(to:)`` encodes: keys and values, alternating, in order.
    ///
    /// ```swift
    /// let rows = try JSONDecoder().decode(
    ///     VariableDictionary<Int, Row>.self, from: data)
    /// ```
    ///
    /// - Parameter decoder: The decoder.
    @inlinable
    public convenience init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var elements: [(Key, Value)] = []
        while !container.isAtEnd {
            let key = try container.decode(Key.self)
            guard !container.isAtEnd else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "A key without a value at the end of a VariableDictionary")
            }
            elements.append((key, try container.decode(Value.self)))
        }
        self.init(uniqueKeysWithValues: elements)
    }
}
