import FluxCapacitor
import FluxCapacitorPersistence

extension Dispatcher {
    /// What can happen to the counter.
    enum Counter: DispatchState, Equatable {
        typealias RelatedStoreType = CounterStore
        typealias RelatedActionType = CounterAction

        case increment
        case reset
    }
}

/// The count, saved in the default storage: the one the app sets at launch, or a test's.
final class CounterStore: Storable {
    typealias DispatchStateType = Dispatcher.Counter

    let count: Constant<Int>
    private let _count = Variable<Int>(0, persistedAs: "count")

    required init() {
        count = Constant(_count)
    }

    func reduce(with state: Dispatcher.Counter) {
        switch state {
        case .increment: _count.value += 1
        case .reset: _count.value = 0
        }
    }
}

/// Counts.
struct CounterAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Counter

    func increment(times: Int) {
        for _ in 0..<times {
            invoke(.increment)
        }
    }

    func reset() {
        invoke(.reset)
    }
}
