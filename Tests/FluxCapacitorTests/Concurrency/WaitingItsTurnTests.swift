import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

/// Issue 40: a change that finds another thread delivering the same value waits its turn
/// (parked once its looks are spent) and delivers its own value, as behind a plain lock;
/// it hands its value over only where waiting could deadlock.
@Suite("Waiting one's turn: backpressure without deadlock", .isolatedDispatcher)
struct WaitingItsTurnTests {
    /// Seven threads keep setting one value behind a slow observer: each value reaches the
    /// observers on the thread that set it, before its set returns, once, and in each
    /// thread's order. So no value waits for another thread (memory stays flat, whatever
    /// the setters do), and no set is held delivering other threads' values.
    @Test func settersBehindASlowObserverEachDeliverTheirOwnValueBeforeReturning() {
        let threads = 7
        let sets = 150
        let variable = Variable((thread: -1, step: -1))
        let seen = Locked<[(setter: Int, step: Int, deliveredOn: Int)]>([])
        let deliverer = ThreadIndex()
        let dust = variable.observe(ignoreFirst: true) { value in
            seen.withLock { $0.append((value.thread, value.step, deliverer.index)) }
            usleep(200)  // a slow observer: setters meet its round
        }
        defer { dust.clean() }
        let returnedBeforeDelivered = Locked(0)
        onThreads(threads) { thread in
            deliverer.index = thread
            for step in 0..<sets {
                variable.value = (thread, step)
                if !seen.value.contains(where: { $0.setter == thread && $0.step == step }) {
                    returnedBeforeDelivered.withLock { $0 += 1 }
                }
            }
        }
        #expect(returnedBeforeDelivered.value == 0)
        #expect(seen.value.filter { $0.setter != $0.deliveredOn }.count == 0, "delivered by another thread")
        #expect(seen.value.count == threads * sets)
        for thread in 0..<threads {
            #expect(seen.value.filter { $0.setter == thread }.map(\.step) == Array(0..<sets))
        }
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    /// Two threads whose observers set each other's values: each waits for the other's
    /// round, which the library sees (a cycle of waits) and breaks by handing the last
    /// value over. Every value is seen once, in order; nothing deadlocks (a child process
    /// with a watchdog, so that a deadlock fails the test instead of hanging the run).
    @Test(.timeLimit(.minutes(5)))
    func twoThreadsWhoseObserversSetEachOthersValuesNeverDeadlock() async {
        await #expect(processExitsWith: .success) {
            exitIfStuckFor(seconds: 120)
            let left = Variable(0)
            let right = Variable(0)
            let seenLeft = Locked<[Int]>([])
            let seenRight = Locked<[Int]>([])
            // Each value set on a thread makes its observer set the other value once (to
            // its negative, which sets nothing more).
            let leftDust = left.observe(ignoreFirst: true) { value in
                seenLeft.withLock { $0.append(value) }
                if value > 0 {
                    right.value = -value
                }
            }
            let rightDust = right.observe(ignoreFirst: true) { value in
                seenRight.withLock { $0.append(value) }
                if value > 0 {
                    left.value = -value
                }
            }
            let rounds = 10_000
            let group = DispatchGroup()
            for side in 0..<2 {
                group.enter()
                Thread {
                    for step in 1...rounds {
                        if side == 0 {
                            left.value = step
                        } else {
                            right.value = 100_000 + step
                        }
                    }
                    group.leave()
                }.start()
            }
            group.wait()
            leftDust.clean()
            rightDust.clean()
            // Every value is seen once: each thread's own, and each the other's observer set.
            precondition(seenLeft.value.filter { $0 > 0 } == Array(1...rounds), "left, in order")
            precondition(seenRight.value.filter { $0 > 0 } == Array(100_001...100_000 + rounds), "right, in order")
            precondition(Set(seenLeft.value.filter { $0 < 0 }) == Set(seenRight.value.filter { $0 > 0 }.map { -$0 }))
            precondition(Set(seenRight.value.filter { $0 < 0 }) == Set(seenLeft.value.filter { $0 > 0 }.map { -$0 }))
            precondition(seenLeft.value.count == 2 * rounds && seenRight.value.count == 2 * rounds)
        }
    }

    /// A reduce that sets a value while another thread, outside any dispatch, delivers a
    /// change of it whose observer dispatches: the reduce holds the dispatcher the observer
    /// waits for, so it does not wait for that round: it hands its value over. On a
    /// dispatcher of the test's own, and on `.shared`.
    @Test func aReduceThatMeetsARoundWhoseObserverDispatchesHandsItsValueOver() async {
        await #expect(processExitsWith: .success) {
            reduceMeetsARoundWhoseObserverDispatches(on: Dispatcher())
        }
    }

    @Test func aReduceOfTheSharedDispatcherThatMeetsARoundWhoseObserverDispatchesHandsItsValueOver() async {
        await #expect(processExitsWith: .success) {
            reduceMeetsARoundWhoseObserverDispatches(on: .shared)
        }
    }
    #endif
}

#if os(macOS) || os(Linux)
private func reduceMeetsARoundWhoseObserverDispatches(on dispatcher: Dispatcher) {
    exitIfStuckFor(seconds: 120)
    Dispatcher.withCurrent(dispatcher) {
        let store = CounterStore.instantiate()
        let shared = Variable(0)
        let observerDispatches = DispatchSemaphore(value: 0)
        let dust = shared.observe(ignoreFirst: true) { value in
            if value == 1 {
                observerDispatches.signal()
                // Waits for the dispatcher, which the "reduce" below holds.
                CounterAction().invoke(.set(1))
            }
        }
        let outside = Thread {
            Dispatcher.withCurrent(dispatcher) { shared.value = 1 }
        }
        outside.start()
        observerDispatches.wait()
        dispatcher.withMutex {
            // As a reduce: meets the round of `1`, whose observer waits for this very
            // dispatcher.
            shared.value = 2
        }
        while store.count.value != 1 { usleep(100) }
        dust.clean()
        precondition(shared.value == 2)
    }
}
#endif

/// The index a thread of `onThreads` runs as, for the observer to read on its thread.
private final class ThreadIndex: @unchecked Sendable {
    // Sendable: a thread-specific value: each thread reads and writes its own.
    private let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    var index: Int {
        get { Int(bitPattern: pthread_getspecific(key)) - 1 }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue + 1)) }
    }
}

#if os(macOS) || os(Linux)
/// Ends the (child) process with a message if it is still running after `seconds`: a
/// deadlock fails the exit test instead of hanging it.
private func exitIfStuckFor(seconds: Int) {
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
        FileHandle.standardError.write(Data("stuck for \(seconds) s: deadlocked\n".utf8))
        exit(3)
    }
}
#endif
