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
