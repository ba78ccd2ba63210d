import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitor

extension Dispatcher {
    enum Triple: DispatchState, Equatable {
        typealias RelatedStoreType = TripleStore
        typealias RelatedActionType = TripleAction

        /// Sets `x`, `y` and `z` to the same number, one after the other.
        case setAll(Int)
    }
}

/// Three values that one reduce sets to the same number, and a value combined from them
/// (made in the store's `init`, so it belongs to the store's dispatcher) and from a plain
/// `Variable` that threads set outside any dispatch.
final class TripleStore: Storable {
    typealias DispatchStateType = Dispatcher.Triple

    let x = Variable(0)
    let y = Variable(0)
    let z = Variable(0)
    /// Set outside any dispatch, by threads with and without a dispatcher scope.
    let plain = Variable(0)
    /// Whether `x`, `y` and `z` were equal, and `plain`, as the combined value read them.
    let allEqual: Constant<Bool>

    required init() {
        allEqual = Constant(combining: x, y, z, plain) { x, y, z, _ in x == y && y == z }
    }

    func reduce(with state: Dispatcher.Triple) {
        switch state {
        case .setAll(let value):
            x.value = value
            y.value = value
            z.value = value
        }
    }
}

struct TripleAction: Actionable {
    typealias DispatchStateType = Dispatcher.Triple
}

/// Counts the combinations of `store` that were halfway through a reduce (`x`, `y` and `z`
/// unequal), from the first value on.
private func countHalfway(of store: TripleStore) -> (halfway: Locked<Int>, heard: Locked<Int>, dust: Dust) {
    let halfway = Locked(0)
    let heard = Locked(0)
    let dust = store.allEqual.observe { allEqual in
        heard.withLock { $0 += 1 }
        if !allEqual {
            halfway.withLock { $0 += 1 }
        }
    }
    return (halfway, heard, dust)
}

/// Runs `body(index)` on `count` threads of their own, started together, with no dispatcher
/// scope (`Dispatcher.current` is `.shared` there), and waits for them.
private func onThreadsWithoutScope(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            start.wait()
            body(index)
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
}

@Suite("Combined values: never halfway, linear in the graph")
struct CombinedValuePromiseTests {
    /// Dispatches of a non-shared dispatcher (as in every test and preview) on two threads,
    /// and sets of a plain source on two threads with no scope (whose current dispatcher is
    /// `.shared`): no combination is ever read halfway through a reduce.
    @Test func aNonSharedDispatchersStoresAreNeverCombinedHalfwayThroughAReduce() {
        let dispatcher = Dispatcher()
        let store = Dispatcher.withCurrent(dispatcher) { TripleStore.instantiate() }
        let (halfway, heard, dust) = countHalfway(of: store)
        defer { dust.clean() }
        onThreadsWithoutScope(4) { thread in
            for step in 1...2_000 {
                if thread < 2 {
                    Dispatcher.withCurrent(dispatcher) { TripleAction().invoke(.setAll(thread * 10_000 + step)) }
                } else {
                    store.plain.value = thread * 10_000 + step
                }
            }
        }
        #expect(halfway.value == 0)
        #expect(heard.value > 1, "the changes were heard")
        #expect(store.allEqual.value)
    }

    /// Stores of two dispatchers, each dispatched inside its own scope on threads of its
    /// own, each with its combined value, and a set of a plain source from threads of the
    /// other dispatcher: neither is ever combined halfway through a reduce.
    @Test func storesOfTwoDispatchersAreNeverCombinedHalfwayThroughAReduce() {
        let first = Dispatcher()
        let second = Dispatcher()
        let firstStore = Dispatcher.withCurrent(first) { TripleStore.instantiate() }
        let secondStore = Dispatcher.withCurrent(second) { TripleStore.instantiate() }
        let (firstHalfway, _, firstDust) = countHalfway(of: firstStore)
        let (secondHalfway, _, secondDust) = countHalfway(of: secondStore)
        defer { [firstDust, secondDust].forEach { $0.clean() } }
        onThreadsWithoutScope(4) { thread in
            let (dispatcher, otherStore) = thread.isMultiple(of: 2) ? (first, secondStore) : (second, firstStore)
            for step in 1...2_000 {
                Dispatcher.withCurrent(dispatcher) {
                    TripleAction().invoke(.setAll(thread * 10_000 + step))
                    otherStore.plain.value = step
                }
            }
        }
        #expect(firstHalfway.value == 0)
        #expect(secondHalfway.value == 0)
        #expect(firstStore.allEqual.value && secondStore.allEqual.value)
    }

    /// A combined value made in the dispatcher whose dispatches change its sources (the fix
    /// the refusal below names), and a value combined from it: a dispatch updates both,
    /// each time, while another dispatcher's thread is current where they are observed.
    @Test func aValueCombinedInItsSourcesDispatcherFollowsEveryDispatch() {
        let owner = Dispatcher()
        let other = Dispatcher()
        let store = Dispatcher.withCurrent(other) { CounterStore.instantiate() }
        let (tenfold, plusOne) = Dispatcher.withCurrent(other) {
            let tenfold = Constant(combining: store.count, store.count) { count, _ in count * 10 }
            let plusOne = Constant(combining: tenfold, tenfold) { tenfold, _ in tenfold + 1 }
            return (tenfold, plusOne)
        }
        let heard = Locked<[Int]>([])
        let dust = Dispatcher.withCurrent(owner) {
            plusOne.observe(ignoreFirst: true) { value in heard.withLock { $0.append(value) } }
        }
        defer { dust.clean() }
        for count in 1...3 {
            Dispatcher.withCurrent(other) { CounterAction().invoke(.set(count)) }
            #expect(tenfold.value == count * 10)
            #expect(plusOne.value == count * 10 + 1, "after the dispatch setting \(count)")
        }
        #expect(heard.value == [11, 21, 31])
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    /// Issue 40's deadlock: a value combined in `first` from a store of `second`; a thread
    /// in a reduce of `first` dispatches to `second` while a dispatch of `second` sets the
    /// source. Recomputing would take `first` inside `second` while the other thread holds
    /// `first` and waits for `second`. The first change of the source in a dispatch of
    /// `second` stops the program instead, naming both dispatchers and the fix (in a child
    /// process, and for every interleaving: the refusal depends on where the change
    /// happens, not on timing).
    @Test func aValueCombinedFromAnotherDispatchersStoreStopsAtTheFirstChangeNamingTheFix() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = Dispatcher()
            let second = Dispatcher()
            let store = Dispatcher.withCurrent(second) { CounterStore.instantiate() }
            let combined = Dispatcher.withCurrent(first) {
                Constant(combining: store.count, store.count) { count, _ in count }
            }
            let otherDone = DispatchSemaphore(value: 0)
            let other = Thread {
                for count in 1...1_000 {
                    Dispatcher.withCurrent(second) { CounterAction().invoke(.set(count)) }
                }
                otherDone.signal()
            }
            other.start()
            for count in 1...1_000 {
                // As a reduce of `first` that dispatches to `second` would.
                first.withMutex {
                    Dispatcher.withCurrent(second) { CounterAction().invoke(.set(-count)) }
                }
            }
            // Whichever thread's dispatch comes first, the other thread's stops the program.
            otherDone.wait()
            withExtendedLifetime(combined) {}
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("Constant<Int>(combining:) belongs to the Dispatcher at"))
        #expect(said.contains("but its source 1, Variable<Int>, changed in a dispatch of the Dispatcher at"))
        #expect(said.contains("Dispatcher.withCurrent(thatDispatcher) { Constant(combining: …) }"))
    }

    /// Issue 40: a transform that sets one of its own sources (even to the value it has)
    /// recomputed itself forever; it stops at once, naming the value and the source, in
    /// every build.
    @Test func aTransformThatSetsItsOwnSourceStopsAtOnceNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let left = Variable(1)
            let right = Variable("a")
            let combined = Constant(combining: left, right) { number, _ in
                left.value = number
                return number
            }
            right.value = "b"
            withExtendedLifetime(combined) {}
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            said.contains("Constant<Int>(combining:) is a cycle: its transform changed its own source 1, Variable<Int>")
        )
    }
    #endif

    /// `c[k] = Constant(combining: c[k-1], c[k-2])`, 24 deep: one dispatch recomputes each
    /// combination once, lowest first, so each reads its sources' new values (a walk of
    /// every path would recompute the deepest ones thousands of times).
    @Test func aGraphOfCombinedValuesRecomputesEachOnceLowestFirst() {
        let dispatcher = Dispatcher()
        let store = Dispatcher.withCurrent(dispatcher) { CounterStore.instantiate() }
        let calls = Locked(0)
        let graph: [Constant<Int>] = Dispatcher.withCurrent(dispatcher) {
            var graph = [store.count, store.count.map { $0 }]
            for _ in 2..<26 {
                let (previous, beforeIt) = (graph[graph.count - 1], graph[graph.count - 2])
                graph.append(
                    Constant(combining: previous, beforeIt) { previous, beforeIt in
                        calls.withLock { $0 += 1 }
                        return previous + beforeIt
                    })
            }
            return graph
        }
        let deepest = Locked<[Int]>([])
        let dust = graph[graph.count - 1].observe(ignoreFirst: true) { value in deepest.withLock { $0.append(value) } }
        defer { dust.clean() }
        calls.withLock { $0 = 0 }
        Dispatcher.withCurrent(dispatcher) { CounterAction().invoke(.set(1)) }
        #expect(calls.value == 24, "each of the 24 combinations once")
        // c[0] = c[1] = n, c[k] = c[k-1] + c[k-2]: the 26th Fibonacci number times n.
        #expect(deepest.value == [121_393], "the deepest heard one change, with every source new")
    }
}
