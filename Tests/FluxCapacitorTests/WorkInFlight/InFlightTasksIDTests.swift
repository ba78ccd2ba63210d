import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// An id type as an Xcode 26 app target declares it (`enum SearchID: Hashable` there):
/// isolated to the main actor, its `Hashable` conformance the main actor's. Its hash counts
/// the calls made off the main queue (which runs the main actor; on Linux a thread other
/// than the main one may drain it), which the compiler cannot see inside the library.
@MainActor
enum ScreenID {
    case search
    case page(Int)

    static let hashedOffTheMainQueue = Locked(0)
    static let hashedOnTheMainQueue = Locked(0)
    nonisolated static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
}

extension ScreenID: @MainActor Hashable {
    func hash(into hasher: inout Hasher) {
        let isOnTheMainQueue = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        (isOnTheMainQueue ? Self.hashedOnTheMainQueue : Self.hashedOffTheMainQueue).withLock { $0 += 1 }
        switch self {
        case .search: hasher.combine(-1)
        case .page(let page): hasher.combine(page)
        }
    }
}

@Sendable private func sleepUntilCancelled(_: InFlightTask) async {
    try? await Task.sleep(for: .seconds(3_600))
}

@Suite("In-flight tasks: ids", .isolatedDispatcher)
struct InFlightTasksIDTests {
    /// The table hashes ids only in the calls made to it: tasks end on other threads
    /// (their work returns there, or a dust buster cancels them there) without touching
    /// their id, so an id whose `Hashable` is the main actor's is used on the main actor only.
    @Test @MainActor func anIdOfTheMainActorIsHashedOnTheMainActorOnly() async throws {
        _ = ScreenID.mainQueueKey
        let tasks = InFlightTasks<ScreenID>(policy: .cancelRunning)
        var ended: [InFlightTask] = []
        for page in 0..<100 {
            ended.append(try #require(tasks.start(.page(page)) { _ in }))
        }
        for task in ended {
            await task.waitUntilDone()
        }
        let buster = DustBuster()
        try #require(tasks.start(.search, sleepUntilCancelled)).cleaned(by: buster)
        await Task.detached { buster.clean() }.value
        // New ids, while the ended ones' are still in the table: a start sweeps them out.
        for page in 100..<200 {
            tasks.start(.page(page), sleepUntilCancelled)
        }
        tasks.start(.page(150), sleepUntilCancelled)
        tasks.cancel(.page(199))
        #expect(tasks.isRunning(.page(150)) && !tasks.isRunning(.page(199)) && !tasks.isRunning(.page(0)))
        tasks.cancelAll()

        #expect(ScreenID.hashedOffTheMainQueue.value == 0)
        #expect(ScreenID.hashedOnTheMainQueue.value > 200)
    }

    /// A task whose work returned is let go of at once, although its id is never started
    /// again: the table keeps an empty slot for the id, not the task.
    @Test func aTaskWhoseWorkReturnedIsLetGoOfThoughItsIdIsNeverUsedAgain() async throws {
        let tasks = InFlightTasks<Int>(policy: .ignoreNew)
        weak var first: InFlightTask?
        weak var last: InFlightTask?
        do {
            var started: [InFlightTask] = []
            for id in 0..<1_000 {
                started.append(try #require(tasks.start(id) { _ in }))
            }
            first = started.first
            last = started.last
            for task in started {
                await task.waitUntilDone()
            }
        }
        #expect(first == nil && last == nil)
        #expect((0..<1_000).allSatisfy { !tasks.isRunning($0) })
        // An id whose task ended starts again, also under `.ignoreNew`, and its slot is reused.
        let again = try #require(tasks.start(7, sleepUntilCancelled))
        #expect(tasks.isRunning(7))
        #expect(tasks.start(7, sleepUntilCancelled) == nil, "ignored while the new one runs")
        again.cancel()
        #expect(!tasks.isRunning(7))
    }

    /// Ids whose tasks ended are swept out of the table by later starts of new ids, while
    /// the ids whose tasks run stay: a start after many ended ones finds the running one.
    @Test func sweepingEndedIdsKeepsTheRunningOnes() async throws {
        let tasks = InFlightTasks<Int>(policy: .ignoreNew)
        let running = try #require(tasks.start(-1, sleepUntilCancelled))
        for round in 0..<10 {
            var ended: [InFlightTask] = []
            for id in (round * 100)..<(round * 100 + 100) {
                ended.append(try #require(tasks.start(id) { _ in }))
            }
            for task in ended {
                await task.waitUntilDone()
            }
        }
        #expect(tasks.isRunning(-1))
        #expect(tasks.start(-1, sleepUntilCancelled) == nil, "the running task of -1 is still found")
        running.cancel()
        #expect(!tasks.isRunning(-1))
    }
}
