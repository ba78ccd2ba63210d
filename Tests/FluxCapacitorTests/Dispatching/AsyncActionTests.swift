import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import Testing

/// An action whose side effect is asynchronous: it awaits a (stub) request, then invokes.
struct AsyncCounterAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Counter

    let delay: Duration

    func load(_ amount: Int) async {
        invoke(.set(0))
        try? await Task.sleep(for: delay)
        invoke(.add(amount))
    }
}

@Suite("Async actions", .isolatedDispatcher)
struct AsyncActionTests {
    @Test func anAsyncActionInvokesFromItsTaskIntoTheCurrentScope() async throws {
        let store = CounterStore.instantiate()
        let counts = ValueRecorder(store.count)
        let dispatches = DispatchRecorder()
        let action = AsyncCounterAction(delay: .milliseconds(5))

        await action.load(3)
        #expect(store.count.value == 3)

        // From other tasks, started in this scope, at the same time.
        await withTaskGroup(of: Void.self) { group in
            for amount in 1...4 {
                group.addTask { await action.load(amount) }
            }
        }
        // Every state reached the store once: the initial value, then a set and an add
        // per load.
        #expect(counts.values.count == 1 + 2 + 8)
        let adds = dispatches.states(of: Dispatcher.Counter.self).compactMap { state -> Int? in
            if case .add(let amount) = state { amount } else { nil }
        }
        #expect(adds.sorted() == [1, 2, 3, 3, 4])
        #expect(dispatches.entries.allSatisfy { $0.phase == .didReduce })
    }

    @Test func anUnstructuredTaskStartedInAScopeInvokesIntoIt() async {
        let store = CounterStore.instantiate()
        let counts = ValueRecorder(store.count)
        let task = Task { await AsyncCounterAction(delay: .milliseconds(1)).load(9) }
        // Awaiting the task, not a deadline: on a loaded machine the task may start late.
        await task.value
        #expect(counts.values == [0, 0, 9])
    }
}
