/// The core of a ``Sink`` and of its ``Signal``s: a value core that holds `nil` for good and
/// delivers each sent value as a round, without storing it.
///
/// So an event gets exactly what a change of a ``Variable`` gets (rounds, hand-over to the
/// drainer, observers joining and leaving between rounds, mailboxes for `.main` and
/// `.queue`), from the same code. Signal observers never ask for a first value, so the
/// core's first-value backlogs stay empty.
@usableFromInline
typealias SignalCore<Element: Sendable> = ValueCore<Element?>

extension ValueCore {
    /// Delivers `value` to every observer as a round, as a change of the value would be,
    /// but leaves the stored value as it is: the round of `didChangeLocked()`, for a value
    /// nobody keeps. A value sent while a round runs is queued for its drainer, and let go
    /// of after it was delivered.
    ///
    /// The stored value is not touched, so there is no in-place change to trap on: this
    /// takes the mutex directly.
    @inlinable
    func send(_ value: Element) {
        mutex.lock()
        version &+= 1
        if roundState != 0 && handOffLocked(value) {
            return
        }
        becomeDrainer()
        let slots = observers.base
        let count = observers.count
        let besideFirstDeliveries = !backlogRecords.isEmpty
        mutex.unlock()
        deliverRound(value, slots: slots, count: count, besideFirstDeliveries: besideFirstDeliveries)
        finishDraining()
    }
}
