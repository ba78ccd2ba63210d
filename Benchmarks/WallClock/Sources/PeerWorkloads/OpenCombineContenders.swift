import Dispatch
import OpenCombine
import Workloads

/// `CurrentValueSubject.send` with one subscriber.
final class CombineSend: Runner {
    private let subject = CurrentValueSubject<Int, Never>(0)
    private let sink = Sink()
    private var cancellable: AnyCancellable?

    init() {
        let sink = self.sink
        cancellable = subject.sink { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            subject.send(value)
        }
    }

    var checksum: Int { sink.total }
}

/// `PassthroughSubject.send` (which keeps no value) to `observers` subscribers.
final class CombinePassthroughSend: Runner {
    private let subject = PassthroughSubject<Int, Never>()
    private let sink = Sink()
    private var cancellables: [AnyCancellable] = []

    init(observers: Int) {
        let sink = self.sink
        cancellables = (0..<observers).map { _ in subject.sink { sink.total &+= $0 } }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            subject.send(value)
        }
    }

    var checksum: Int { sink.total }
}

final class CombineNotify: Runner {
    private let subject = CurrentValueSubject<Int, Never>(0)
    private let sink = Sink()
    private var cancellables: [AnyCancellable] = []

    init(observers: Int) {
        let sink = self.sink
        cancellables = (0..<observers).map { _ in subject.sink { sink.total &+= $0 } }
    }

    func run(iterations: Int) {
        for value in 0..<iterations {
            subject.send(value)
        }
    }

    var checksum: Int { sink.total }
}

final class CombineObserveClean: Runner {
    private let subject = CurrentValueSubject<Int, Never>(0)
    private let observers: Int
    private var cancellables: [AnyCancellable] = []
    private var done = 0

    init(observers: Int) {
        self.observers = observers
        cancellables.reserveCapacity(observers)
    }

    func run(iterations: Int) {
        for _ in 0..<iterations {
            for _ in 0..<observers {
                cancellables.append(subject.sink { _ in })
            }
            for cancellable in cancellables {
                cancellable.cancel()
            }
            done &+= cancellables.count
            cancellables.removeAll(keepingCapacity: true)
        }
    }

    var checksum: Int { done }
}

/// Two threads sending to one subject.
final class CombineContendedSend: Runner, @unchecked Sendable {
    // Sendable: the subject serializes sends with its own lock; `sink` is written by the
    // subscriber, which the subject calls one at a time.
    private let subject = CurrentValueSubject<Int, Never>(0)
    private let sink = Sink()
    private var cancellable: AnyCancellable?

    init() {
        let sink = self.sink
        cancellable = subject.sink { sink.total &+= $0 }
    }

    func run(iterations: Int) {
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for value in 0..<iterations / 2 {
                subject.send(thread &+ value)
            }
        }
    }

    var checksum: Int { sink.total }
}
