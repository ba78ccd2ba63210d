import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

extension Dispatcher {
    enum BigState: DispatchState {
        typealias RelatedStoreType = BigStateStore
        typealias RelatedActionType = BigStateAction
        case write(index: Int, value: Int)
        case append(Int)
        case writeByID(Int, Int)
        case removeOdd
        case incrementAll
    }
}

/// A store holding collections in copy-counting storage, changed in place in `reduce`, the
/// way the docs show (`_items.value[i] = x`, through `CopyCounting.change`).
final class BigStateStore: Storable {
    typealias DispatchStateType = Dispatcher.BigState
    let counter = CopyCounter()
    let items: Constant<CopyCounting<[Int]>>
    let byID: Constant<CopyCounting<[Int: Int]>>
    private let _items: Variable<CopyCounting<[Int]>>
    private let _byID: Variable<CopyCounting<[Int: Int]>>

    required init() {
        _items = Variable(CopyCounting(Array(repeating: 0, count: 1_000), counter: counter))
        _byID = Variable(CopyCounting(Dictionary(uniqueKeysWithValues: (0..<1_000).map { ($0, 0) }), counter: counter))
        items = Constant(_items)
        byID = Constant(_byID)
    }

    func reduce(with state: Dispatcher.BigState) {
        switch state {
        case .write(let index, let value): _items.value.change { $0[index] = value }
        case .append(let value): _items.value.change { $0.append(value) }
        case .writeByID(let key, let value): _byID.value.change { $0[key] = value }
        case .removeOdd: _items.value.change { $0.removeAll { $0 % 2 == 1 } }
        case .incrementAll:
            _items.value.change { items in
                for index in items.indices {
                    items[index] += 1
                }
            }
        }
    }
}

struct BigStateAction: Actionable { typealias DispatchStateType = Dispatcher.BigState }

/// What looks at the store's values while they change: each is a path of the library that
/// could keep a reference to a value, which would make the next change copy it whole.
enum LookingPath: String, CaseIterable, Sendable {
    case nothing, observerOnCurrent, observerWithFirstValue, observerOnAQueue, observationTracking
    case mapped, mappedWithoutDuplicates, combined
}

@Suite("Big state: a change in a reduce costs the change", .isolatedDispatcher)
struct BigStateTests {
    @Test(arguments: LookingPath.allCases)
    func aChangeInAReduceCopiesNoCollection(looking path: LookingPath) {
        let store = BigStateStore.instantiate()
        let queue = DispatchQueue(label: "BigStateTests.observer")
        let seen = Locked(0)
        var dust: [Dust] = []
        var derived: [AnyObject] = []
        switch path {
        case .nothing:
            break
        case .observerOnCurrent:
            dust.append(store.items.observe(ignoreFirst: true) { value in seen.withLock { $0 = value.base.count } })
        case .observerWithFirstValue:
            dust.append(store.items.observe { value in seen.withLock { $0 = value.base.count } })
        case .observerOnAQueue:
            dust.append(store.items.observe(on: .queue(queue)) { value in seen.withLock { $0 = value.base.count } })
        case .observationTracking:
            break
        case .mapped:
            let count = store.items.map { $0.base.count }
            dust.append(count.observe { value in seen.withLock { $0 = value } })
            derived.append(count)
        case .mappedWithoutDuplicates:
            let first = store.byID.map { $0.base[49] }.removeDuplicates()
            dust.append(first.observe { value in seen.withLock { $0 = value ?? -1 } })
            derived.append(first)
        case .combined:
            let total = Constant(combining: store.items, store.byID) { $0.base.count + $1.base.count }
            dust.append(total.observe { value in seen.withLock { $0 = value } })
            derived.append(total)
        }
        defer { dust.forEach { $0.clean() } }
        // An observer on a queue gets its first value there too.
        queue.sync {}

        for step in 0..<50 {
            if path == .observationTracking {
                // A SwiftUI body reads the values, and Observation tracks them, before each change.
                withObservationTracking {
                    _ = store.items.value.base.count
                    _ = store.byID.value.base.count
                } onChange: {
                }
            }
            for state: Dispatcher.BigState in [.write(index: step, value: step), .append(step), .writeByID(step, step)]
            {
                BigStateAction().invoke(state)
                // An observer on a queue gets each value on the queue: it holds the value
                // until it has run, and nothing after.
                queue.sync {}
            }
        }
        BigStateAction().invoke(.removeOdd)
        queue.sync {}

        #expect(store.counter.copies == 0, "\(path): \(store.counter.copies) whole copies")
        #expect(store.items.value.base.count == 1_000)
        #expect(store.byID.value.base[49] == 49)
        #expect(path == .nothing || path == .observationTracking || seen.value != 0)
    }

    @Test func aConsumedAsyncSequenceOfTheValueHoldsNoCopy() async {
        let store = BigStateStore.instantiate()
        var values = store.items.values.makeAsyncIterator()
        _ = await values.next()
        for step in 0..<20 {
            BigStateAction().invoke(.write(index: step, value: step + 1))
            let next = await values.next()
            #expect(next?.base[step] == step + 1)
        }
        #expect(store.counter.copies == 0)
    }

    @Test(arguments: [false, true])
    func changesInReducesOnManyThreadsLoseNothingAndCopyNothing(onTheSharedDispatcher: Bool) {
        let dispatcher = onTheSharedDispatcher ? Dispatcher.shared : Dispatcher.current
        Dispatcher.withCurrent(dispatcher) {
            let store = BigStateStore.instantiate()
            defer { store.clear() }
            let threads = 4
            let appends = 1_000
            onThreads(threads, in: dispatcher) { thread in
                for step in 0..<appends {
                    BigStateAction().invoke(.append(thread * appends + step))
                }
            }
            #expect(store.items.value.base.count == 1_000 + threads * appends)
            #expect(Set(store.items.value.base.dropFirst(1_000)).count == threads * appends)
            #expect(store.counter.copies == 0)
        }
    }

    @Test func readersOnOtherThreadsNeverSeeAChangeHalfwayDone() {
        let store = BigStateStore.instantiate()
        let done = Locked(false)
        let halfway = Locked(0)
        let reads = Locked(0)
        let dispatcher = Dispatcher.current
        onThreads(3, in: dispatcher) { thread in
            if thread == 0 {
                for _ in 0..<300 {
                    BigStateAction().invoke(.incrementAll)
                }
                done.withLock { $0 = true }
                return
            }
            repeat {
                let items = store.items.value.base
                if Set(items).count != 1 {
                    halfway.withLock { $0 += 1 }
                }
                reads.withLock { $0 += 1 }
            } while !done.value
        }
        #expect(halfway.value == 0)
        #expect(reads.value > 0)
        #expect(store.items.value.base.allSatisfy { $0 == 300 })
    }

    @Test func aValueChangedInPlaceByItsOwnObserverIsSeenInOrderOnce() {
        let items = Variable([0])
        let seen = Locked<[[Int]]>([])
        let dust = items.observe(ignoreFirst: true) { value in
            seen.withLock { $0.append(value) }
            if value.count < 4 {
                items.value.append(value.count)
            }
        }
        defer { dust.clean() }
        Dispatcher.current.withMutex {
            // Inside a dispatch: the in-place path.
            items.value.append(1)
        }
        #expect(seen.value == [[0, 1], [0, 1, 2], [0, 1, 2, 3]])
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test func twoInPlaceChangesNestedInADispatchStopWithAMessageThatNamesTheFix() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = Variable([1])
            let second = Variable([2])
            Dispatcher.shared.withMutex {
                swap(&first.value, &second.value)
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("was changed in place while another variable was being changed in place"))
        #expect(message.contains("let first = a.value; a.value = b.value; b.value = first"))
    }

    @Test func anInPlaceChangeInADispatchThatReadsItsOwnVariableStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let items = Variable([1, 2, 3])
            Dispatcher.shared.withMutex {
                items.value.removeAll { items.value.contains($0 + 1) }
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Variable<Array<Int>> was read, set or observed while its value was being changed"))
        #expect(message.contains("Read what the change needs into a local before the change"))
    }

    @Test func aDeinitDuringAnInPlaceChangeThatReadsTheVariableStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let items = Variable<[ReadingOnDeinit]>([])
            items.value = [ReadingOnDeinit(items)]
            Dispatcher.shared.withMutex {
                items.value.removeAll()
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the deinit of an element the change let go of"))
    }
    #endif
}

/// An element whose deinit reads the variable that holds it.
final class ReadingOnDeinit: Sendable {
    let variable: Variable<[ReadingOnDeinit]>

    init(_ variable: Variable<[ReadingOnDeinit]>) {
        self.variable = variable
    }

    deinit {
        _ = variable.value.count
    }
}

/// Runs `body` on `count` threads at once, each in `dispatcher`'s scope, and waits for all.
private func onThreads(_ count: Int, in dispatcher: Dispatcher, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for thread in 0..<count {
        group.enter()
        Thread {
            Dispatcher.withCurrent(dispatcher) { body(thread) }
            group.leave()
        }.start()
    }
    group.wait()
}
