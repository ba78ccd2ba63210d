import Dispatch
import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@Suite("Observing values", .isolatedDispatcher)
struct ObservationTests {
    @Test func aConstantSharesItsVariablesValueAndObservers() {
        let variable = Variable(0)
        let constant = Constant(variable)
        let fromVariable = Locked<[Int]>([])
        let fromConstant = Locked<[Int]>([])
        let dusts = [
            variable.observe { value in fromVariable.withLock { $0.append(value) } },
            constant.observe { value in fromConstant.withLock { $0.append(value) } },
        ]
        defer { dusts.forEach { $0.clean() } }

        variable.value = 10
        #expect(constant.value == 10)
        // The README's "0 -> 10", for both.
        #expect(fromVariable.value == [0, 10])
        #expect(fromConstant.value == [0, 10])
    }

    @Test func observeStartsWithTheCurrentValueByDefaultAsFluxCapacitor011Did() {
        let variable = Variable(1)
        let seen = Locked<[Int]>([])
        let dust = variable.observe { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        #expect(seen.value == [1])
        variable.value = 2
        #expect(seen.value == [1, 2])
    }

    @Test func observeWithIgnoreFirstTrueReportsChangesOnly() {
        let variable = Variable(1)
        let seen = Locked<[Int]>([])
        let dust = variable.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        #expect(seen.value.isEmpty)
        variable.value = 2
        #expect(seen.value == [2])
    }

    @Test func everyObserveOverloadStartsWithTheCurrentValueByDefault() {
        final class Screen: Sendable {
            let shown = Locked<[Int]>([])
        }
        let variable = Variable(5)
        let screen = Screen()
        let plain = Locked<[Int]>([])
        let onQueue = Locked<[Int]>([])
        let queue = DispatchQueue(label: "observer")
        let dusts = [
            variable.observe { value in plain.withLock { $0.append(value) } },
            variable.observe(on: .queue(queue)) { value in onQueue.withLock { $0.append(value) } },
            variable.observe(on: .current, duringScopeOf: screen) { screen, value in
                screen.shown.withLock { $0.append(value) }
            },
        ]
        defer { dusts.forEach { $0.clean() } }
        queue.sync {}
        #expect(plain.value == [5])
        #expect(onQueue.value == [5])
        #expect(screen.shown.value == [5])
    }

    @Test func aDustCleanedBeforeAChangeLeavesTheObserverWithTheCurrentValueOnly() {
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        let dust = variable.observe { value in seen.withLock { $0.append(value) } }
        dust.clean()
        variable.value = 10
        #expect(seen.value == [0])
    }

    @Test func aBusterReleasedBeforeAChangeLeavesTheObserverWithTheCurrentValueOnly() {
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        do {
            let dustBuster = DustBuster()
            variable.observe { value in seen.withLock { $0.append(value) } }.cleaned(by: dustBuster)
        }
        variable.value = 10
        #expect(seen.value == [0])
    }

    @Test func observeWithIgnoreFirstFalseStartsWithTheCurrentValue() {
        let variable = Variable(1)
        let seen = Locked<[Int]>([])
        let dust = variable.observe(ignoreFirst: false) { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        #expect(seen.value == [1])
        variable.value = 2
        #expect(seen.value == [1, 2])
    }

    @Test func observersAreCalledInTheOrderTheyRegistered() {
        let variable = Variable(0)
        let order = Locked<[Int]>([])
        var dusts = (0..<10).map { index in
            variable.observe(ignoreFirst: true) { _ in order.withLock { $0.append(index) } }
        }
        // Holes left by cleaning must not reorder the rest.
        dusts[3].clean()
        dusts[7].clean()
        dusts.append(variable.observe(ignoreFirst: true) { _ in order.withLock { $0.append(10) } })
        variable.value = 1
        #expect(order.value == [0, 1, 2, 4, 5, 6, 8, 9, 10])
        dusts.forEach { $0.clean() }
    }

    @Test func anObserverThatSetsTheSameVariableLetsEveryObserverSeeEveryValueInOrderOnce() {
        let variable = Variable(0)
        let first = Locked<[Int]>([])
        let second = Locked<[Int]>([])
        let dusts = [
            variable.observe(ignoreFirst: true) { value in
                first.withLock { $0.append(value) }
                if value < 3 {
                    variable.value = value + 1
                    #expect(variable.value == value + 1, "the new value is readable at once")
                }
            },
            variable.observe(ignoreFirst: true) { value in second.withLock { $0.append(value) } },
        ]
        defer { dusts.forEach { $0.clean() } }

        variable.value = 1
        #expect(first.value == [1, 2, 3])
        #expect(second.value == [1, 2, 3])
    }

    @Test func anObserverAddedDuringARoundJoinsAtTheNextValue() {
        let variable = Variable(0)
        let late = Locked<[Int]>([])
        let lateDust = Locked<Dust?>(nil)
        let dust = variable.observe(ignoreFirst: true) { value in
            guard value == 1 else { return }
            let added = variable.observe(ignoreFirst: false) { value in late.withLock { $0.append(value) } }
            lateDust.withLock { $0 = added }
        }
        defer {
            dust.clean()
            lateDust.value?.clean()
        }
        variable.value = 1
        #expect(late.value == [1], "the first value, and not the round in progress again")
        variable.value = 2
        #expect(late.value == [1, 2])
    }

    @Test func changingTheValueInPlaceNotifiesOnce() {
        let variable = Variable<[Int]>([])
        let seen = Locked<[[Int]]>([])
        let dust = variable.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        variable.value.append(1)
        variable.value.append(contentsOf: [2, 3])
        #expect(seen.value == [[1], [1, 2, 3]])
    }

    @Test func theFirstValueAndLaterOnesAreDeliveredOnTheRequestedQueue() async {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "observer")
        queue.setSpecific(key: key, value: "observer")
        let variable = Variable(1)
        let seen = Locked<[String]>([])

        await confirmation(expectedCount: 2) { delivered in
            let finished = DispatchSemaphore(value: 0)
            let dust = variable.observe(on: .queue(queue), ignoreFirst: false) { value in
                seen.withLock { $0.append("\(value) on \(DispatchQueue.getSpecific(key: key) ?? "another queue")") }
                delivered()
                if value == 2 { finished.signal() }
            }
            variable.value = 2
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    finished.wait()
                    continuation.resume()
                }
            }
            dust.clean()
        }
        #expect(seen.value == ["1 on observer", "2 on observer"])
    }

    @Test func observersOnAConcurrentQueueStillSeeValuesInOrderOneAtATime() async {
        let queue = DispatchQueue(label: "concurrent", attributes: .concurrent)
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        let inside = Locked(0)
        let overlapped = Locked(false)
        let done = DispatchSemaphore(value: 0)
        let dust = variable.observe(on: .queue(queue), ignoreFirst: true) { value in
            if inside.withLock({
                $0 += 1; return $0
            }) > 1 {
                overlapped.withLock { $0 = true }
            }
            seen.withLock { $0.append(value) }
            inside.withLock { $0 -= 1 }
            if value == 500 { done.signal() }
        }
        for value in 1...500 {
            variable.value = value
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                done.wait()
                continuation.resume()
            }
        }
        dust.clean()
        #expect(seen.value == Array(1...500))
        #expect(!overlapped.value)
    }

    @Test @MainActor func aMainQueueObserverRunsOnTheMainQueue() async {
        let mainKey = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainKey, value: "main")
        let variable = Variable(0)
        let onMain = Locked<[Bool]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let dust = Locked<Dust?>(nil)
            dust.withLock {
                $0 = variable.observe(on: .main, ignoreFirst: false) { value in
                    onMain.withLock { $0.append(DispatchQueue.getSpecific(key: mainKey) == "main") }
                    if value == 1 {
                        dust.value?.clean()
                        continuation.resume()
                    }
                }
            }
            // Set from another thread: the observer still runs on the main queue.
            DispatchQueue.global().async { variable.value = 1 }
        }
        #expect(onMain.value == [true, true])
    }
}
