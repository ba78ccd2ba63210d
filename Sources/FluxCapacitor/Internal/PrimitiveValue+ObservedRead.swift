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
        core.lockOrTrap()
        core.noteReadLocked()
        let value = core.storage.element
        core.lock.unlock()
        return value
    }
}
