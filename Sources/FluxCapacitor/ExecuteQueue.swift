public import Dispatch

/// Where an observer is called.
///
/// ```swift
/// value.observe(on: .main) { print($0) }.cleaned(by: dustBuster)
/// value.observe(on: .queue(workQueue)) { process($0) }.cleaned(by: dustBuster)
/// ```
///
/// Whatever the queue, one observer sees the values of a ``PrimitiveValue`` in the order
/// they were set, each once: asynchronous deliveries to one observer are queued in order
/// and never run at the same time.
public enum ExecuteQueue: Sendable {
    /// On the thread that sets the value, before the setter (or the dispatch that set it)
    /// returns; for a value handed over to another thread that was delivering a change of
    /// it (a set made inside a dispatch, say, which does not wait for that thread), on
    /// that thread, after the change it was delivering (see <doc:ThreadingAndReentrancy>).
    case current

    /// On the main thread: at once when the value is delivered on the main thread (the
    /// thread that sets it, as for ``current``) and nothing is waiting for this observer,
    /// else asynchronously on `DispatchQueue.main`.
    ///
    /// On Linux the main queue runs only while something drains it (`dispatchMain()`,
    /// `RunLoop.main.run()`, or an `async` `main`).
    case main

    /// Asynchronously on `queue`.
    case queue(DispatchQueue)
}
