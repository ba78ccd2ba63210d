import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

/// A change is delivered in the dispatcher scope it was made in, also when the thread
/// that delivers it is another one (a change handed over to the round already running),
/// and also when it reaches an observer late (behind that observer's first value).
@Suite("A change carries its dispatcher scope", .isolatedDispatcher)
struct ScopeCarryingTests {
    @Test func aChangeAnObserverMakesInsideAScopeReachesEveryQueueInThatScope() {
        let scope = Dispatcher()
        let queue = DispatchQueue(label: "ScopeCarryingTests.queue")
        let variable = Variable(0)
        let onQueue = Locked<[Bool]>([])
        let onCurrent = Locked<[Bool]>([])
        let dusts = [
            variable.observe(ignoreFirst: true) { value in
                if value == 1 {
                    Dispatcher.withCurrent(scope) { variable.value = 2 }
                }
            },
            variable.observe(on: .queue(queue), ignoreFirst: true) { _ in
                onQueue.withLock { $0.append(Dispatcher.current === scope) }
            },
            variable.observe(ignoreFirst: true) { _ in
                onCurrent.withLock { $0.append(Dispatcher.current === scope) }
            },
        ]
        defer { dusts.forEach { $0.clean() } }

        variable.value = 1
        queue.sync {}

        #expect(onQueue.value == [false, true])
        #expect(onCurrent.value == [false, true])
    }

    @Test @MainActor func aChangeAnObserverMakesInsideAScopeReachesMainQueueObserversInThatScope() async {
        let scope = Dispatcher()
        let variable = Variable(0)
        let inScope = Locked<[Bool]>([])
        let setter = variable.observe(ignoreFirst: true) { value in
            if value == 1 {
                Dispatcher.withCurrent(scope) { variable.value = 2 }
            }
        }
        let dust = Locked<Dust?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            dust.withLock {
                $0 = variable.observe(on: .main, ignoreFirst: true) { value in
                    inScope.withLock { $0.append(Dispatcher.current === scope) }
                    if value == 2 {
                        continuation.resume()
                    }
                }
            }
            // Set off the main thread, so that both values wait on the main queue.
            DispatchQueue.global().async { variable.value = 1 }
        }
        setter.clean()
        dust.value?.clean()

        #expect(inScope.value == [false, true])
    }

    @Test func aChangeHandedToAnotherThreadsRoundIsDeliveredInTheScopeItWasMadeIn() {
        let delivering = Dispatcher()
        let setting = Dispatcher()
        let queue = DispatchQueue(label: "ScopeCarryingTests.queue")
        let variable = Variable(0)
        let inRound = DispatchSemaphore(value: 0)
        let handedOver = DispatchSemaphore(value: 0)
        let onQueue = Locked<[Bool]>([])
        let onCurrent = Locked<[Bool]>([])
        let dusts = [
            variable.observe(ignoreFirst: true) { value in
                guard value == 1 else { return }
                // Hold the round until the other thread's value was handed over to it.
                inRound.signal()
                handedOver.wait()
            },
            variable.observe(on: .queue(queue), ignoreFirst: true) { _ in
                onQueue.withLock { $0.append(Dispatcher.current === setting) }
            },
            variable.observe(ignoreFirst: true) { _ in
                onCurrent.withLock { $0.append(Dispatcher.current === setting) }
            },
        ]
        defer { dusts.forEach { $0.clean() } }

        onThreads(2) { thread in
            if thread == 0 {
                Dispatcher.withCurrent(delivering) { variable.value = 1 }
            } else {
                inRound.wait()
                // A round runs on the other thread: this set, inside a dispatch of
                // `setting` (as in a reduce), does not wait for it: it hands the value
                // over and returns.
                Dispatcher.withCurrent(setting) {
                    setting.withMutex { variable.value = 2 }
                }
                handedOver.signal()
            }
        }
        queue.sync {}

        #expect(onQueue.value == [false, true])
        #expect(onCurrent.value == [false, true])
    }

    @Test func aChangeQueuedBehindAFirstValueIsDeliveredInTheScopeItWasMadeIn() {
        let observing = Dispatcher()
        let setting = Dispatcher()
        let variable = Variable(0)
        let firstValueRunning = DispatchSemaphore(value: 0)
        let setDone = DispatchSemaphore(value: 0)
        let inSettingScope = Locked<[Bool]>([])
        let dust = Locked<Dust?>(nil)
        defer { dust.value?.clean() }

        onThreads(2) { thread in
            if thread == 0 {
                Dispatcher.withCurrent(observing) {
                    let observation = variable.observe(ignoreFirst: false) { value in
                        inSettingScope.withLock { $0.append(Dispatcher.current === setting) }
                        if value == 0 {
                            // While the first value runs, the other thread's change
                            // waits in this observer's backlog.
                            firstValueRunning.signal()
                            setDone.wait()
                        }
                    }
                    dust.withLock { $0 = observation }
                }
            } else {
                firstValueRunning.wait()
                Dispatcher.withCurrent(setting) { variable.value = 1 }
                setDone.signal()
            }
        }

        #expect(inSettingScope.value == [false, true])
    }
}
