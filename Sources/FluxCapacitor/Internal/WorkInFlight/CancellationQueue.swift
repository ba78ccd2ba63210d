#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Runs the `onCancel`s of ``InFlightTask``s one after another on the cancelling thread,
/// so that a chain of them runs in constant stack (issue 40, item 7).
///
/// An `onCancel` may start a task of the same id, which cancels the task running, whose
/// `onCancel` may start another, and so on. Run where it is cancelled, each `onCancel`
/// would run inside the one before, one group of frames per link, until the stack ran out
/// (100,000 links did). So a thread that is running an `onCancel` (of any task) queues the
/// `onCancel`s it cancels meanwhile, and runs them, in order, once the one running returns:
/// a trampoline. The work of a task started there begins after the `onCancel` of the task
/// it replaced (`beginAfterWaitingOnCancels`), as a start outside an `onCancel` promises.
///
/// The queue is the calling thread's, found through a thread-specific pointer to a FIFO on
/// the stack of the outermost run (`pthread_setspecific`): a thread-local rather than a
/// task-local, because a `Task {}` made inside an `onCancel` inherits task-locals, and its
/// cancellations, on another thread or later, must not go to this queue. Nothing is
/// allocated unless an `onCancel` cancels another task.
enum CancellationQueue {
    /// What waits in a thread's queue.
    enum Step {
        /// Run the `onCancel` of a cancelled task.
        case onCancel(InFlightTask)
        /// Begin the work of a task started by an `onCancel`, after the `onCancel` of the
        /// task it replaced.
        case begin(InFlightTask, @Sendable (InFlightTask) async -> Void)

        func run() {
            switch self {
            case .onCancel(let task): task.runOnCancel()
            case .begin(let task, let operation): task.begin(operation)
            }
        }
    }

    /// The key of each thread's pointer to the queue of the run it is in (`nil`: none).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        guard result == 0 else {
            fatalError("FluxCapacitor: no thread-specific key for InFlightTasks (error \(result))")
        }
        return key
    }()

    /// The queue of the run this thread is in, if any.
    private static var waiting: UnsafeMutablePointer<FIFO<Step>>? {
        pthread_getspecific(key)?.assumingMemoryBound(to: FIFO<Step>.self)
    }

    /// Runs the `onCancel` of `task` now, or, when this thread is running an `onCancel`
    /// already, after it (and after those queued before).
    static func runOnCancel(of task: InFlightTask) {
        if let waiting {
            waiting.pointee.append(.onCancel(task))
            return
        }
        var queue = FIFO<Step>()
        withUnsafeMutablePointer(to: &queue) { queue in
            pthread_setspecific(key, queue)
            defer { pthread_setspecific(key, nil) }
            task.runOnCancel()
            // Each step may queue more; the queue is only ever touched by this thread.
            while let next = queue.pointee.popFirst() {
                next.run()
            }
        }
    }

    /// Begins the work of `task` now, or, when this thread is running an `onCancel`,
    /// after the `onCancel`s it queued: those of the tasks this start replaced among them.
    static func beginAfterWaitingOnCancels(
        _ task: InFlightTask, _ operation: @escaping @Sendable (InFlightTask) async -> Void
    ) {
        if let waiting {
            waiting.pointee.append(.begin(task, operation))
        } else {
            task.begin(operation)
        }
    }
}
