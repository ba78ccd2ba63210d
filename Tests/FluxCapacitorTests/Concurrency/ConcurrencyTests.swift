import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

@Suite("Thread safety", .isolatedDispatcher)
struct ConcurrencyTests {
    @Test func concurrentReadModifyWriteThroughReduceLosesNoUpdate() {
        let store = CounterStore.instantiate()
        let threads = 8
        let increments = 2_000
        onThreads(threads) { _ in
            for _ in 0..<increments {
                CounterAction().invoke(.increment)
            }
        }
        #expect(store.count.value == threads * increments)
    }

    @Test func reductionsOfOneStoreNeverOverlap() {
        let store = CounterStore.instantiate()
        let inside = Locked(0)
        let mostInside = Locked(0)
        store.afterReduce.withLock {
            $0 = { _ in
                let now = inside.withLock {
                    $0 += 1
                    return $0
                }
                mostInside.withLock { $0 = max($0, now) }
                // Stay inside long enough for another thread to try to come in.
                for _ in 0..<50 { _ = inside.value }
                inside.withLock { $0 -= 1 }
            }
        }
        onThreads(8) { _ in
            for _ in 0..<300 {
                CounterAction().invoke(.increment)
            }
        }
        #expect(mostInside.value == 1)
        #expect(store.count.value == 2_400)
    }

    @Test func everyObserverSeesEveryValueOnceAndAllObserversSeeTheSameOrder() {
        let variable = Variable(0)
        let first = Locked<[Int]>([])
        let second = Locked<[Int]>([])
        let dusts = [
            variable.observe(ignoreFirst: true) { value in first.withLock { $0.append(value) } },
            variable.observe(ignoreFirst: true) { value in second.withLock { $0.append(value) } },
        ]
        onThreads(4) { thread in
            for step in 1...500 {
                variable.value = thread * 1_000 + step
            }
        }
        dusts.forEach { $0.clean() }

        #expect(first.value.count == 2_000)
        #expect(Set(first.value).count == 2_000)
        #expect(first.value == second.value)
        #expect(first.value.last == variable.value)
        // Each thread's own values arrive in the order that thread set them.
        for thread in 0..<4 {
            let own = first.value.filter { $0 / 1_000 == thread }
            #expect(own == own.sorted())
        }
    }

    @Test func observingWhileAnotherThreadSetsMissesNoValue() {
        let variable = Variable(0)
        let last = 20_000
        let observations = Locked<[[Int]]>([])
        onThreads(2) { thread in
            if thread == 0 {
                for value in 1...last {
                    variable.value = value
                }
            } else {
                // Register several observers while values are being set.
                for _ in 0..<20 {
                    let seen = Locked<[Int]>([])
                    let dust = variable.observe(ignoreFirst: false) { value in seen.withLock { $0.append(value) } }
                    while seen.value.isEmpty || (seen.value.last! < last && seen.value.count < 50) {
                        sched_yield()
                    }
                    dust.clean()
                    observations.withLock { $0.append(seen.value) }
                }
            }
        }
        #expect(observations.value.count == 20)
        for seen in observations.value {
            // From its first value on, an observer sees a run of consecutive values.
            let expected = Array(seen[0]..<(seen[0] + seen.count))
            #expect(seen == expected)
        }
    }

    @Test func observingAndCleaningFromManyThreadsWhileSettingIsSafe() {
        let variable = Variable(0)
        let calls = Locked(0)
        onThreads(6) { thread in
            if thread < 2 {
                for step in 0..<2_000 {
                    variable.value = step
                }
            } else {
                for _ in 0..<300 {
                    let dust = variable.observe(ignoreFirst: true) { _ in calls.withLock { $0 += 1 } }
                    dust.clean()
                    dust.clean()
                }
            }
        }
        #expect(variable.core.observerCount == 0)
    }

    @Test func dispatchingObservingAndInstantiatingFromManyThreadsIsSafe() {
        let kept = CounterStore.instantiate()
        let buster = DustBuster()
        let heard = Locked(0)
        onThreads(8) { thread in
            for step in 0..<200 {
                let store = CounterStore.instantiate()
                if step.isMultiple(of: 20) {
                    store.count.observe(ignoreFirst: true) { _ in heard.withLock { $0 += 1 } }.cleaned(by: buster)
                }
                CounterAction().invoke(.increment)
                if thread == 0, step.isMultiple(of: 50) {
                    buster.clean()
                }
            }
        }
        buster.clean()
        #expect(CounterStore.instantiate() === kept)
        #expect(kept.count.value == 1_600)
    }

    @Test func invokeReturnsAfterItsObserversRanWhileAnotherThreadIsSlowToTakeItsFirstValue() {
        let store = CounterStore.instantiate()
        let seen = Locked<[Int]>([])
        let dust = store.count.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        let slowSeen = Locked<[Int]>([])
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let slowDone = DispatchSemaphore(value: 0)
        let dispatcher = Dispatcher.current
        Thread {
            Dispatcher.withCurrent(dispatcher) {
                let slow = store.count.observe(ignoreFirst: false) { value in
                    slowSeen.withLock { $0.append(value) }
                    if value == 0 {
                        entered.signal()
                        release.wait()
                    }
                }
                slow.clean()
            }
            slowDone.signal()
        }.start()
        entered.wait()

        CounterAction().invoke(.set(5))
        let seenWhenInvokeReturned = seen.value
        let first = Locked<[Int]>([])
        let another = store.count.observe(ignoreFirst: false) { value in first.withLock { $0.append(value) } }
        let firstWhenObserveReturned = first.value
        release.signal()
        slowDone.wait()

        #expect(seenWhenInvokeReturned == [5])
        #expect(firstWhenObserveReturned == [5])
        #expect(slowSeen.value == [0, 5], "the slow observer still gets every value, in order")
        dust.clean()
        another.clean()
    }

    @Test func observersThatTakeAFirstValueWhileAnotherThreadSetsSeeEveryLaterValueInOrder() {
        let variable = Variable(0)
        let last = 3_000
        let observersPerThread = 100
        // One record per observer, written only by its own deliveries.
        let records = (0..<(3 * observersPerThread)).map { _ in Locked<[Int]>([]) }
        let dusts = Locked<[Dust]>([])
        onThreads(4) { thread in
            if thread == 0 {
                for value in 1...last { variable.value = value }
            } else {
                for index in 0..<observersPerThread {
                    let record = records[(thread - 1) * observersPerThread + index]
                    let dust = variable.observe(ignoreFirst: false) { value in record.withLock { $0.append(value) } }
                    dusts.withLock { $0.append(dust) }
                }
            }
        }
        // Each observer saw the value current when it observed, then every later value once,
        // in order: consecutive numbers up to the last.
        for record in records {
            let values = record.value
            #expect(values.last == last)
            #expect(values == Array((values.first ?? 0)...last))
        }
        dusts.value.forEach { $0.clean() }
        #expect(variable.core.observerCount == 0)
    }

    @Test func aFirstValueOnAQueueComesBeforeTheChangesThatRaceWithIt() {
        let variable = Variable(0)
        let queue = DispatchQueue(label: "first-value")
        let setterDone = DispatchSemaphore(value: 0)
        let setter = Thread {
            for value in 1...2_000 { variable.value = value }
            setterDone.signal()
        }
        let recorded = Locked<[Int]>([])

        setter.start()
        let dust = variable.observe(on: .queue(queue), ignoreFirst: false) { value in
            recorded.withLock { $0.append(value) }
        }
        setterDone.wait()
        queue.sync {}

        let values = recorded.value
        #expect(values == values.sorted())
        #expect(Set(values).count == values.count)
        #expect(values.last == 2_000)
        dust.clean()
    }
}
