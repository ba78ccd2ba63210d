import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

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
    /// its turn (parked, once its looks are spent) until the first thread's round ends, and
    /// then delivers its own value itself, before it returns: as behind a plain lock, so
    /// setters behind a slow observer go at its pace and no value waits for another thread.
    @Test func aSecondSetterWaitsForTheFirstsRoundAndDeliversItsOwnValueBeforeItReturns() async throws {
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
        let secondReturned = Locked(false)
        let first = Thread {
            names.withLock { $0[ObjectIdentifier(Thread.current)] = "first" }
            variable.value = 1
            firstDone.signal()
        }
        first.start()
        firstIsDelivering.wait()

        let second = Thread {
            names.withLock { $0[ObjectIdentifier(Thread.current)] = "second" }
            variable.value = 2
            secondReturned.withLock { $0 = true }
        }
        second.start()
        // The second change waits for the round (the machine counts it), and has not
        // returned.
        try await waitUntil { variable.core.waitingChanges == 1 }
        #expect(!secondReturned.value)
        #expect(variable.value == 1, "not set yet: it waits its turn")

        mayFinish.signal()
        firstDone.wait()
        try await waitUntil { secondReturned.value }
        #expect(seen.value == ["1 on first", "2 on second"], "each thread delivered its own value, in order")
        #expect(variable.value == 2)
        dust.clean()
    }
}
