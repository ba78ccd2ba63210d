// What FluxCapacitorPersistence needs of a value that no other code does: a way to read it
// later without keeping a copy, a read for a recorder's checkpoints, and its last value
// when it goes.

extension PrimitiveValue {
    /// Reads the value and its version as they are now, for FluxCapacitorPersistence: a
    /// value whose setter has returned even while another thread's round has yet to
    /// deliver it, without taking part in Observation. It holds the value's core weakly,
    /// and gives `nil` once the core is gone.
    ///
    /// A write that waits keeps a way to read the value, not a copy of it: a copy would
    /// share the value's storage, and the next in-place change would have to copy it all.
    ///
    /// The reader also gives the core it read, held: the caller decides where it is let go
    /// of. The variable may have gone meanwhile on another thread, and then that release is
    /// the core's last, whose deinit hands the last value over (`LastValueHandingCore`) and
    /// writes it: a write that read the value holding its slot's write lock must not let
    /// go of the core there.
    ///
    /// - Returns: The reader.
    package func snapshotReader() -> @Sendable () -> (value: Element, version: UInt64, core: any AnyObject & Sendable)?
    {
        { [weak core] in
            guard let core else { return nil }
            let (value, version) = core.snapshot()
            return (value, version, core)
        }
    }
}

extension PrimitiveValue {
    /// The value and its version as they are now, for a recorder (FluxCapacitorPersistence)
    /// that reads a store's values when it starts, when the store is made and at its
    /// checkpoints: without taking part in Observation, and without the weak reference of
    /// `snapshotReader()`, which would give the core a side table, and every later retain
    /// and release of it (each set, in a dispatch) the slow path.
    package func snapshot() -> (value: Element, version: UInt64) {
        core.snapshot()
    }
}

extension PrimitiveValue where Trait == MutableTrait {
    /// Makes a variable holding `value` that hands its last value, and that value's
    /// version, to `lastValue` when it goes (its core's deinit: no other reference is left,
    /// so the value is handed over without a copy), for FluxCapacitorPersistence, which
    /// writes it then.
    ///
    /// `lastValue` runs where the variable goes, with no lock of the variable held; it must
    /// not hold on to the variable (it cannot: it is going).
    ///
    /// - Parameters:
    ///   - value: The first value.
    ///   - lastValue: Called once with the last value and its version, when the variable
    ///     goes.
    package convenience init(
        _ value: Element, handingItsLastValueTo lastValue: @escaping @Sendable (Element, UInt64) -> Void
    ) {
        self.init(core: LastValueHandingCore(value, lastValue: lastValue))
    }
}

/// A value core that hands its value to `lastValue` when it goes
/// (`Variable(_:handingItsLastValueTo:)`). A subclass, so that no other value pays for the
/// closure: `ValueCore`'s members are all `final`, and so called directly.
final class LastValueHandingCore<Element: Sendable>: ValueCore<Element>, @unchecked Sendable {
    // Sendable: `lastValue` is immutable and Sendable; `ValueCore` says what guards the rest.
    private let lastValue: @Sendable (Element, UInt64) -> Void

    init(_ value: Element, lastValue: @escaping @Sendable (Element, UInt64) -> Void) {
        self.lastValue = lastValue
        super.init(value)
    }

    deinit {
        // Nothing else holds the core: its value is read without the lock, and runs before
        // `ValueCore` lets go of it.
        lastValue(storage.element, machine.version)
    }
}

extension PrimitiveDictionary where Trait == MutableTrait {
    /// The elements in order and a version that grows with every insertion or removal,
    /// for a recorder (FluxCapacitorPersistence) that writes down a store's values; not a
    /// read for Observation.
    package func snapshot() -> (elements: [(Key, Value)], version: UInt64) {
        (storage.snapshot(), storage.keys.snapshot().version)
    }

    /// Replaces every element with `elements`, in their order, for a replay
    /// (FluxCapacitorPersistence) that restores a recorded store: the keys that stay keep
    /// their elements' observers, the others go or come.
    package func replaceAll(with elements: [(Key, Value)]) {
        let kept = Set(elements.map(\.0))
        for key in storage.keys.read() where !kept.contains(key) {
            storage.removeValue(forKey: key)
        }
        for (key, value) in elements {
            storage.set(value, forKey: key)
        }
    }
}
