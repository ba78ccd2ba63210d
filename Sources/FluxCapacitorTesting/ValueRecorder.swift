public import FluxCapacitor
import Foundation

/// Records the values of a `Variable` or `Constant`, or what is sent to a `Signal`,
/// to assert how a store changed and what it told its observers, and waits for values
/// delivered later (by an asynchronous action, say).
///
/// ```swift
/// @Test(.isolatedDispatcher) func fetchingTurnsTheFlagOnThenOff() async throws {
///     let store = RepositoryStore.instantiate()
///     let fetching = ValueRecorder(store.isRepositoryFetching)
///     Task {
///         await RepositoryAction(session: StubSession(found: []))
///             .fetchRepositories(ofUser: "marty")
///     }
///     #expect(try await fetching.waitForValues(count: 3) == [false, true, false])
/// }
/// ```
///
/// It starts with the current value (unless `ignoreFirst` is `true`) and records every
/// change until ``stop()`` or until it goes away.
public final class ValueRecorder<Element: Sendable>: Sendable {
    let storage = RecordingBuffer<Element>()
    private let subscription: Dust

    /// Starts recording `value` on `queue`: its current value first, as `observe` delivers
    /// it, unless `ignoreFirst` is `true`.
    ///
    /// ```swift
    /// let flags = ValueRecorder(store.isRepositoryFetching)  // [false, …]
    /// let changes = ValueRecorder(
    ///     store.isRepositoryFetching, ignoreFirst: true)  // […]
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to record.
    ///   - queue: Where to record each value; `ExecuteQueue.current` by default.
    ///   - ignoreFirst: Whether to leave out the current value and record changes only.
    public init<Trait: ValueTrait>(
        _ value: PrimitiveValue<Trait, Element>,
        on queue: ExecuteQueue = .current,
        ignoreFirst: Bool = false
    ) {
        let storage = self.storage
        subscription = value.observe(on: queue, ignoreFirst: ignoreFirst) { storage.append($0) }
    }

    /// Starts recording what is sent to `signal` from now on, on `queue`: a store's
    /// events, where a `Variable` would record its state.
    ///
    /// ```swift
    /// let saved = ValueRecorder(store.saved)
    /// FavoriteAction().invoke(.add(fluxCapacitor))
    /// #expect(saved.values == [fluxCapacitor])
    /// ```
    ///
    /// - Parameters:
    ///   - signal: The signal to record.
    ///   - queue: Where to record each value; `ExecuteQueue.current` by default.
    public init(_ signal: Signal<Element>, on queue: ExecuteQueue = .current) {
        let storage = self.storage
        subscription = signal.observe(on: queue) { storage.append($0) }
    }

    deinit {
        subscription.clean()
    }

    /// The values recorded so far, oldest first.
    public var values: [Element] {
        storage.entries
    }

    /// The latest value recorded, if any.
    public var last: Element? {
        values.last
    }

    /// Waits until at least `count` values are recorded, and returns them; throws
    /// ``Timeout`` with what was recorded if `timeout` passes first.
    ///
    /// - Parameters:
    ///   - count: How many values to wait for, the first one included.
    ///   - timeout: How long to wait.
    /// - Returns: Every value recorded, at least `count` of them.
    /// - Throws: ``Timeout`` when fewer came in time; `CancellationError` when the task
    ///   was cancelled first.
    public func waitForValues(count: Int, timeout: Duration = .seconds(10)) async throws -> [Element] {
        let values = await storage.entries(moreThan: count - 1, until: .now.advanced(by: timeout))
        guard values.count >= count else {
            try Task.checkCancellation()
            throw Timeout(expected: count, recorded: values)
        }
        return values
    }

    /// Stops recording. What was recorded stays readable. Every recorder stops with
    /// `stop()`, and so does a `DispatchFileRecorder`.
    ///
    /// ```swift
    /// recorder.stop()
    /// ```
    public func stop() {
        subscription.clean()
    }

    /// Thrown by ``waitForValues(count:timeout:)`` when fewer values arrived in time.
    ///
    /// ```swift
    /// do {
    ///     _ = try await flags.waitForValues(count: 3)
    /// } catch let timeout as ValueRecorder<Bool>.Timeout {
    ///     print(timeout)  // waited for 3 values, got 2: [false, true]
    /// }
    /// ```
    public struct Timeout: Error, CustomStringConvertible {
        /// How many values were awaited.
        public let expected: Int

        /// What was recorded when the time ran out.
        public let recorded: [Element]

        /// A sentence saying what was awaited and what came.
        public var description: String {
            "waited for \(expected) values, got \(recorded.count): \(recorded)"
        }
    }
}

extension ValueRecorder.Timeout: Sendable {}
