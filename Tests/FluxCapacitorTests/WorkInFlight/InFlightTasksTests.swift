import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Work that waits until it is cancelled (`Task.sleep` throws then), and says whether it
/// saw the cancellation.
@Sendable private func waitForCancellation(_ sawCancellation: Locked<Int>) async {
    try? await Task.sleep(for: .seconds(3_600))
    if Task.isCancelled {
        sawCancellation.withLock { $0 += 1 }
    }
}

@Suite("In-flight tasks", .isolatedDispatcher)
struct InFlightTasksTests {
    @Test func theWorkSeesItsCancellation() async throws {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let saw = Locked(0)
        let task = try #require(tasks.start("fetch") { _ in await waitForCancellation(saw) })
        #expect(tasks.isRunning("fetch"))
        task.cancel()
        await task.waitUntilDone()
        #expect(saw.value == 1)
        #expect(task.isCancelled && task.isCleaned)
        #expect(!tasks.isRunning("fetch"))
    }

    @Test func aCancelledTaskDispatchesNothingAfterItWasCancelled() async throws {
        let store = CounterStore.instantiate()
        let events = Locked(0)
        let log = Dispatcher.current.observeDispatches { _ in events.withLock { $0 += 1 } }
        defer { log.clean() }
        let (resume, resumed) = AsyncStream<Void>.makeStream()
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let task = try #require(
            tasks.start("fetch") { task in
                CounterAction().invoke(.add(1), unlessCancelled: task)
                for await _ in resume {}
                CounterAction().invoke(.add(10), unlessCancelled: task)
            })
        try await waitUntil { store.count.value == 1 }
        task.cancel()
        resumed.finish()
        await task.waitUntilDone()
        #expect(store.count.value == 1)
        // One dispatch reduced (will and did reduce); the one after the cancel not even logged.
        #expect(events.value == 2)
    }

    @Test func noDispatchOfWorkRacingItsCancellationReachesTheStoreAfterCancelReturns() async throws {
        let store = CounterStore.instantiate()
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let task = try #require(
            tasks.start("fetch") { task in
                // Dispatches as fast as it can from a thread of the cooperative pool,
                // until it sees the cancellation.
                while !Task.isCancelled {
                    CounterAction().invoke(.increment, unlessCancelled: task)
                    await Task.yield()
                }
            })
        try await waitUntil { store.count.value >= 100 }
        let countWhenCancelReturned = Locked(0)
        onThreads(1) { _ in
            task.cancel()
            countWhenCancelReturned.withLock { $0 = store.count.value }
        }
        await task.waitUntilDone()
        #expect(store.count.value == countWhenCancelReturned.value)
    }

    @Test func cancellingFromInsideADispatchDropsTheTasksDispatchesQueuedBehindIt() async throws {
        let store = CounterStore.instantiate()
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let (go, letGo) = AsyncStream<Void>.makeStream()
        let task = try #require(
            tasks.start("fetch") { _ in
                for await _ in go {}
            })
        let observer = store.count.observe(ignoreFirst: true) { count in
            guard count == 1 else { return }
            // Queued behind the dispatch running on this thread, then cancelled before
            // its turn.
            CounterAction().invoke(.add(100), unlessCancelled: task)
            task.cancel()
        }
        defer { observer.clean() }
        CounterAction().invoke(.increment)
        letGo.finish()
        await task.waitUntilDone()
        #expect(store.count.value == 1)
    }

    @Test func aNewStartCancelsTheRunningTaskWithCancelRunning() async throws {
        let tasks = InFlightTasks<Int>(policy: .cancelRunning)
        let saw = Locked(0)
        let first = try #require(tasks.start(1) { _ in await waitForCancellation(saw) })
        let second = try #require(tasks.start(1) { _ in await waitForCancellation(saw) })
        let otherID = try #require(tasks.start(2) { _ in await waitForCancellation(saw) })
        await first.waitUntilDone()
        #expect(first.isCancelled && !second.isCancelled && !otherID.isCancelled)
        #expect(tasks.isRunning(1) && tasks.isRunning(2))
        tasks.cancelAll()
        await second.waitUntilDone()
        await otherID.waitUntilDone()
        #expect(saw.value == 3)
        #expect(!tasks.isRunning(1) && !tasks.isRunning(2))
    }

    @Test func aNewStartIsIgnoredWhileOneRunsWithIgnoreNew() async throws {
        let tasks = InFlightTasks<String>(policy: .ignoreNew)
        let saw = Locked(0)
        let first = try #require(tasks.start("refresh") { _ in await waitForCancellation(saw) })
        #expect(tasks.start("refresh") { _ in Issue.record("an ignored start ran") } == nil)
        #expect(!first.isCancelled)
        tasks.cancel("refresh")
        await first.waitUntilDone()
        let ran = Locked(false)
        let next = try #require(tasks.start("refresh") { _ in ran.withLock { $0 = true } })
        await next.waitUntilDone()
        #expect(ran.value && saw.value == 1)
        #expect(!tasks.isRunning("refresh"))
    }

    /// The work hands its task to a thread of its own, which dispatches with it, and
    /// returns while that dispatch is being reduced: the task ends when the dispatch does
    /// (it leaves its table, so `.ignoreNew` starts the next one), and a cancel after that
    /// finds work that returned (no `onCancel`).
    @Test func workThatReturnsWhileAnotherThreadReducesItsDispatchEndsWithThatDispatch() async throws {
        let store = CounterStore.instantiate()
        let reducing = Locked(false)
        let release = DispatchSemaphore(value: 0)
        let observer = store.count.observe(ignoreFirst: true) { _ in
            reducing.withLock { $0 = true }
            release.wait()
        }
        defer { observer.clean() }
        let dispatched = Locked(false)
        let cancellations = Locked(0)
        let dispatcher = Dispatcher.current
        let tasks = InFlightTasks<String>(policy: .ignoreNew)
        let task = try #require(
            tasks.start("fetch", onCancel: { cancellations.withLock { $0 += 1 } }) { task in
                Thread {
                    Dispatcher.withCurrent(dispatcher) { CounterAction().invoke(.increment, unlessCancelled: task) }
                    dispatched.withLock { $0 = true }
                }
                .start()
                try? await waitUntil { reducing.value }
            })
        // The work returned (and the task heard it) while the dispatch is held in its reduce.
        await task.waitUntilDone()
        #expect(tasks.isRunning("fetch"))
        release.signal()
        try await waitUntil { dispatched.value }

        #expect(store.count.value == 1)
        #expect(!tasks.isRunning("fetch"), "the task stayed in its table after its work and its dispatch ended")
        let next = tasks.start("fetch") { _ in }
        #expect(next != nil, ".ignoreNew ignored a start after the work had returned")
        await next?.waitUntilDone()
        task.cancel()
        #expect(cancellations.value == 0, "onCancel ran for work that had returned")
    }

    @Test func aDustBusterCancelsEveryTaskItHolds() async throws {
        let tasks = InFlightTasks<Int>(policy: .cancelRunning)
        let saw = Locked(0)
        var handles: [InFlightTask] = []
        do {
            let dustBuster = DustBuster()
            for id in 0..<3 {
                let task = try #require(tasks.start(id) { _ in await waitForCancellation(saw) })
                task.cleaned(by: dustBuster)
                handles.append(task)
            }
            #expect(dustBuster.count == 3)
        }
        for task in handles {
            await task.waitUntilDone()
        }
        #expect(saw.value == 3)
        #expect(handles.allSatisfy { $0.isCancelled })
    }

    @Test func aDustBusterLetsGoOfATaskOnceItsWorkReturned() async throws {
        let tasks = InFlightTasks<Int>(policy: .cancelRunning)
        let screen = DustBuster()
        let app = DustBuster()
        let saw = Locked(0)
        let running = try #require(tasks.start(0) { _ in await waitForCancellation(saw) })
        running.cleaned(by: screen)
        for id in 1...3 {
            let finished = try #require(tasks.start(id) { _ in })
            finished.cleaned(by: screen)
            finished.cleaned(by: app)
            await finished.waitUntilDone()
            #expect(!finished.isCancelled)
            finished.cleaned(by: screen)
        }
        #expect(screen.count == 1)
        #expect(app.count == 0)
        screen.clean()
        await running.waitUntilDone()
        #expect(saw.value == 1)
    }

    @Test func nothingIsKeptOnceTheWorkEnds() async throws {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let deinits = Locked(0)
        weak var weakTask: InFlightTask?
        do {
            let captured = Tracked(deinits)
            let finished = try #require(tasks.start("done") { _ in _ = captured })
            let cancelled = try #require(
                tasks.start("cancelled") { _ in
                    _ = captured
                    try? await Task.sleep(for: .seconds(3_600))
                })
            weakTask = cancelled
            cancelled.cancel()
            await finished.waitUntilDone()
            await cancelled.waitUntilDone()
        }
        #expect(weakTask == nil)
        #expect(deinits.value == 1)
        #expect(!tasks.isRunning("done") && !tasks.isRunning("cancelled"))
    }

    @Test func eightThreadsStartingAtOnceLeaveOneTaskRunningWithCancelRunning() async {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let saw = Locked(0)
        let handles = Locked<[InFlightTask]>([])
        onThreads(8) { _ in
            for _ in 0..<50 {
                if let task = tasks.start("search", { _ in await waitForCancellation(saw) }) {
                    handles.withLock { $0.append(task) }
                }
            }
        }
        let all = handles.value
        #expect(all.count == 400)
        #expect(all.filter { !$0.isCancelled }.count == 1)
        #expect(tasks.isRunning("search"))
        tasks.cancelAll()
        for task in all {
            await task.waitUntilDone()
        }
        #expect(saw.value == 400)
        #expect(!tasks.isRunning("search"))
    }

    @Test func eightThreadsStartingAndCancellingAtOnceNeverLeaveTwoTasksRunning() async {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let saw = Locked(0)
        let handles = Locked<[InFlightTask]>([])
        let mostRunning = Locked(0)
        onThreads(8) { thread in
            for _ in 0..<50 {
                if thread.isMultiple(of: 2) {
                    if let task = tasks.start("search", { _ in await waitForCancellation(saw) }) {
                        handles.withLock { $0.append(task) }
                    }
                } else {
                    tasks.cancel("search")
                }
                let running = handles.withLock { $0.filter { !$0.isCancelled }.count }
                mostRunning.withLock { $0 = max($0, running) }
            }
        }
        let all = handles.value
        #expect(all.count == 200)
        #expect(mostRunning.value <= 1)
        let running = all.filter { !$0.isCancelled }
        #expect(running.count == (tasks.isRunning("search") ? 1 : 0))
        tasks.cancelAll()
        for task in all {
            await task.waitUntilDone()
        }
        #expect(saw.value == 200)
    }

    @Test func eightThreadsStartingAtOnceStartOneTaskWithIgnoreNew() async {
        let tasks = InFlightTasks<String>(policy: .ignoreNew)
        let saw = Locked(0)
        let handles = Locked<[InFlightTask]>([])
        onThreads(8) { _ in
            for _ in 0..<50 {
                if let task = tasks.start("refresh", { _ in await waitForCancellation(saw) }) {
                    handles.withLock { $0.append(task) }
                }
            }
        }
        #expect(handles.value.count == 1)
        tasks.cancelAll()
        await handles.value.first?.waitUntilDone()
        #expect(saw.value == 1)
    }
}
