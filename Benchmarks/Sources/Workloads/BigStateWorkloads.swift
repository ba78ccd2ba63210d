import FluxCapacitor

// Issue 39: one element written into a collection a store holds, at two sizes, so that
// `Benchmarks/instructions` shows whether a change costs the change or the size of the
// state (the 100,000-element row within 1.2× of the 1,000-element one).

extension Dispatcher {
    enum BigState: DispatchState {
        typealias RelatedStoreType = BigStateStore
        typealias RelatedActionType = BigStateAction
        /// Fills the array and the dictionary with `count` zeros (set-up, not measured).
        case fill(Int)
        case write(index: Int, value: Int)
        case writeByID(Int, Int)
    }
}

/// A store holding an array and a dictionary, changed in place in `reduce`, as the docs
/// show.
final class BigStateStore: Storable {
    typealias DispatchStateType = Dispatcher.BigState

    let items: Constant<[Int]>
    let byID: Constant<[Int: Int]>
    private let _items = Variable<[Int]>([])
    private let _byID = Variable<[Int: Int]>([:])

    required init() {
        items = Constant(_items)
        byID = Constant(_byID)
    }

    func reduce(with state: Dispatcher.BigState) {
        switch state {
        case .fill(let count):
            _items.value = Array(repeating: 0, count: count)
            _byID.value = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 0) })
        case .write(let index, let value): _items.value[index] = value
        case .writeByID(let key, let value): _byID.value[key] = value
        }
    }
}

struct BigStateAction: Actionable {
    typealias DispatchStateType = Dispatcher.BigState
}

/// `action.invoke(.write(index:value:))` → `reduce` → `_items.value[i] = x` (or
/// `_byID.value[k] = x`) in a collection of `count` elements, with one `.current` observer
/// of the collection.
final class FluxBigStateWrite: Runner {
    private let store = BigStateStore.instantiate()
    private let action = BigStateAction()
    private let sink = Sink()
    private let count: Int
    private let dictionary: Bool
    private var dust: Dust?

    init(count: Int, dictionary: Bool) {
        self.count = count
        self.dictionary = dictionary
        action.invoke(.fill(count))
        let sink = self.sink
        if dictionary {
            dust = store.byID.observe(ignoreFirst: true) { sink.total &+= $0.count }
        } else {
            dust = store.items.observe(ignoreFirst: true) { sink.total &+= $0.count }
        }
    }

    deinit { dust?.clean() }

    func run(iterations: Int) {
        var index = 0
        for value in 0..<iterations {
            if dictionary {
                action.invoke(.writeByID(index, value))
            } else {
                action.invoke(.write(index: index, value: value))
            }
            index += 1
            if index == count {
                index = 0
            }
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor: a final class holding the collection and an array of closures,
/// written in place, every observer called with it.
final class BaselineBigStateWrite: Runner {
    private var items: [Int]
    private var byID: [Int: Int]
    private var observers: [([Int]) -> Void] = []
    private var dictionaryObservers: [([Int: Int]) -> Void] = []
    private let sink = Sink()
    private let count: Int
    private let dictionary: Bool

    init(count: Int, dictionary: Bool) {
        self.count = count
        self.dictionary = dictionary
        items = Array(repeating: 0, count: count)
        byID = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, 0) })
        let sink = self.sink
        observers.append { sink.total &+= $0.count }
        dictionaryObservers.append { sink.total &+= $0.count }
    }

    @inline(never)
    private func write(_ index: Int, _ value: Int) {
        if dictionary {
            byID[index] = value
            for observer in dictionaryObservers {
                observer(byID)
            }
        } else {
            items[index] = value
            for observer in observers {
                observer(items)
            }
        }
    }

    func run(iterations: Int) {
        var index = 0
        for value in 0..<iterations {
            write(index, value)
            index += 1
            if index == count {
                index = 0
            }
        }
    }

    var checksum: Int { sink.total }
}
