public import FluxCapacitor

/// A payload whose release the tests can see.
public struct Payload: @unchecked Sendable {
    // Sendable: the object is only read (its deinit counts), never mutated.
    public let object: Tracked

    public init(object: Tracked) {
        self.object = object
    }
}

extension Dispatcher {
    public enum Chain: DispatchState {
        public typealias RelatedStoreType = ChainStore
        public typealias RelatedActionType = ChainAction
        case step(Int)
        case carry(Payload)
    }
}

/// A store that dispatches from its own `reduce`, counting down.
public final class ChainStore: Storable {
    public typealias DispatchStateType = Dispatcher.Chain
    public let steps = Variable(0)
    public let depth = Variable(0)
    public let maxDepth = Variable(0)
    public required init() {}
    public func reduce(with state: Dispatcher.Chain) {
        guard case .step(let remaining) = state else { return }
        depth.value += 1
        maxDepth.value = max(maxDepth.value, depth.value)
        steps.value += 1
        if remaining > 0 {
            ChainAction().invoke(.step(remaining - 1))
        }
        depth.value -= 1
    }
}

public struct ChainAction: Actionable {
    public typealias DispatchStateType = Dispatcher.Chain

    public init() {}
}
