import Dispatch
import FluxCapacitor
import Foundation

// Issue 34's paths where several things happen at once, counted single-threaded: a dispatch
// that changes two sources of a combined value, a set handed over to the round that runs
// (what a set from an observer does, and a set that stopped waiting for another thread's
// round), and a keyed task that replaces a running one.

// MARK: - A dispatch that changes two sources of a combined value

extension Dispatcher {
    enum CombinedPair: DispatchState {
        typealias RelatedStoreType = CombinedPairStore
        typealias RelatedActionType = CombinedPairAction
        case setBoth(Int)
    }
}

/// Two values one reduce sets, and their sum, combined in the store's `init` (so that it
/// belongs to the store's dispatcher).
final class CombinedPairStore: Storable {
    typealias DispatchStateType = Dispatcher.CombinedPair

    let sum: Constant<Int>
    private let left = Variable(0)
    private let right = Variable(0)

    required init() {
        sum = Constant(combining: left, right) { $0 &+ $1 }
    }

    func reduce(with state: Dispatcher.CombinedPair) {
        switch state {
        case .setBoth(let value):
            left.value = value
            right.value = value
        }
    }
}

struct CombinedPairAction: Actionable {
    typealias DispatchStateType = Dispatcher.CombinedPair
}

/// `invoke(.setBoth(n))`: the reduce sets both sources, the combined value changes once,
/// after the reduce, and its one `.current` observer hears it.
final class FluxCombinedDispatch: Runner {
    private let store = CombinedPairStore.instantiate()
    private let action = CombinedPairAction()
    private let sink = Sink()
    private var dust: Dust?

    init() {
        let sink = self.sink
        dust = store.sum.observe(ignoreFirst: true) { sink.total &+= $0 }
    }

    deinit { dust?.clean() }

    func run(iterations: Int) {
        for value in 0..<iterations {
            action.invoke(.setBoth(value))
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor: two values set, their sum computed once, one observer told.
final class BaselineCombinedDispatch: Runner {
    private final class Store {
        var left = 0
        var right = 0
        var sum = 0
        var observers: [(Int) -> Void] = []

        func setBoth(_ value: Int) {
            left = value
            right = value
            sum = left &+ right
            for observer in observers {
                observer(sum)
            }
        }
    }

    private let store = Store()
    private let sink = Sink()

    init() {
        let sink = self.sink
        store.observers.append { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            store.setBoth(value)
        }
    }

    var checksum: Int { sink.total }
}

// MARK: - A set handed over to the round that runs

/// `variable.value = 2n + 1`; its observer sets the even value after it, from inside the
/// round: that set is handed over (boxed, queued) and delivered by the same thread after
/// the first value. The path a set takes when it finds a round running, counted. One
/// operation is the outer set and the set it leads to.
final class FluxHandOverSet: Runner {
    private let variable = Variable(0)
    private let sink = Sink()
    private var dust: Dust?

    init() {
        let (sink, variable) = (self.sink, self.variable)
        dust = variable.observe(ignoreFirst: true) { value in
            sink.total &+= value
            if value & 1 == 1 {
                variable.value = value &+ 1
            }
        }
    }

    deinit { dust?.clean() }

    func run(iterations: Int) {
        for value in 0..<iterations {
            variable.value = value &* 2 &+ 1
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor: a value whose sets during a notification wait in a queue and are
/// delivered after it, in order.
final class BaselineHandOverSet: Runner {
    private var value = 0
    private var isDelivering = false
    private var waiting: [Int] = []
    private var observers: [(Int) -> Void] = []
    private let sink = Sink()

    init() {
        let sink = self.sink
        observers.append { [unowned self] value in
            sink.total &+= value
            if value & 1 == 1 {
                set(value &+ 1)
            }
        }
        waiting.reserveCapacity(4)
    }

    func set(_ newValue: Int) {
        value = newValue
        if isDelivering {
            waiting.append(newValue)
            return
        }
        isDelivering = true
        var next: Int? = newValue
        while let current = next {
            for observer in observers {
                observer(current)
            }
            next = waiting.isEmpty ? nil : waiting.removeFirst()
        }
        isDelivering = false
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            set(value &* 2 &+ 1)
        }
    }

    var checksum: Int { sink.total }
}

// MARK: - A keyed task that replaces a running one

/// `tasks.start("search") { … }` with `.cancelRunning`, each start replacing the one before:
/// heap allocations per start (`MemoryCounts`), the work's run included (each start waits
/// for its work to begin, then the next one replaces it).
final class FluxInFlightStarts: MemoryRunner {
    private let tasks = InFlightTasks<String>(policy: .cancelRunning)
    private let began = DispatchSemaphore(value: 0)
    private var last: InFlightTask?

    func prepare(count: Int) {
        add(count: 2)
    }

    func add(count: Int) {
        let began = self.began
        for _ in 0..<count {
            last = tasks.start("search") { _ in began.signal() }
            began.wait()
        }
    }
}

/// The hand-written floor: a locked `[String: Task]` that cancels the task it replaces.
final class BaselineTaskStarts: MemoryRunner, @unchecked Sendable {
    // Sendable: `lock` guards `running`.
    private let lock = NSLock()
    private var running: [String: Task<Void, Never>] = [:]
    private let began = DispatchSemaphore(value: 0)

    func prepare(count: Int) {
        running.reserveCapacity(4)
        add(count: 2)
    }

    func add(count: Int) {
        let began = self.began
        for _ in 0..<count {
            let replaced = lock.withLock {
                let replaced = running["search"]
                running["search"] = Task { began.signal() }
                return replaced
            }
            replaced?.cancel()
            began.wait()
        }
    }
}

// MARK: - One dispatch over many combined values (issue 40)

/// `invoke(.setBoth(n))` with `count` values combined from the store's sum (in the store's
/// dispatcher): one dispatch recomputes each once. Counted per combined value, so a row
/// at 20,000 within 1.2× of the row at 2,000 says the recomputations are linear (they were
/// quadratic: 2.2 ms at 2,000, 137 ms at 20,000).
final class FluxCombinedFanOut: Runner {
    private let store = CombinedPairStore.instantiate()
    private let action = CombinedPairAction()
    private let sink = Sink()
    private var combined: [Constant<Int>] = []
    private var dusts: [Dust] = []

    init(count: Int) {
        let sink = self.sink
        // In the current dispatcher, the store's.
        combined = (0..<count).map { index in Constant(combining: store.sum, store.sum) { $0 &+ $1 &+ index } }
        dusts = combined.map { $0.observe(ignoreFirst: true) { sink.total &+= $0 } }
    }

    deinit { dusts.forEach { $0.clean() } }

    func run(iterations: Int) {
        for value in 0..<iterations {
            action.invoke(.setBoth(value))
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor: `count` sums computed and each observer told, in a loop.
final class BaselineCombinedFanOut: Runner {
    private var values: [Int]
    private var observers: [(Int) -> Void] = []
    private let sink = Sink()

    init(count: Int) {
        values = Array(repeating: 0, count: count)
        let sink = self.sink
        observers = (0..<count).map { _ in { sink.total &+= $0 } }
    }

    @inline(never)
    private func set(_ value: Int) {
        for index in values.indices {
            values[index] = value &+ value &+ index
            observers[index](values[index])
        }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            set(value)
        }
    }

    var checksum: Int { sink.total }
}
