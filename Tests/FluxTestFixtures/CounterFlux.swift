public import FluxCapacitor
public import TestSupport

extension Dispatcher {
    public enum Counter: DispatchState, Equatable {
        public typealias RelatedStoreType = CounterStore
        public typealias RelatedActionType = CounterAction

        case increment
        case add(Int)
        case set(Int)
    }
}

/// A store for the tests: a count, plus a hook that runs after each reduction.
public final class CounterStore: Storable {
    public typealias DispatchStateType = Dispatcher.Counter

    /// The stores made, counted for each test's dispatcher.
    public static let made = CountPerDispatcher()

    /// Tells instances apart even if an address is reused: unique within a dispatcher.
    public let serial: Int
    public let count: Constant<Int>
    private let _count = Variable(0)
    public let afterReduce = Locked<(@Sendable (Dispatcher.Counter) -> Void)?>(nil)

    public required init() {
        serial = CounterStore.made.increment()
        count = Constant(_count)
    }

    public func reduce(with state: Dispatcher.Counter) {
        switch state {
        case .increment: _count.value += 1
        case .add(let amount): _count.value += amount
        case .set(let value): _count.value = value
        }
        afterReduce.value?(state)
    }
}

public struct CounterAction: Actionable {
    public init() {}

    public typealias DispatchStateType = Dispatcher.Counter
}
