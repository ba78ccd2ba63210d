import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

/// In-place changes of `Variable.value` hold no lock while the caller's code runs, so
/// they may await and may touch other values (and this one) without deadlock;
/// `update(_:)` is the atomic read-modify-write.
@Suite("In-place changes", .isolatedDispatcher)
struct InPlaceChangeTests {
    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func anInPlaceChangeMayAwaitWhileOthersReadTheValue() async {
        // In a child process: before in-place changes stopped holding the variable's lock,
        // this trapped (a task on the same thread) or hung (one on another thread).
        await #expect(processExitsWith: .success) {
            exitIfStuck()
            let variable = Variable(Pausing())
            let pause = Pause()
            let change = Task { await variable.value.count(after: pause) }
            await pause.untilPaused()
            // The change is suspended in the middle of its access; the value can still be
            // read and observed.
            let seen = Locked<[Int]>([])
            let dust = variable.observe(ignoreFirst: false) { value in seen.withLock { $0.append(value.count) } }
            precondition(variable.value.count == 0)
            pause.resume()
            await change.value
            dust.clean()
            precondition(variable.value.count == 1)
            precondition(seen.value == [0, 1], "seen \(seen.value)")
        }
    }
    #endif

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func twoThreadsSwappingTwoValuesInOppositeOrdersBothFinish() async {
        // In a child process: before, each thread held its first value's lock while it
        // waited for the other's, and the two waited for good.
        await #expect(processExitsWith: .success) {
            exitIfStuck()
            let first = Variable(1)
            let second = Variable(2)
            let bothInside = DispatchGroup()
            bothInside.enter()
            bothInside.enter()
            onThreads(2) { thread in
                let (outer, inner) = thread == 0 ? (first, second) : (second, first)
                // Both threads are inside their first in-place access when they start the
                // second one.
                holding(&outer.value, until: bothInside) { value in
                    swap(&value, &inner.value)
                }
                for _ in 0..<2_000 {
                    swap(&outer.value, &inner.value)
                }
            }
            precondition([1, 2].contains(first.value) && [1, 2].contains(second.value))
        }
    }
    #endif

    @Test func anInPlaceChangeMayReadTheValueItChanges() {
        struct Counter: Sendable {
            var count = 1
            mutating func add(countOf variable: Variable<Counter>) {
                count += variable.value.count
            }
        }
        let variable = Variable(Counter())
        let recorder = ValueRecorder(variable, ignoreFirst: true)
        variable.value.add(countOf: variable)
        #expect(variable.value.count == 2)
        #expect(recorder.values.map(\.count) == [2])
    }

    @Test func concurrentUpdatesLoseNoUpdate() {
        let variable = Variable(0)
        let threads = 8
        let increments = 2_000
        onThreads(threads) { _ in
            for _ in 0..<increments {
                variable.update { $0 += 1 }
            }
        }
        #expect(variable.value == threads * increments)
    }

    @Test func anUpdateNotifiesOnceAndReturnsWhatItsChangeReturns() {
        let variable = Variable([1])
        let recorder = ValueRecorder(variable, ignoreFirst: true)
        let removed = variable.update { $0.removeFirst() }
        #expect(removed == 1)
        #expect(recorder.values == [[]])
    }

    @Test func anUpdateTellsATrackerOnceBeforeTheNewValueIsStored() {
        let variable = Variable(1)
        let seenInOnChange = Locked<[Int]>([])
        withObservationTracking {
            _ = variable.value
        } onChange: {
            seenInOnChange.withLock { $0.append(variable.value) }
        }
        variable.update { $0 += 1 }
        #expect(seenInOnChange.value == [1])
        #expect(variable.value == 2)
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func anUpdateThatReadsTheSameValueStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let variable = Variable(0)
            variable.update { $0 += variable.value }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("was read, set or observed while its value was being changed in place"))
        #expect(message.contains("update"))
    }
    #endif
}

/// A value whose mutating method suspends in the middle.
private struct Pausing: Sendable {
    var count = 0

    mutating func count(after pause: Pause) async {
        await pause.pause()
        count += 1
    }
}

/// Lets a test wait until an async in-place change is suspended, then lets it go on.
private final class Pause: Sendable {
    private let paused = AsyncStream<Void>.makeStream()
    private let resumed = AsyncStream<Void>.makeStream()

    func pause() async {
        paused.continuation.yield()
        for await _ in resumed.stream { break }
    }

    func untilPaused() async {
        for await _ in paused.stream { break }
    }

    func resume() {
        resumed.continuation.yield()
    }
}

/// Calls `body` with `value` once every thread holding `group` has entered it.
private func holding(_ value: inout Int, until group: DispatchGroup, _ body: (inout Int) -> Void) {
    group.leave()
    group.wait()
    body(&value)
}

/// In an exit test's child process: ends the process with a failure if it is still running
/// after a minute, so that a deadlock fails the test instead of hanging the run.
private func exitIfStuck() {
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
        FileHandle.standardError.write(Data("stuck for a minute: deadlocked\n".utf8))
        exit(3)
    }
}
