extension PrimitiveValue {
    /// Reads the value and its version as they are now, for FluxCapacitorPersistence: a
    /// value whose setter has returned even while another thread's round has yet to
    /// deliver it, without taking part in Observation. It holds the value's core weakly,
    /// and gives `nil` once the core is gone.
    ///
    /// - Returns: The reader.
    package func snapshotReader() -> @Sendable () -> (value: Element, version: UInt64)? {
        { [weak core] in core?.snapshot() }
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
