import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Work that runs until it is cancelled.
@Sendable private func sleepUntilCancelled(_: InFlightTask) async {
    try? await Task.sleep(for: .seconds(3_600))
}

/// A chain of `onCancel`s, each starting a task of the same id that replaces the running
/// one: every start cancels a task whose `onCancel` starts the next (issue 40, item 7).
private final class OnCancelChain: @unchecked Sendable {
    // Sendable: the chain runs on one thread, the test's, one `onCancel` after another
    // (what the tests check); `lock` guards what the tests read from other threads.
    let tasks = InFlightTasks<String>(policy: .cancelRunning)
    let length: Int
    let dispatcher: Dispatcher
    let thread = Thread.current
    private let lock = NSLock()
    private var onCancels: [Int] = []
    private var handles: [InFlightTask] = []
    private var started = 0
    private var onAnotherThread = 0
    private var withAnotherDispatcher = 0

    init(length: Int, dispatcher: Dispatcher) {
        self.length = length
        self.dispatcher = dispatcher
    }

    /// Starts the next link, whose `onCancel` starts the one after while the chain is short
    /// of `length` cancellations.
    func startLink() {
        let index = lock.withLock {
            defer { started += 1 }
            return started
        }
        let handle = tasks.start(
            "link",
            onCancel: { [self] in
                let count = lock.withLock {
                    onCancels.append(index)
                    onAnotherThread += Thread.current == thread ? 0 : 1
                    withAnotherDispatcher += Dispatcher.current === dispatcher ? 0 : 1
                    return onCancels.count
                }
                if count < length {
                    startLink()
                }
            },
            sleepUntilCancelled)
        lock.withLock { handles.append(handle!) }
    }

    /// How many `onCancel`s ran, and whether they ran in the order of the links, each once.
    var cancellations: (count: Int, inOrder: Bool) {
        lock.withLock { (onCancels.count, onCancels.elementsEqual(0..<onCancels.count)) }
    }
    var liveTasks: Int { lock.withLock { handles.filter { !$0.isCancelled }.count } }
    var startedTasks: Int { lock.withLock { handles.count } }
    var onCancelsOffTheCancellingThread: Int { lock.withLock { onAnotherThread } }
    var onCancelsWithAnotherDispatcher: Int { lock.withLock { withAnotherDispatcher } }

    func cancelTheLastOne() async {
        let last = lock.withLock { handles.last }
        tasks.cancelAll()
        await last?.waitUntilDone()
    }
}

@Suite("In-flight tasks: onCancel chains", .isolatedDispatcher)
struct OnCancelChainTests {
    /// 100,000 `onCancel`s, each starting the task that the next start replaces: on one
    /// stack, one frame group per link, this overflowed the stack (issue 40, item 7).
    @Test func aChainOfAHundredThousandOnCancelsRunsInConstantStack() async {
        let chain = OnCancelChain(length: 100_000, dispatcher: .current)
        chain.startLink()
        // Replaces link 0: its onCancel starts link 2, which replaces link 1, whose onCancel
        // starts link 3, which replaces link 2, and so on.
        chain.startLink()

        #expect(chain.cancellations.count == 100_000)
        #expect(chain.cancellations.inOrder, "each once, in the order they were replaced")
        #expect(chain.startedTasks == 100_001)
        #expect(chain.liveTasks == 1, "never two live tasks for one id")
        #expect(chain.onCancelsOffTheCancellingThread == 0)
        #expect(chain.onCancelsWithAnotherDispatcher == 0)
        await chain.cancelTheLastOne()
    }

    /// A start made inside an `onCancel` returns before the `onCancel` of the task it
    /// replaces runs (that one runs once the current `onCancel` returns, on the same
    /// thread, before the cancellation that ran it returns), and its work begins only after
    /// it: a cancelled load's flag is put right before the next load can set it.
    @Test func workStartedInsideAnOnCancelBeginsAfterTheOnCancelOfTheTaskItReplaced() async throws {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let log = Locked<[String]>([])
        let third = Locked<InFlightTask?>(nil)
        tasks.start("load", onCancel: { log.withLock { $0.append("onCancel of the first load") } }, sleepUntilCancelled)
        tasks.start(
            "other",
            onCancel: {
                log.withLock { $0.append("onCancel of other") }
                let started = tasks.start("load") { _ in log.withLock { $0.append("the second load's work") } }
                log.withLock { $0.append("the second load started") }
                third.withLock { $0 = started }
            }, sleepUntilCancelled)

        tasks.cancel("other")

        #expect(
            log.value.prefix(3) == [
                "onCancel of other", "the second load started", "onCancel of the first load",
            ])
        await third.value?.waitUntilDone()
        #expect(log.value.last == "the second load's work")
        #expect(log.value.count == 4)
    }

    /// `waitUntilDone()` of a task started inside an `onCancel`, whose work has not begun yet,
    /// waits for that work to begin and return.
    @Test func waitUntilDoneWaitsForWorkThatHasNotBegunYet() async throws {
        let tasks = InFlightTasks<String>(policy: .cancelRunning)
        let workRan = Locked(false)
        let waiter = Locked<Task<Bool, Never>?>(nil)
        tasks.start("replaced", onCancel: {}, sleepUntilCancelled)
        tasks.start(
            "trigger",
            onCancel: {
                // Its work begins after this onCancel and the replaced task's have run.
                let next = tasks.start("replaced") { _ in workRan.withLock { $0 = true } }
                if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                    // Runs on this thread up to its first suspension: waitUntilDone() is called
                    // before the work begins.
                    waiter.withLock {
                        $0 = Task.immediate {
                            await next?.waitUntilDone()
                            return workRan.value
                        }
                    }
                } else {
                    waiter.withLock {
                        $0 = Task {
                            await next?.waitUntilDone()
                            return workRan.value
                        }
                    }
                }
            }, sleepUntilCancelled)

        tasks.cancel("trigger")

        #expect(await waiter.value?.value == true, "waitUntilDone() returned after the work ran")
    }
}
