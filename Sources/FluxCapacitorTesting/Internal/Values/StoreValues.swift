import FluxCapacitorPersistence

/// The values of a replay's stores at one moment: what a step shows as its values after
/// it, and compares with the moment before it for its changes. Each value is kept with its
/// version, which grows with every set, so that a store none of whose values was set
/// counts as unchanged without comparing them.
struct StoreValues {
    struct Store {
        let name: String
        let values: [(label: String, value: Any, version: UInt64)]

        var dump: ValueDump {
            ValueDump(
                named: name,
                fields: values.map { (StoreVariables.displayName($0.label), ValueDump(of: $0.value)) })
        }
    }

    let stores: [Store]

    var dumps: [ValueDump] {
        stores.map(\.dump)
    }

    /// The diff of the stores that changed from `before` to `after` (`−` before, `+` after),
    /// one after the other; empty when none did.
    static func changes(from before: StoreValues, to after: StoreValues) -> String {
        zip(before.stores, after.stores).compactMap { old, new -> String? in
            guard zip(old.values, new.values).contains(where: { $0.version != $1.version }) else { return nil }
            return ValueDiff(old.dump, new.dump)?.text
        }.joined(separator: "\n")
    }

    /// Reads the values of `stores`, whose `Variable`s are found once.
    struct Reading {
        let stores: [(name: String, variables: [(label: String, variable: any StoreVariable)])]

        init(stores: [(typeName: String, store: AnyObject)]) {
            self.stores = stores.map { (String(describing: type(of: $0.store)), StoreVariables.of($0.store)) }
        }

        func read() -> StoreValues {
            StoreValues(
                stores: stores.map { name, variables in
                    Store(
                        name: name,
                        values: variables.compactMap { label, variable in
                            variable.currentValue.map { (label, $0.value, $0.version) }
                        })
                })
        }
    }
}
