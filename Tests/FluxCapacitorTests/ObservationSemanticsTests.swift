import Dispatch
import FluxCapacitor
import FluxCapacitorTesting
import Foundation
import Observation
import TestSupport
import Testing

/// An `@Observable` class's property: the yardstick for what a `Variable` promises to
/// Observation.
@Observable
private final class ObservableBox {
    var value = 0
}

/// Exactly what ThreadingAndReentrancy and SwiftUIAndObservation state, each case made
/// deterministic.
@Suite("What Observation and two setters guarantee", .isolatedDispatcher)
struct ObservationSemanticsTests {
    /// `withObservationTracking` reads first and installs its tracker after: a change in
    /// between (here made inside the tracked closure, after the read; in an app, by another
    /// thread) is not heard, by a `Variable` as by an `@Observable` class; the next one is.
    @Test func aChangeBetweenTheTrackedReadAndTheInstallIsNotHeardAsForAnObservableClass() {
        let variable = Variable(0)
        let box = ObservableBox()
        let variableChanges = Locked(0)
        let boxChanges = Locked(0)

        withObservationTracking {
            _ = variable.value
            variable.value = 1
        } onChange: {
            variableChanges.withLock { $0 += 1 }
        }
        withObservationTracking {
            _ = box.value
            box.value = 1
        } onChange: {
            boxChanges.withLock { $0 += 1 }
        }
        #expect(variableChanges.value == 0)
        #expect(boxChanges.value == 0)

        variable.value = 2
        box.value = 2
        #expect(variableChanges.value == 1, "a change after the install is heard")
        #expect(boxChanges.value == 1)
    }

    /// Where every value matters, `observe` (and `values`) read and register in one step.
    @Test func observeHearsAChangeMadeRightAfterTheReadThatTrackingMisses() {
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        var dust: Dust?
        withObservationTracking {
            _ = variable.value
            dust = variable.observe(on: .current) { value in seen.withLock { $0.append(value) } }
            variable.value = 1
        } onChange: {
        }
        #expect(seen.value == [0, 1])
        dust?.clean()
    }

    /// Two threads set one variable: the second setter finds the first delivering, waits
    /// its turn for a bounded number of looks, and, as the first thread's observer is still
    /// running after them (it waits for this test), hands its value over and returns; the
    /// first thread delivers it to the `.current` observers, in order, after the value it
    /// was delivering.
    @Test func aSecondSetterMayReturnBeforeItsValueReachedTheCurrentObservers() {
        let variable = Variable(0)
        let seen = Locked<[String]>([])
        let names = Locked<[ObjectIdentifier: String]>([:])
        let firstIsDelivering = DispatchSemaphore(value: 0)
        let mayFinish = DispatchSemaphore(value: 0)
        let dust = variable.observe(on: .current, ignoreFirst: true) { value in
            let thread = names.value[ObjectIdentifier(Thread.current)] ?? "another thread"
            seen.withLock { $0.append("\(value) on \(thread)") }
            if value == 1 {
                firstIsDelivering.signal()
                mayFinish.wait()
            }
        }
        let firstDone = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        let first = Thread {
            names.withLock { $0[ObjectIdentifier(Thread.current)] = "first" }
            variable.value = 1
            firstDone.signal()
        }
        first.start()
        firstIsDelivering.wait()

        let seenWhenSecondReturned = Locked<[String]>([])
        let second = Thread {
            names.withLock { $0[ObjectIdentifier(Thread.current)] = "second" }
            variable.value = 2
            seenWhenSecondReturned.withLock { $0 = seen.value }
            secondDone.signal()
        }
        second.start()
        secondDone.wait()
        #expect(seenWhenSecondReturned.value == ["1 on first"], "2 not delivered yet when its setter returned")
        #expect(variable.value == 2, "the value is set, though")

        mayFinish.signal()
        firstDone.wait()
        #expect(seen.value == ["1 on first", "2 on first"], "the first setter delivered it, in order")
        dust.clean()
    }
}
