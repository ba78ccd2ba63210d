import FluxCapacitor
import TestSupport

extension Dispatcher {
    enum Counter: DispatchState, Equatable {
        typealias RelatedStoreType = CounterStore
        typealias RelatedActionType = CounterAction

        case increment
        case add(Int)
        case set(Int)
    }
}

/// A store for the tests: a count, plus a hook that runs after each reduction.
final class CounterStore: Storable {
    typealias DispatchStateType = Dispatcher.Counter

    /// The stores made, counted for each test's dispatcher.
    static let made = CountPerDispatcher()

    /// Tells instances apart even if an address is reused: unique within a dispatcher.
    let serial: Int
    let count: Constant<Int>
    private let _count = Variable(0)
    let afterReduce = Locked<(@Sendable (Dispatcher.Counter) -> Void)?>(nil)

    required init() {
        serial = CounterStore.made.increment()
        count = Constant(_count)
    }

    func reduce(with state: Dispatcher.Counter) {
        switch state {
        case .increment: _count.value += 1
        case .add(let amount): _count.value += amount
        case .set(let value): _count.value = value
        }
        afterReduce.value?(state)
    }
}

struct CounterAction: Actionable {
    typealias DispatchStateType = Dispatcher.Counter
}
