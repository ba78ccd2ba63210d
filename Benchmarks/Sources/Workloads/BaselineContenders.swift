import Dispatch
import Foundation

/// The hand-written floor: what the same work costs in a final class holding the value and
/// an array of closures, with no locks, no registry and no ordering guarantees.
final class BaselineStore {
    enum Action: Codable {
        case increment
    }

    private(set) var count = 0
    private var observers: [(Int) -> Void] = []

    func observe(_ observer: @escaping (Int) -> Void) {
        observers.append(observer)
    }

    func reduce(_ action: Action) {
        switch action {
        case .increment:
            count += 1
            for observer in observers {
                observer(count)
            }
        }
    }

    func set(_ value: Int) {
        count = value
        for observer in observers {
            observer(value)
        }
    }
}

/// The hand-written action creator: it holds its store.
struct BaselineAction {
    let store: BaselineStore

    func invoke(_ action: BaselineStore.Action) {
        store.reduce(action)
    }
}

final class BaselineDispatch: Runner {
    private let store = BaselineStore()
    private let sink = Sink()
    private lazy var action = BaselineAction(store: store)

    init() {
        let sink = self.sink
        store.observe { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        let action = self.action
        for _ in 0..<iterations {
            action.invoke(.increment)
        }
    }

    var checksum: Int { sink.total }
}

/// The hand-written floor of a recorded dispatch: the dispatch, then the state encoded with
/// a `JSONEncoder` (as a recorder must encode it) and its line appended to a buffer under a
/// lock, on the dispatching thread.
final class BaselineRecordedDispatch: Runner {
    private let store = BaselineStore()
    private let sink = Sink()
    private lazy var action = BaselineAction(store: store)
    private let encoder = JSONEncoder()
    private let lock = NSLock()
    private var lines = Data()

    init() {
        let sink = self.sink
        store.observe { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        let action = self.action
        for _ in 0..<iterations {
            action.invoke(.increment)
            lock.lock()
            if let line = try? encoder.encode(BaselineStore.Action.increment) {
                lines.append(line)
                lines.append(0x0A)
            }
            lock.unlock()
        }
    }

    var checksum: Int { sink.total &+ lines.count }
}

final class BaselineSet: Runner {
    private let store = BaselineStore()
    private let sink = Sink()

    init() {
        let sink = self.sink
        store.observe { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            store.set(value)
        }
    }

    var checksum: Int { sink.total }
}

/// An array of closures called with each value, which nobody keeps.
final class BaselineSend: Runner {
    private var observers: [(Int) -> Void] = []
    private let sink = Sink()

    init(observers: Int) {
        let sink = self.sink
        self.observers = (0..<observers).map { _ in { sink.total &+= $0 } }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            for observer in observers {
                observer(value)
            }
        }
    }

    var checksum: Int { sink.total }
}

final class BaselineNotify: Runner {
    private let store = BaselineStore()
    private let sink = Sink()

    init(observers: Int) {
        let sink = self.sink
        for _ in 0..<observers {
            store.observe { sink.total &+= $0 }
        }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            store.set(value)
        }
    }

    var checksum: Int { sink.total }
}

/// Observers in a dictionary keyed by a counter: O(1) add and remove.
final class BaselineObserveClean: Runner {
    private var observersByKey: [Int: (Int) -> Void] = [:]
    private var nextKey = 0
    private var keys: [Int] = []
    private let observers: Int
    private var done = 0

    init(observers: Int) {
        self.observers = observers
        keys.reserveCapacity(observers)
    }

    func run(iterations: Int) {
        for _ in 0..<iterations {
            for _ in 0..<observers {
                nextKey &+= 1
                observersByKey[nextKey] = { _ in }
                keys.append(nextKey)
            }
            for key in keys {
                observersByKey[key] = nil
            }
            done &+= keys.count
            keys.removeAll(keepingCapacity: true)
        }
    }

    var checksum: Int { done }
}

/// A hand-written weak registry of `BaselineStore`s: a dictionary of weak boxes keyed by
/// type, under a lock (`BaselineInstantiate`, `BaselineStoreMemory`).
final class BaselineRegistry {
    private final class WeakBox {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    private let lock = NSLock()
    private var registry: [ObjectIdentifier: WeakBox] = [:]

    /// The live store, or a new one, registered.
    func instantiate() -> BaselineStore {
        lock.lock()
        defer { lock.unlock() }
        if let store = registry[ObjectIdentifier(BaselineStore.self)]?.object {
            return unsafeDowncast(store, to: BaselineStore.self)
        }
        let store = BaselineStore()
        registry[ObjectIdentifier(BaselineStore.self)] = WeakBox(store)
        return store
    }

    /// Unregisters the store.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        registry[ObjectIdentifier(BaselineStore.self)] = nil
    }
}

/// `instantiate()` of the hand-written weak registry's live store.
final class BaselineInstantiate: Runner {
    private let registry = BaselineRegistry()
    private let live: BaselineStore
    private var same = 0

    init() {
        live = registry.instantiate()
    }

    func run(iterations: Int) {
        for _ in 0..<iterations {
            if registry.instantiate() === live {
                same &+= 1
            }
        }
    }

    var checksum: Int { same }
}

/// The baseline store under a mutex, dispatched to from two threads.
final class BaselineContendedDispatch: Runner, @unchecked Sendable {
    // Sendable: `lock` guards `store`.
    private let store = BaselineStore()
    private let lock = NSLock()

    func run(iterations: Int) {
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<iterations / 2 {
                lock.lock()
                store.reduce(.increment)
                lock.unlock()
            }
        }
    }

    var checksum: Int { lock.withLock { store.count } }
}

/// A value whose observer sets a second, derived one, observed once: what `map` and a
/// combined value of one source do, with no locks.
final class BaselineDerivedSet: Runner {
    private let store = BaselineStore()
    private let derived = BaselineStore()
    private let sink = Sink()

    init() {
        let (sink, derived) = (self.sink, self.derived)
        store.observe { derived.set($0 &+ 1) }
        derived.observe { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            store.set(value)
        }
    }

    var checksum: Int { sink.total }
}
