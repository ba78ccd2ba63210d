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

/// The `Variable`s of a store, by property name: its stored properties and its
/// superclasses', in declaration order, found with `Mirror`. `Constant`s are left out (each
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
