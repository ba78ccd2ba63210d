import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

@Suite("Values as an AsyncSequence", .isolatedDispatcher)
struct AsyncValuesTests {
    @Test func theCurrentValueComesFirstThenEachChangeInOrder() async {
        let variable = Variable(0)
        var iterator = variable.values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        DispatchQueue.global().async {
            for value in 1...5 { variable.value = value }
        }
        var seen: [Int] = []
        while seen.count < 5, let value = await iterator.next() {
            seen.append(value)
        }
        #expect(seen == [1, 2, 3, 4, 5])
    }

    @Test func observationStartsWhenIterationStartsNotWhenTheSequenceIsMade() async {
        let variable = Variable(0)
        let sequence = Constant(variable).values
        #expect(variable.core.observerCount == 0)
        variable.value = 1
        var iterator = sequence.makeAsyncIterator()
        #expect(variable.core.observerCount == 1)
        #expect(await iterator.next() == 1)
    }

    @Test func endingTheLoopReleasesTheObservation() async {
        let variable = Variable(0)
        for await value in variable.values {
            if value == 0 {
                variable.value = 1
            } else {
                break
            }
        }
        #expect(variable.core.observerCount == 0)
        variable.value = 2
        #expect(variable.core.observerCount == 0)
    }

    @Test func droppingAnIteratorReleasesTheObservation() async {
        let variable = Variable(0)
        do {
            var iterator = variable.values.makeAsyncIterator()
            #expect(await iterator.next() == 0)
            #expect(variable.core.observerCount == 1)
        }
        #expect(variable.core.observerCount == 0)
    }

    @Test func cancellingTheTaskEndsTheIterationAndReleasesTheObservation() async {
        let variable = Variable(0)
        let received = Locked<[Int]>([])
        let started = ValueRecorder(variable)
        let task = Task {
            for await value in variable.values {
                received.withLock { $0.append(value) }
            }
            return "ended"
        }
        // Wait until the task observes (two observers: the recorder and the task).
        while variable.core.observerCount < 2 {
            await Task.yield()
        }
        task.cancel()
        #expect(await task.value == "ended")
        #expect(variable.core.observerCount == 1)
        variable.value = 1
        #expect(received.value == [0])
        started.stop()
    }

    @Test func anUnboundedSequenceGivesASlowConsumerEveryValueInOrder() async {
        let variable = Variable(0)
        var iterator = variable.values.makeAsyncIterator()
        for value in 1...100 {
            variable.value = value
        }
        var seen: [Int] = []
        for _ in 0...100 {
            seen.append(await iterator.next()!)
        }
        #expect(seen == Array(0...100))
    }

    @Test func bufferingNewestGivesASlowConsumerTheLatestValue() async {
        let variable = Variable(0)
        var iterator = variable.values(bufferingPolicy: .bufferingNewest(1)).makeAsyncIterator()
        for value in 1...100 {
            variable.value = value
        }
        #expect(await iterator.next() == 100)
        variable.value = 101
        #expect(await iterator.next() == 101)
    }

    @Test func bufferingOldestGivesASlowConsumerTheFirstValuesItMissed() async {
        let variable = Variable(0)
        var iterator = variable.values(bufferingPolicy: .bufferingOldest(3)).makeAsyncIterator()
        for value in 1...100 {
            variable.value = value
        }
        #expect(await iterator.next() == 0)
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        variable.value = 101
        #expect(await iterator.next() == 101)
    }

    @Test func valuesFromConcurrentProducersArriveOnceEachAndInEachProducersOrder() async {
        let variable = Variable(0)
        var iterator = variable.values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        let producers = Task.detached {
            onThreads(4) { thread in
                for step in 1...250 {
                    variable.value = thread * 1_000 + step
                }
            }
        }
        var seen: [Int] = []
        while seen.count < 1_000, let value = await iterator.next() {
            seen.append(value)
        }
        await producers.value
        #expect(Set(seen).count == 1_000)
        for thread in 0..<4 {
            let own = seen.filter { $0 / 1_000 == thread }
            #expect(own == own.sorted())
        }
    }

    @Test func valuesSetWhileTheConsumerWaitsArriveInOrderWithNoneLostOnAnActor() async {
        let variable = Variable(0)
        #expect(await Consumer().take(1_001, from: variable, withoutIsolation: false) == Array(0...1_000))
    }

    // The path taken before macOS 15 / iOS 18 (`AsyncStream.Iterator.next()`, off the
    // actor), which Linux would otherwise never run.
    @Test func valuesSetWhileTheConsumerWaitsArriveInOrderWithNoneLostBeforeIsolatedNext() async {
        let variable = Variable(0)
        #expect(await Consumer().take(1_001, from: variable, withoutIsolation: true) == Array(0...1_000))
    }
}

/// Takes a variable's values on its own actor while another thread sets them, so that some
/// `next` calls wait for a value and others find it buffered.
private actor Consumer {
    func take(_ count: Int, from variable: Variable<Int>, withoutIsolation: Bool) async -> [Int] {
        var iterator = variable.values.makeAsyncIterator()
        var seen: [Int] = []
        if let first = await iterator.next() {
            seen.append(first)
        }
        DispatchQueue.global().async {
            for value in 1..<count { variable.value = value }
        }
        while seen.count < count {
            let value = withoutIsolation ? await iterator.nextWithoutIsolation() : await iterator.next()
            guard let value else { break }
            seen.append(value)
        }
        return seen
    }
}
