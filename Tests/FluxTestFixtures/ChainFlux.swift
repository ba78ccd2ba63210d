package import FluxCapacitor

/// A payload whose release the tests can see.
package struct Payload: @unchecked Sendable {
    // Sendable: the object is only read (its deinit counts), never mutated.
    package let object: Tracked

    package init(object: Tracked) {
        self.object = object
    }
}

extension Dispatcher {
    package enum Chain: DispatchState {
        package typealias RelatedStoreType = ChainStore
        package typealias RelatedActionType = ChainAction
        case step(Int)
        case carry(Payload)
    }
}

/// A store that dispatches from its own `reduce`, counting down.
package final class ChainStore: Storable {
    package typealias DispatchStateType = Dispatcher.Chain
    package let steps = Variable(0)
    package let depth = Variable(0)
    package let maxDepth = Variable(0)
    package required init() {}
    package func reduce(with state: Dispatcher.Chain) {
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

package struct ChainAction: Actionable {
    package typealias DispatchStateType = Dispatcher.Chain

    package init() {}
}
