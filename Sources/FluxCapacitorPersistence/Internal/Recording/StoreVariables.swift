package import FluxCapacitor
import Foundation

/// A `Variable` a store holds, seen without its element type: what a recording writes down
/// of a store (its values when the recording starts, when the store is made, at each
/// checkpoint) and what a replay restores.
package protocol StoreVariable: AnyObject, Sendable {
    /// The value now and its version (which grows with every set), read without taking part
    /// in Observation; `nil` only if the value is gone.
    var currentValue: (value: any Sendable, version: UInt64)? { get }

    /// The value's type, for messages.
    var elementTypeName: String { get }

    /// Decodes a value of the element type from `decoder`; throws `NotCodable` when the
    /// element type is not `Decodable`.
    func decodeValue(from decoder: any Decoder) throws -> any Sendable

    /// Sets the value to `value`, which `decodeValue(from:)` made (or `currentValue` read).
    func restore(_ value: any Sendable)
}

/// Thrown for a value whose type is not `Decodable`.
package struct NotCodable: Error {}

extension PrimitiveValue: StoreVariable where Trait == MutableTrait {
    package var currentValue: (value: any Sendable, version: UInt64)? {
        let (value, version) = snapshot()
        return (value, version)
    }

    package var elementTypeName: String {
        String(describing: Element.self)
    }

    package func decodeValue(from decoder: any Decoder) throws -> any Sendable {
        guard let type = Element.self as? any Decodable.Type else {
            throw NotCodable()
        }
        return try type.init(from: decoder) as! Element
    }

    package func restore(_ value: any Sendable) {
        // `decodeValue` or `currentValue` made it, as an `Element`.
        self.value = value as! Element
    }
}

/// The `Variable`s (and `VariableDictionary`s) of a store, by property name: its stored
/// properties and its superclasses', in declaration order, found with `Mirror`. `Constant`s
/// are left out (each
/// shares its value with a `Variable`, or is computed from others), and so are `Sink`s
/// (events, not state) and everything else a store keeps outside a `Variable`, which a
/// recording cannot see.
package enum StoreVariables {
    package static func of(_ store: AnyObject) -> [(label: String, variable: any StoreVariable)] {
        var levels: [Mirror] = []
        var level: Mirror? = Mirror(reflecting: store)
        while let current = level {
            levels.append(current)
            level = current.superclassMirror
        }
        var found: [(label: String, variable: any StoreVariable)] = []
        for mirror in levels.reversed() {
            for child in mirror.children {
                if let label = child.label, let variable = child.value as? any StoreVariable {
                    found.append((label, variable))
                }
            }
        }
        return found
    }

    /// The name a recording gives a store's property: without the underscore of a private
    /// `Variable` behind a public `Constant` (`_favorites` is `favorites`).
    package static func displayName(_ label: String) -> String {
        label.hasPrefix("_") && label.count > 1 ? String(label.dropFirst()) : label
    }
}

/// A dictionary's elements, in order, as a recording writes them down (keys and values
/// alternating, as ``PrimitiveDictionary`` encodes itself).
struct KeyedElements<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    var elements: [(Key, Value)]
}

extension KeyedElements: Encodable where Key: Encodable, Value: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for (key, value) in elements {
            try container.encode(key)
            try container.encode(value)
        }
    }
}

extension KeyedElements: Decodable where Key: Decodable, Value: Decodable {
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var elements: [(Key, Value)] = []
        while !container.isAtEnd {
            let key = try container.decode(Key.self)
            elements.append((key, try container.decode(Value.self)))
        }
        self.elements = elements
    }
}

extension PrimitiveDictionary: StoreVariable where Trait == MutableTrait {
    package var currentValue: (value: any Sendable, version: UInt64)? {
        let (elements, version) = snapshot()
        return (KeyedElements(elements: elements), version)
    }

    package var elementTypeName: String {
        "VariableDictionary<\(Key.self), \(Value.self)>"
    }

    package func decodeValue(from decoder: any Decoder) throws -> any Sendable {
        guard let keyType = Key.self as? any Decodable.Type, let valueType = Value.self as? any Decodable.Type
        else {
            throw NotCodable()
        }
        func next<Element: Decodable>(_ type: Element.Type, from container: inout any UnkeyedDecodingContainer) throws
            -> Element
        {
            try container.decode(type)
        }
        var container = try decoder.unkeyedContainer()
        var elements: [(Key, Value)] = []
        while !container.isAtEnd {
            let key = try next(keyType, from: &container) as! Key
            elements.append((key, try next(valueType, from: &container) as! Value))
        }
        return KeyedElements(elements: elements)
    }

    package func restore(_ value: any Sendable) {
        // `decodeValue` or `currentValue` made it.
        replaceAll(with: (value as! KeyedElements<Key, Value>).elements)
    }
}
