import Dispatch
import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

extension Dispatcher {
    enum Loading: DispatchState, Equatable {
        typealias RelatedStoreType = LoadingStore
        typealias RelatedActionType = LoadingAction

        case isLoading(Bool)
        case loaded(Int)
    }
}

/// A loading flag and what was loaded: the state a cancelled load must put right.
final class LoadingStore: Storable {
    typealias DispatchStateType = Dispatcher.Loading

    let isLoading = Variable(false)
    let loaded = Variable<[Int]>([])

    required init() {}

    func reduce(with state: Dispatcher.Loading) {
        switch state {
        case .isLoading(let isLoading): self.isLoading.value = isLoading
        case .loaded(let value): loaded.value.append(value)
        }
    }
}

/// Loads through `InFlightTasks`, putting the flag right when a load is cancelled.
struct LoadingAction: Actionable {
    typealias DispatchStateType = Dispatcher.Loading
    let loads = InFlightTasks<String>(policy: .cancelRunning)

    /// Turns the flag on, waits for `release` to finish (or, without one, until it is
    /// cancelled), then loads `value` and turns it off.
    @discardableResult
    func load(_ value: Int, waitingFor release: AsyncStream<Void>? = nil) -> InFlightTask? {
        loads.start("load", onCancel: { invoke(.isLoading(false)) }) { task in
            invoke(.isLoading(true), unlessCancelled: task)
            if let release {
                for await _ in release {}
            } else {
                try? await Task.sleep(for: .seconds(3_600))
            }
            invoke(.loaded(value), unlessCancelled: task)
            invoke(.isLoading(false), unlessCancelled: task)
        }
    }
}

/// Two threads that wait for a go, run their part of a round, and report back.
private final class RoundThreads: @unchecked Sendable {
    // Sendable: `part` is set before the threads are released for a round, read by them
    // after (the semaphores order it).
    private let go = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
    private let done = DispatchSemaphore(value: 0)
    private var part: (@Sendable (Int) -> Void)?

    init(dispatcher: Dispatcher) {
        for index in 0..<2 {
            let thread = Thread { [self] in
                Dispatcher.withCurrent(dispatcher) {
                    while true {
                        go[index].wait()
                        guard let part else { return }
                        part(index)
                        done.signal()
                    }
                }
            }
            thread.start()
        }
    }

    /// Runs `part(0)` and `part(1)` on the two threads at once, and waits for both.
    func run(_ part: @escaping @Sendable (Int) -> Void) {
        self.part = part
        go.forEach { $0.signal() }
        done.wait()
        done.wait()
    }

    /// Lets the threads end.
    func stop() {
        part = nil
        go.forEach { $0.signal() }
    }
}

@Suite("In-flight tasks: cancellation promises", .isolatedDispatcher)
struct InFlightTasksPromiseTests {
    /// `cancel(id)` on one thread and `start(id)` on another, 10,000 rounds: the cancelled
    /// task's work, which dispatches until it sees its cancellation, never reaches the store
    /// after the new task's dispatch (two live tasks of one id would let it).
    @Test func aCancelRacingAStartNeverLeavesTwoLiveTasksOfOneID() async throws {
        let store = CounterStore.instantiate()
        let seen = Locked<[Int]>([])
        let dust = store.count.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        defer { dust.clean() }
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let threads = RoundThreads(dispatcher: .current)
        defer { threads.stop() }
        var violations = 0
        for round in 0..<10_000 {
            let (old, new) = (2 * round + 1, 2 * round + 2)
            seen.withLock { $0 = [] }
            let (dispatched, markDispatched) = AsyncStream<Void>.makeStream()
            let first = try #require(
                tasks.start("id") { task in
                    CounterAction().invoke(.set(old), unlessCancelled: task)
                    markDispatched.finish()
                    while !Task.isCancelled {
                        CounterAction().invoke(.set(old), unlessCancelled: task)
                        await Task.yield()
                    }
                })
            for await _ in dispatched {}
            let second = Locked<InFlightTask?>(nil)
            threads.run { index in
                if index == 0 {
                    tasks.cancel("id")
                } else {
                    let task = tasks.start("id") { task in CounterAction().invoke(.set(new), unlessCancelled: task) }
                    second.withLock { $0 = task }
                }
            }
            await second.value?.waitUntilDone()
            first.cancel()
            await first.waitUntilDone()
            let values = seen.value
            if let firstNew = values.firstIndex(of: new), values[firstNew...].contains(old) {
                violations += 1
            }
        }
        #expect(violations == 0)
    }

    /// Work that cancels itself on its first line, by id or by its handle, sees
    /// `Task.isCancelled` at once, every time (10,000 rounds). The tasks are started from a
    /// thread of its own, not from the pool that runs them, so that the work can begin
    /// before `start` returns.
    @Test func workThatCancelsItselfOnItsFirstLineSeesItAtOnce() {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let saw = Locked(0)
        let ended = DispatchSemaphore(value: 0)
        onThreads(1) { _ in
            for round in 0..<10_000 {
                tasks.start("self") { task in
                    if round.isMultiple(of: 2) {
                        tasks.cancel("self")
                    } else {
                        task.cancel()
                    }
                    if Task.isCancelled {
                        saw.withLock { $0 += 1 }
                    }
                    ended.signal()
                }
                ended.wait()
            }
        }
        #expect(saw.value == 10_000)
    }

    /// A cancelled load puts its flag right, whichever way it is cancelled; a start that
    /// replaces one runs the old one's `onCancel` before its own work begins.
    @Test func aCancelledLoadLeavesItsFlagOff() async throws {
        let store = LoadingStore.instantiate()
        let action = LoadingAction()
        let flags = Locked<[Bool]>([])
        let dust = store.isLoading.observe(ignoreFirst: true) { flag in flags.withLock { $0.append(flag) } }
        defer { dust.clean() }
        // By a DustBuster going away.
        do {
            let buster = DustBuster()
            action.load(1)?.cleaned(by: buster)
            try await waitUntil { store.isLoading.value }
        }
        #expect(!store.isLoading.value)

        // By id.
        let byID = action.load(2)
        try await waitUntil { store.isLoading.value }
        action.loads.cancel("load")
        #expect(!store.isLoading.value)
        await byID?.waitUntilDone()

        // By a start that replaces it: off, then on for the new load, then off when it
        // has loaded.
        let (release, released) = AsyncStream<Void>.makeStream()
        let replaced = action.load(3)
        try await waitUntil { store.isLoading.value }
        flags.withLock { $0 = [] }
        let replacing = action.load(4, waitingFor: release)
        released.finish()
        await replacing?.waitUntilDone()
        await replaced?.waitUntilDone()
        #expect(flags.value == [false, true, false])
        #expect(store.loaded.value == [4])
    }

    /// A cancellation waits for a dispatch of its own work only: with another dispatch of
    /// the dispatcher blocked in an observer, cancelling a task that is not dispatching
    /// returns at once.
    @Test func cancellingWaitsOnlyForADispatchOfItsOwnWork() async throws {
        let store = CounterStore.instantiate()
        let inObserver = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocking = store.count.observe(ignoreFirst: true) { _ in
            inObserver.signal()
            release.wait()
        }
        let dispatcher = Dispatcher.current
        let dispatched = DispatchSemaphore(value: 0)
        Thread {
            Dispatcher.withCurrent(dispatcher) { CounterAction().invoke(.increment) }
            dispatched.signal()
        }.start()
        inObserver.wait()

        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let (never, _) = AsyncStream<Void>.makeStream()
        let task = try #require(tasks.start("idle") { _ in for await _ in never {} })
        let cancelled = DispatchSemaphore(value: 0)
        Thread {
            task.cancel()
            cancelled.signal()
        }.start()
        // Generous: only a cancel that waits for the blocked dispatch takes this long.
        let returned = cancelled.wait(timeout: .now() + .seconds(60)) == .success
        #expect(returned, "cancel() waited for a dispatch that was not its work's")
        release.signal()
        dispatched.wait()
        if !returned { cancelled.wait() }
        blocking.clean()
        await task.waitUntilDone()
    }
}
