import Dispatch
import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

extension Dispatcher {
    enum Counter: DispatchState, Codable {
        typealias RelatedStoreType = CounterStore
        typealias RelatedActionType = CounterAction
        case increment
    }
}

final class CounterStore: Storable {
    typealias DispatchStateType = Dispatcher.Counter

    let count: Constant<Int>
    private let _count = Variable(0)

    required init() {
        count = Constant(_count)
    }

    func reduce(with state: Dispatcher.Counter) {
        switch state {
        case .increment: _count.value += 1
        }
    }
}

struct CounterAction: Actionable {
    typealias DispatchStateType = Dispatcher.Counter
}

/// `action.invoke(.increment)` → `reduce` → `Variable += 1` → one `.current` observer.
///
/// With `readThroughValue`, the value was read through `.value` once, as a SwiftUI body or
/// an `@Observable` model does, so each change also tells its Observation registrar
/// (nothing tracks it while it is measured).
///
/// With `logging`, a dispatch-log subscriber that does nothing
/// (`Dispatcher.observeDispatches`): the path every dispatch-log subscriber takes.
///
/// With `recording`, a `DispatchFileRecorder` records `Dispatcher.Counter` to a temporary
/// file, with a buffer that holds every state of the longest run, so that none is dropped
/// (`settle()` stops the program if one was: the figure would be of drops). The recorder's
/// queue encodes and writes beside the dispatching thread; `countsWholeProcess` workloads
/// count it too.
final class FluxDispatch: Runner {
    private let store = CounterStore.instantiate()
    private let action = CounterAction()
    private let sink = Sink()
    private var dust: Dust?
    private var log: Dust?
    private var recorder: DispatchFileRecorder?
    private var file: URL?

    init(readThroughValue: Bool = false, logging: Bool = false, recording: Bool = false) {
        let sink = self.sink
        dust = store.count.observe(ignoreFirst: true) { sink.total &+= $0 }
        if readThroughValue {
            sink.total &+= store.count.value
        }
        if logging {
            log = Dispatcher.current.observeDispatches { _ in }
        }
        if recording {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "flux-benchmark-\(UUID().uuidString).jsonl")
            self.file = file
            do {
                recorder = try DispatchFileRecorder(
                    writingTo: file, recording: [.state(Dispatcher.Counter.self)], bufferCapacity: 1 << 17)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                exit(1)
            }
        }
    }

    deinit {
        dust?.clean()
        log?.clean()
        if let recorder, let file {
            recorder.stop()
            try? FileManager.default.removeItem(at: file)
        }
    }

    func run(iterations: Int) {
        for _ in 0..<iterations {
            action.invoke(.increment)
        }
        dispatched += iterations
    }

    private var dispatched = 0

    func settle() {
        guard let recorder else { return }
        recorder.flush()
        let statistics = recorder.statistics
        guard statistics.droppedWhileBehind == 0, statistics.recorded == dispatched else {
            FileHandle.standardError.write(
                Data(
                    ("error: the recorder recorded \(statistics.recorded) of \(dispatched) dispatches "
                        + "(\(statistics.droppedWhileBehind) dropped while behind): the figure would not be of recorded "
                        + "dispatches\n").utf8))
            exit(1)
        }
    }

    var checksum: Int { sink.total }
}

/// `variable.value = n` with one `.current` observer; `readThroughValue` as for
/// `FluxDispatch`.
final class FluxSet: Runner {
    private let variable = Variable(0)
    private let sink = Sink()
    private var dust: Dust?

    init(readThroughValue: Bool = false) {
        let sink = self.sink
        dust = variable.observe(ignoreFirst: true) { sink.total &+= $0 }
        if readThroughValue {
            sink.total &+= variable.value
        }
    }

    deinit { dust?.clean() }

    func run(iterations: Int) {
        for value in 0..<iterations {
            variable.value = value
        }
    }

    var checksum: Int { sink.total }
}

/// `sink.send(n)` to `observers` `.current` observers of its signal. (`FluxCapacitor.Sink`:
/// this module's `Sink` is where observers put what they receive.)
final class FluxSend: Runner {
    private let events = FluxCapacitor.Sink<Int>()
    private let sink = Sink()
    private var dusts: [Dust] = []

    init(observers: Int) {
        let sink = self.sink
        dusts = (0..<observers).map { _ in events.signal.observe { sink.total &+= $0 } }
    }

    deinit { dusts.forEach { $0.clean() } }

    func run(iterations: Int) {
        for value in 0..<iterations {
            events.send(value)
        }
    }

    var checksum: Int { sink.total }
}

/// One change delivered to many `.current` observers.
final class FluxNotify: Runner {
    private let variable = Variable(0)
    private let sink = Sink()
    private var dusts: [Dust] = []

    init(observers: Int) {
        let sink = self.sink
        dusts = (0..<observers).map { _ in variable.observe { sink.total &+= $0 } }
    }

    deinit { dusts.forEach { $0.clean() } }

    func run(iterations: Int) {
        for value in 0..<iterations {
            variable.value = value
        }
    }

    var checksum: Int { sink.total }
}

/// Observe `observers` times (with a closure literal, as users write), then clean every
/// dust, oldest first.
final class FluxObserveClean: Runner {
    private let variable = Variable(0)
    private let observers: Int
    private var dusts: [Dust] = []
    private var done = 0

    init(observers: Int) {
        self.observers = observers
        dusts.reserveCapacity(observers)
    }

    func run(iterations: Int) {
        for _ in 0..<iterations {
            for _ in 0..<observers {
                dusts.append(variable.observe { _ in })
            }
            for dust in dusts {
                dust.clean()
            }
            done &+= dusts.count
            dusts.removeAll(keepingCapacity: true)
        }
    }

    var checksum: Int { done }
}

/// `instantiate()` while an instance is alive.
final class FluxInstantiate: Runner {
    private let live = CounterStore.instantiate()
    private var same = 0

    func run(iterations: Int) {
        for _ in 0..<iterations {
            if CounterStore.instantiate() === live {
                same &+= 1
            }
        }
    }

    var checksum: Int { same }
}

/// Two threads dispatching to the same store.
final class FluxContendedDispatch: Runner {
    private let store = CounterStore.instantiate()

    func run(iterations: Int) {
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let action = CounterAction()
            for _ in 0..<iterations / 2 {
                action.invoke(.increment)
            }
        }
    }

    var checksum: Int { store.count.value }
}

/// `variable.value = n` with one `.current` observer of a value derived from `variable`
/// (`variable.map { $0 &+ 1 }`, or `Constant(combining: variable) { $0 &+ 1 }`: a combined
/// value of one source, set outside any dispatch, so each set reads the source holding the
/// dispatcher's mutex, as a combined value of several sources does): the cost of a derived
/// value.
final class FluxDerivedValue: Runner {
    private let variable = Variable(0)
    private let derived: Constant<Int>
    private let sink = Sink()
    private var dust: Dust?

    /// Through `variable.map { $0 &+ 1 }`.
    static func mapped() -> FluxDerivedValue {
        FluxDerivedValue { $0.map { $0 &+ 1 } }
    }

    /// Through `Constant(combining: variable) { $0 &+ 1 }`.
    static func combined() -> FluxDerivedValue {
        FluxDerivedValue { Constant(combining: $0) { $0 &+ 1 } }
    }

    private init(_ derive: (Variable<Int>) -> Constant<Int>) {
        let sink = self.sink
        derived = derive(variable)
        dust = derived.observe(ignoreFirst: true) { sink.total &+= $0 }
    }

    deinit { dust?.clean() }

    func run(iterations: Int) {
        for value in 0..<iterations {
            variable.value = value
        }
    }

    var checksum: Int { sink.total }
}
