import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

@Suite("Signals: delivery", .isolatedDispatcher)
struct SignalTests {
    @Test func anObserverGetsWhatIsSentWhileItObservesAndNothingSentBefore() {
        let sink = Sink<Int>()
        sink.send(1)
        let seen = Locked<[Int]>([])
        let dust = sink.signal.observe { value in seen.withLock { $0.append(value) } }
        #expect(seen.value.isEmpty, "nothing is replayed")
        sink.send(2)
        sink.send(3)
        dust.clean()
        sink.send(4)
        #expect(seen.value == [2, 3])
    }

    @Test func copiesOfASignalObserveTheSameSink() {
        let sink = Sink<String>()
        let signal = sink.signal
        let seen = Locked<[String]>([])
        let dusts = [
            signal.observe { value in seen.withLock { $0.append("a \(value)") } },
            sink.signal.observe { value in seen.withLock { $0.append("b \(value)") } },
        ]
        sink.send("x")
        dusts.forEach { $0.clean() }
        #expect(seen.value == ["a x", "b x"])
    }

    @Test func aSentValueIsReleasedOnceItWasDelivered() {
        let sink = Sink<Tracked>()
        let deinits = Locked(0)
        let received = Locked(0)
        let dust = sink.signal.observe { _ in received.withLock { $0 += 1 } }
        defer { dust.clean() }
        weak var sent: Tracked?
        do {
            let value = Tracked(deinits)
            sent = value
            sink.send(value)
        }
        #expect(received.value == 1)
        #expect(sent == nil)
        #expect(deinits.value == 1)
    }

    @Test func aValueSentWithNoObserverIsNotKept() {
        let sink = Sink<Tracked>()
        let deinits = Locked(0)
        weak var sent: Tracked?
        do {
            let value = Tracked(deinits)
            sent = value
            sink.send(value)
        }
        #expect(sent == nil)
        #expect(deinits.value == 1)
    }

    @Test func valuesSentDuringARoundAreReleasedOnceDelivered() {
        let sink = Sink<Tracked>()
        let deinits = Locked(0)
        let deliveries = Locked(0)
        let dust = sink.signal.observe { _ in
            // The first value sends a second one, which waits for this round.
            if deliveries.withLock({
                $0 += 1
                return $0
            }) == 1 {
                sink.send(Tracked(deinits))
            }
        }
        defer { dust.clean() }
        sink.send(Tracked(deinits))
        #expect(deliveries.value == 2)
        #expect(deinits.value == 2, "both the sent value and the one queued behind it are gone")
    }

    @Test func aValueDeliveredOnAQueueIsReleasedOnceTheObserverRan() async throws {
        let sink = Sink<Tracked>()
        let deinits = Locked(0)
        let ran = Locked(false)
        let dust = sink.signal.observe(on: .queue(DispatchQueue(label: "observer"))) { _ in
            ran.withLock { $0 = true }
        }
        defer { dust.clean() }
        sink.send(Tracked(deinits))
        try await waitUntil { ran.value && deinits.value == 1 }
    }

    @Test func observersAreCalledInTheOrderTheyRegisteredEachOnce() {
        let sink = Sink<Int>()
        let order = Locked<[String]>([])
        var dusts = (0..<6).map { index in
            sink.signal.observe { value in order.withLock { $0.append("\(index):\(value)") } }
        }
        dusts[2].clean()
        dusts.append(sink.signal.observe { value in order.withLock { $0.append("6:\(value)") } })
        sink.send(1)
        sink.send(2)
        dusts.forEach { $0.clean() }
        #expect(order.value == ["0:1", "1:1", "3:1", "4:1", "5:1", "6:1", "0:2", "1:2", "3:2", "4:2", "5:2", "6:2"])
    }

    @Test func aValueSentFromAnObserverIsDeliveredAfterTheCurrentOneToEveryObserver() {
        let sink = Sink<Int>()
        let calls = Locked<[String]>([])
        let dusts = [
            sink.signal.observe { value in
                calls.withLock { $0.append("a\(value)") }
                if value == 1 {
                    sink.send(2)
                    calls.withLock { $0.append("a sent 2") }
                }
            },
            sink.signal.observe { value in calls.withLock { $0.append("b\(value)") } },
        ]
        defer { dusts.forEach { $0.clean() } }
        sink.send(1)
        #expect(calls.value == ["a1", "a sent 2", "b1", "a2", "b2"])
    }

    @Test func anObserverAddedDuringARoundGetsOnlyLaterValues() {
        let sink = Sink<Int>()
        let late = Locked<[Int]>([])
        let lateDust = Locked<Dust?>(nil)
        let dust = sink.signal.observe { value in
            guard value == 1 else { return }
            lateDust.withLock { $0 = sink.signal.observe { value in late.withLock { $0.append(value) } } }
            sink.send(2)
        }
        defer {
            dust.clean()
            lateDust.value?.clean()
        }
        sink.send(1)
        #expect(late.value == [2], "not the value being delivered when it registered")
        sink.send(3)
        #expect(late.value == [2, 3])
    }

    @Test func eightThreadsSendingAThousandValuesEachReachEveryObserverOnceInOneOrder() {
        let sink = Sink<Int>()
        let first = Locked<[Int]>([])
        let second = Locked<[Int]>([])
        let inside = Locked(0)
        let overlapped = Locked(false)
        let dusts = [
            sink.signal.observe { value in
                if inside.withLock({
                    $0 += 1
                    return $0
                }) > 1 {
                    overlapped.withLock { $0 = true }
                }
                first.withLock { $0.append(value) }
                inside.withLock { $0 -= 1 }
            },
            sink.signal.observe { value in second.withLock { $0.append(value) } },
        ]
        onThreads(8) { thread in
            for step in 0..<1_000 {
                sink.send(thread * 1_000 + step)
            }
        }
        dusts.forEach { $0.clean() }

        #expect(first.value.count == 8_000)
        #expect(Set(first.value) == Set(0..<8_000), "every value once")
        #expect(first.value == second.value, "one order for all observers")
        #expect(!overlapped.value, "never two calls at a time")
        for thread in 0..<8 {
            let own = first.value.filter { $0 / 1_000 == thread }
            #expect(own == own.sorted(), "each thread's values in the order it sent them")
        }
    }

    @Test func observingAndCleaningFromManyThreadsWhileSendingIsSafe() {
        let sink = Sink<Int>()
        let calls = Locked(0)
        onThreads(6) { thread in
            if thread < 2 {
                for step in 0..<2_000 {
                    sink.send(step)
                }
            } else {
                for _ in 0..<300 {
                    let dust = sink.signal.observe { _ in calls.withLock { $0 += 1 } }
                    dust.clean()
                    dust.clean()
                }
            }
        }
        #expect(sink.core.observerCount == 0)
    }

    @Test func anObserverCleanedDuringARoundIsNotCalledLaterInThatRound() {
        let sink = Sink<Int>()
        let calls = Locked<[String]>([])
        let victim = Locked<Dust?>(nil)
        let cleaner = sink.signal.observe { _ in
            calls.withLock { $0.append("cleaner") }
            victim.value?.clean()
        }
        victim.withLock {
            $0 = sink.signal.observe { _ in calls.withLock { $0.append("victim") } }
        }
        let bystander = sink.signal.observe { _ in calls.withLock { $0.append("bystander") } }
        sink.send(1)
        sink.send(2)
        cleaner.clean()
        bystander.clean()
        #expect(calls.value == ["cleaner", "bystander", "cleaner", "bystander"])
        #expect(sink.core.observerCount == 0)
    }

    @Test func anObserverMayCleanItselfWhileItRuns() {
        let sink = Sink<Int>()
        let calls = Locked(0)
        let own = Locked<Dust?>(nil)
        own.withLock {
            $0 = sink.signal.observe { _ in
                calls.withLock { $0 += 1 }
                own.value?.clean()
            }
        }
        sink.send(1)
        sink.send(2)
        #expect(calls.value == 1)
        #expect(sink.core.observerCount == 0)
    }

    @Test func aBusterCleansSignalObservations() {
        let sink = Sink<Int>()
        let calls = Locked(0)
        var buster: DustBuster? = DustBuster()
        sink.signal.observe { _ in calls.withLock { $0 += 1 } }.cleaned(by: buster!)
        sink.send(1)
        buster = nil
        sink.send(2)
        #expect(calls.value == 1)
        #expect(sink.core.observerCount == 0)
    }

    @Test func anObserverIsReleasedWhenCleanedAndTheSinkWhenDropped() {
        let deinits = Locked(0)
        weak var weakSink: Sink<Int>?
        do {
            let sink = Sink<Int>()
            weakSink = sink
            let captured = Tracked(deinits)
            let dust = sink.signal.observe { _ in _ = captured }
            sink.send(1)
            dust.clean()
            #expect(deinits.value == 0, "still held here")
        }
        #expect(deinits.value == 1)
        #expect(weakSink == nil)
    }

    @Test func aQueueObserverGetsEveryValueOnItsQueueInOrder() async throws {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "observer")
        queue.setSpecific(key: key, value: "observer")
        let sink = Sink<Int>()
        let seen = Locked<[String]>([])
        let dust = sink.signal.observe(on: .queue(queue)) { value in
            seen.withLock { $0.append("\(value) on \(DispatchQueue.getSpecific(key: key) ?? "another queue")") }
        }
        defer { dust.clean() }
        sink.send(1)
        sink.send(2)
        try await waitUntil { seen.value.count == 2 }
        #expect(seen.value == ["1 on observer", "2 on observer"])
    }

    @Test func anObserverOnAConcurrentQueueSeesValuesInOrderOneAtATime() async throws {
        let queue = DispatchQueue(label: "concurrent", attributes: .concurrent)
        let sink = Sink<Int>()
        let seen = Locked<[Int]>([])
        let inside = Locked(0)
        let overlapped = Locked(false)
        let dust = sink.signal.observe(on: .queue(queue)) { value in
            if inside.withLock({
                $0 += 1
                return $0
            }) > 1 {
                overlapped.withLock { $0 = true }
            }
            seen.withLock { $0.append(value) }
            inside.withLock { $0 -= 1 }
        }
        defer { dust.clean() }
        for value in 1...500 {
            sink.send(value)
        }
        try await waitUntil { seen.value.count == 500 }
        #expect(seen.value == Array(1...500))
        #expect(!overlapped.value)
    }

    @Test @MainActor func aMainObserverRunsOnTheMainQueueAtOnceWhenSentThere() async throws {
        let mainKey = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainKey, value: "main")
        let sink = Sink<Int>()
        let seen = Locked<[String]>([])
        let dust = sink.signal.observe(on: .main) { value in
            seen.withLock { $0.append("\(value) \(DispatchQueue.getSpecific(key: mainKey) ?? "elsewhere")") }
        }
        defer { dust.clean() }
        sink.send(1)
        #expect(seen.value == ["1 main"], "sent on the main thread: delivered before send returns")
        DispatchQueue.global().async { sink.send(2) }
        try await waitUntil { seen.value.count == 2 }
        #expect(seen.value == ["1 main", "2 main"])
    }

    @Test func aCleanedQueueObserverGetsNothingMore() async throws {
        let queue = DispatchQueue(label: "observer")
        let sink = Sink<Int>()
        let seen = Locked<[Int]>([])
        // Hold the queue so that the values wait in the observer's mailbox.
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let dust = sink.signal.observe(on: .queue(queue)) { value in seen.withLock { $0.append(value) } }
        sink.send(1)
        sink.send(2)
        dust.clean()
        gate.signal()
        let drained = Locked(false)
        queue.async { drained.withLock { $0 = true } }
        try await waitUntil { drained.value }
        #expect(seen.value.isEmpty)
    }
}
