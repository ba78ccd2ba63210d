package import FluxCapacitor
package import TestSupport

extension Dispatcher {
    package enum Counter: DispatchState, Equatable {
        package typealias RelatedStoreType = CounterStore
        package typealias RelatedActionType = CounterAction

        case increment
        case add(Int)
        case set(Int)
    }
}

/// A store for the tests: a count, plus a hook that runs after each reduction.
package final class CounterStore: Storable {
    package typealias DispatchStateType = Dispatcher.Counter

    /// The stores made, counted for each test's dispatcher.
    package static let made = CountPerDispatcher()

    /// Tells instances apart even if an address is reused: unique within a dispatcher.
    package let serial: Int
    package let count: Constant<Int>
    private let _count = Variable(0)
    package let afterReduce = Locked<(@Sendable (Dispatcher.Counter) -> Void)?>(nil)

    package required init() {
        serial = CounterStore.made.increment()
        count = Constant(_count)
    }

    package func reduce(with state: Dispatcher.Counter) {
        switch state {
        case .increment: _count.value += 1
        case .add(let amount): _count.value += amount
        case .set(let value): _count.value = value
        }
        afterReduce.value?(state)
    }
}

package struct CounterAction: Actionable {
    package init() {}

    package typealias DispatchStateType = Dispatcher.Counter
}
