extension PrimitiveValue {
    /// The read behind the public `value` getters (`Variable.value` and `Constant.value`),
    /// and the only code that notes a read for Swift's Observation
    /// (`ObserverCore.noteReadLocked()`): it makes the value's Observation bridge the first
    /// time, and records the read in the current `withObservationTracking` scope.
    ///
    /// It is a member of the public face, not of the core, so the library's machinery,
    /// which holds cores (derived values, bindings, `values`, persistence, the testing
    /// recorders), cannot reach it: its reads are `ValueCore.read()` and
    /// `ValueCore.snapshot()`, which take no part in Observation. Reading through a value's
    /// public `value` inside the library would give the value a bridge that every later
    /// change pays for, and would make a tracking scope that only *sets* a value (a SwiftUI
    /// body that dispatches) depend on whatever the library read meanwhile.
    /// `LibraryReadsTests` checks that the public getters are its only callers.
    @inlinable
    func readNotingObservation() -> Element {
        core.readNotingObservation()
    }
}

extension ValueCore {
    /// The read of `PrimitiveValue.readNotingObservation()`, and of a dictionary's element
    /// (`KeyedValues.readNotingObservation(of:)`).
    @inlinable
    final func readNotingObservation() -> Element {
        lockOrTrap()
        noteReadLocked()
        let value = storage.element
        lock.unlock()
        return value
    }
}

extension KeyedValues {
    /// The read behind a dictionary's public getters (``PrimitiveDictionary``'s subscript,
    /// `count`, `isEmpty`), as `PrimitiveValue.readNotingObservation()` is behind a value's:
    /// `key`'s element, read through Observation, so that a tracker hears of that element's
    /// changes and of its removal, or, for a key that is not there, of the keys' changes.
    @inlinable
    func readNotingObservation(of key: Key) -> Value? {
        keys.lockOrTrap()
        guard let core = table[key] else {
            keys.noteReadLocked()
            keys.lock.unlock()
            return nil
        }
        keys.lock.unlock()
        return core.readNotingObservation()
    }
}
