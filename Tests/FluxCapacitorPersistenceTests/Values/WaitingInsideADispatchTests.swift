import Dispatch
import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

extension Dispatcher {
    /// Runs its closure in the reduce: the closure runs on a thread that holds the
    /// dispatcher's mutex.
    struct Run: DispatchState {
        typealias RelatedStoreType = RunStore
        typealias RelatedActionType = RunAction

        let work: @Sendable () -> Void
    }

    /// What the store with a persisted value is told.
    enum PersistedCount: DispatchState {
        typealias RelatedStoreType = PersistedCountStore
        typealias RelatedActionType = PersistedCountAction

        case set(Int)
        /// Runs the closure in the reduce, holding the dispatcher's mutex.
        case run(@Sendable () -> Void)
    }
}

final class RunStore: Storable {
    typealias DispatchStateType = Dispatcher.Run

    required init() {}

    func reduce(with state: Dispatcher.Run) {
        state.work()
    }
}

struct RunAction: Actionable {
    typealias DispatchStateType = Dispatcher.Run
}

/// A store with a value persisted as "count" in the default storage the test binds.
final class PersistedCountStore: Storable {
    typealias DispatchStateType = Dispatcher.PersistedCount

    let count = Variable(0, persistedAs: "count")

    required init() {}

    func reduce(with state: Dispatcher.PersistedCount) {
        switch state {
        case .set(let value): count.value = value
        case .run(let work): work()
        }
    }
}

struct PersistedCountAction: Actionable {
    typealias DispatchStateType = Dispatcher.PersistedCount
}

/// A storage whose writes fail and whose `report(_:)` dispatches, synchronously, to a
/// dispatcher: the handler the docs advise against, which still must not deadlock the
/// library's own waits.
final class DispatchingReportStorage: PersistentStorage, @unchecked Sendable {
    // Sendable: `dispatcher` is; the semaphore is thread-safe; `dispatchedFromReports` is a
    // `Locked`.
    let dispatcher: Dispatcher
    /// Signalled as a report begins, before it dispatches.
    let reporting = DispatchSemaphore(value: 0)
    /// The dispatches the reports made, once each returned.
    let dispatchedFromReports = Locked(0)

    init(dispatching dispatcher: Dispatcher) {
        self.dispatcher = dispatcher
    }

    /// Longer than a dispatch timer waits: only the test's threads write.
    var coalescingInterval: Duration { .seconds(10_000_000_000) }
    func read(_ slot: String) throws -> Data? { nil }
    func setAside(_ slot: String) throws -> String { slot }
    func remove(_ slot: String) throws {}
    func write(_ data: Data, to slot: String) throws { throw POSIXError(.ENOSPC) }
    func report(_ error: PersistenceError) {
        reporting.signal()
        Dispatcher.withCurrent(dispatcher) {
            RunAction().invoke(Dispatcher.Run {})
        }
        dispatchedFromReports.withLock { $0 += 1 }
    }
}

/// Runs each body on a thread of its own and says whether all of them returned. The limit,
/// ten minutes, only bounds a failing run: a deadlock fails the test instead of hanging the
/// test run (its threads stay blocked, on the test's own dispatcher and storage). The test
/// awaits the answer, so that no thread of the test run's pool is blocked meanwhile.
private func allReturn(_ bodies: [@Sendable () -> Void]) async -> Bool {
    let group = DispatchGroup()
    for body in bodies {
        group.enter()
        Thread {
            body()
            group.leave()
        }
        .start()
    }
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: group.wait(timeout: .now() + .seconds(600)) == .success)
        }
    }
}

/// Waits for `semaphore` as `allReturn` waits for its threads.
private func signalled(_ semaphore: DispatchSemaphore) async -> Bool {
    await allReturn([{ semaphore.wait() }])
}

@Suite("Persisting and recording inside a dispatch", .isolatedDispatcher)
struct WaitingInsideADispatchTests {
    // MARK: A persisted value

    /// What a reduce does with a persisted value while another thread's report waits for
    /// the dispatcher.
    enum SlotEnd: String, CaseIterable, Sendable {
        /// Lets go of the last reference to the store: its deinit runs with the
        /// dispatcher's mutex held, after the reduce.
        case letGoOfTheStore
        /// Calls `flush()` in the reduce.
        case flush
    }

    /// Thread B flushes: its write fails, and the report dispatches to the dispatcher that
    /// thread A holds. A, in a reduce, waits until B reports, then lets go of the store or
    /// flushes. Waiting there for B's report to be made would wait for A itself.
    @Test(arguments: SlotEnd.allCases)
    func aPersistedValueEndedInsideADispatchDoesNotWaitForAReportThatDispatches(_ end: SlotEnd) async {
        let dispatcher = Dispatcher.current
        let runStore = RunStore.instantiate()
        let storage = DispatchingReportStorage(dispatching: dispatcher)
        let box = Locked<PersistedCountStore?>(
            Persistence.withDefaultStorage(storage) { PersistedCountStore.instantiate() })
        PersistedCountAction().invoke(.set(1))
        let aHoldsTheMutex = DispatchSemaphore(value: 0)

        let returned = await allReturn([
            {
                Dispatcher.withCurrent(dispatcher) {
                    PersistedCountAction().invoke(
                        .run {
                            aHoldsTheMutex.signal()
                            storage.reporting.wait()
                            switch end {
                            // The dispatch holds the store until the reduce returns.
                            case .letGoOfTheStore: _ = box.withLock { $0.take() }
                            case .flush: storage.flush()
                            }
                        })
                }
            },
            {
                aHoldsTheMutex.wait()
                storage.flush()
            },
        ])

        #expect(returned, "a deadlock: \(end) in a reduce waited for a report that waited for the dispatcher")
        #expect((box.value == nil) == (end == .letGoOfTheStore))
        #expect(storage.dispatchedFromReports.value == 1)
        withExtendedLifetime(runStore) {}
    }

    @Test func aStoreLetGoOfInsideADispatchStillWritesItsLastChange() {
        let storage = InMemoryStorage(coalescingInterval: .seconds(10_000_000_000))
        let box = Locked<PersistedCountStore?>(
            Persistence.withDefaultStorage(storage) { PersistedCountStore.instantiate() })
        PersistedCountAction().invoke(.set(5))

        // The store's deinit runs after this reduce, with the dispatcher's mutex held: it
        // hands the write to the background.
        PersistedCountAction().invoke(.run { _ = box.withLock { $0.take() } })
        // flush() reaches a write handed to the background, and waits for it.
        storage.flush()

        #expect(box.value == nil)
        #expect(storage.contents(of: "count") == Data("5".utf8))
        #expect(storage.writeCount(of: "count") == 1)
        #expect(storage.reportedErrors.isEmpty)
    }

    @Test func flushInsideADispatchWritesBeforeItReturns() {
        let storage = InMemoryStorage(coalescingInterval: .seconds(10_000_000_000))
        let store = Persistence.withDefaultStorage(storage) { PersistedCountStore.instantiate() }
        let seenInTheReduce = Locked<Data?>(nil)

        PersistedCountAction().invoke(
            .run {
                store.count.value = 7
                storage.flush()
                seenInTheReduce.withLock { $0 = storage.contents(of: "count") }
            })

        #expect(seenInTheReduce.value == Data("7".utf8))
        #expect(storage.writeCount(of: "count") == 1)
    }

    // MARK: A dispatch recorder

    enum End: String, CaseIterable, Sendable {
        case letGo, flush, stop
    }

    /// Thread A, in a reduce of the test's dispatcher, waits until the recorder's `onError`
    /// runs (for a dispatch of a type it does not record, on another dispatcher) and
    /// dispatches to the test's dispatcher, which A holds; then A lets go of the recorder,
    /// or flushes or stops it. Waiting there for `onError` would wait for A itself.
    @Test(arguments: End.allCases)
    func aRecorderEndedInsideADispatchDoesNotWaitForAnOnErrorThatDispatches(_ end: End) async throws {
        let folder = try TemporaryFolder()
        let dispatcher = Dispatcher.current
        let runStore = RunStore.instantiate()
        let recorded = Dispatcher()
        let onErrorRuns = DispatchSemaphore(value: 0)
        let onErrorReturned = DispatchSemaphore(value: 0)
        let dispatchedFromOnError = Locked(0)
        let box = Locked<DispatchFileRecorder?>(
            try DispatchFileRecorder(
                writingTo: folder.file("session.jsonl"), recording: [.state(Dispatcher.Tally.self)],
                dispatcher: recorded,
                onError: { _ in
                    onErrorRuns.signal()
                    Dispatcher.withCurrent(dispatcher) {
                        RunAction().invoke(Dispatcher.Run {})
                    }
                    dispatchedFromOnError.withLock { $0 += 1 }
                    onErrorReturned.signal()
                }))
        let aHoldsTheMutex = DispatchSemaphore(value: 0)

        let returned = await allReturn([
            {
                Dispatcher.withCurrent(dispatcher) {
                    RunAction().invoke(
                        Dispatcher.Run {
                            aHoldsTheMutex.signal()
                            onErrorRuns.wait()
                            switch end {
                            case .letGo: _ = box.withLock { $0.take() }
                            case .flush: box.value?.flush()
                            case .stop: box.value?.stop()
                            }
                        })
                }
            },
            {
                aHoldsTheMutex.wait()
                // Reported once, through onError.
                Dispatcher.withCurrent(recorded) { UnrecordedAction().invoke(.ping) }
            },
        ])

        #expect(returned, "a deadlock: the recorder waited, inside a dispatch, for an onError that dispatches")
        guard returned else { return }
        // Once A's dispatch is over, onError's dispatch runs.
        #expect(await signalled(onErrorReturned))
        #expect(dispatchedFromOnError.value == 1)
        let recorder = box.value
        recorder?.stop()
        #expect(recorder?.statistics.notRegistered ?? 1 == 1)
        withExtendedLifetime(runStore) {}
    }
}
