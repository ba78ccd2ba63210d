import Foundation

/// What the recorders append to from the threads that dispatch or deliver, and read from
/// the test's task.
final class RecordingBuffer<Entry>: @unchecked Sendable {
    // Sendable: `lock` guards `stored`. Entries may not be Sendable (dispatched states
    // need not be): they are handed to the recorder's reader, which the recorders document
    // to be the task that made them.
    private let lock = NSLock()
    private var stored: [Entry] = []

    var entries: [Entry] {
        lock.withLock { stored }
    }

    func append(_ entry: Entry) {
        lock.withLock { stored.append(entry) }
    }

    func removeAll() {
        let removed = lock.withLock {
            defer { stored = [] }
            return stored
        }
        // Let go of after unlocking: a recorded value's deinit may be user code.
        withExtendedLifetime(removed) {}
    }

    /// The entries once there are more than `count` of them, or as they are at `deadline`
    /// or when the task is cancelled, whichever comes first.
    func entries(
        moreThan count: Int,
        until deadline: ContinuousClock.Instant,
        isolation: isolated (any Actor)? = #isolation
    ) async -> [Entry] {
        while true {
            let entries = self.entries
            if entries.count > count || ContinuousClock.now >= deadline || Task.isCancelled {
                return entries
            }
            // Polled: appends come from any thread, under a lock, and must stay cheap.
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
