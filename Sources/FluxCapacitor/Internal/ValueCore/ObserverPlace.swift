/// Where an observer is in its value core. Only the core's state machine
/// (`ValueCoreStateMachine`) changes it, with the core's lock held.
///
/// Five bytes (a 4-byte slot and the case), so that an observer's record is 56 bytes, within
/// the budget of issue 23 (an `Int` slot made it 9 bytes, padded to 16).
@usableFromInline
enum ObserverPlace: Sendable, Equatable {
    /// Handed over to a running round, which puts it in the slab before the first value of
    /// a later version than it observed at.
    case joining
    /// In the slab, at this slot.
    case inSlab(ObserverSlab.Index)
    /// In the slab at this slot, cleaned by a thread other than the round's drainer, which
    /// takes it out between two values.
    case leaving(ObserverSlab.Index)
    /// Cleaned by the drainer's own thread while joining (perhaps from its first value's
    /// call): the round lets go of it when its turn to join comes.
    case leftWhileJoining
    /// Out of the core for good.
    case left
}
