/// The dust of a scoped observation, handed to its own observer once registered, so that
/// the observer can end the observation when the object is gone.
final class ScopedObservation: @unchecked Sendable {
    // Sendable: `dust` is guarded by the striped mutex for this object.
    private var dust: Dust?
    private var endedEarly = false

    func begin(_ dust: Dust) {
        let endNow = StripedLocks.mutex(for: self).withLock {
            self.dust = dust
            return endedEarly
        }
        if endNow {
            dust.clean()
        }
    }

    func end() {
        let dust = StripedLocks.mutex(for: self).withLock {
            endedEarly = true
            return self.dust
        }
        dust?.clean()
    }
}
