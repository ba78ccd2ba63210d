import Dispatch
import FluxCapacitor
import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
import Testing

@Suite("FluxCapacitorTesting and the printed log", .isolatedDispatcher)
struct TestingHelpersTests {
    @Test func printDispatchesWritesOneReadableLinePerDispatch() {
        let lines = Locked<[String]>([])
        let logging = Dispatcher.current.printDispatches { line in lines.withLock { $0.append(line) } }
        CounterAction().invoke(.increment)
        let store = CounterStore.instantiate()
        CounterAction().invoke(.add(2))
        logging.clean()
        CounterAction().invoke(.add(3))

        #expect(
            lines.value == [
                "FluxCapacitor: Dispatcher.Counter.increment dropped: no live CounterStore",
                "FluxCapacitor: Dispatcher.Counter.add(2) → CounterStore",
            ])
        #expect(store.count.value == 5)
    }

    @Test func printDispatchesShortensLongStates() {
        let lines = Locked<[String]>([])
        let logging = Dispatcher.current.printDispatches(limit: 24) { line in lines.withLock { $0.append(line) } }
        defer { logging.clean() }
        CounterAction().invoke(.set(123_456_789))
        #expect(lines.value == ["FluxCapacitor: Dispatcher.Counter.set(… dropped: no live CounterStore"])
    }

    @Test func aDispatchRecorderRecordsStatesInOrderWhetherOrNotAStoreReceivedThem() {
        let recorder = DispatchRecorder()
        CounterAction().invoke(.increment)
        let store = CounterStore.instantiate()
        CounterAction().invoke(.add(2))
        ChainAction().invoke(.step(0))

        #expect(recorder.states(of: Dispatcher.Counter.self) == [.increment, .add(2)])
        #expect(recorder.entries.map(\.phase) == [.droppedWithoutStore, .didReduce, .droppedWithoutStore])
        #expect(recorder.entries.map { "\($0.storeType)" } == ["CounterStore", "CounterStore", "ChainStore"])

        recorder.removeAll()
        CounterAction().invoke(.set(7))
        recorder.stop()
        CounterAction().invoke(.set(8))
        #expect(recorder.states(of: Dispatcher.Counter.self) == [.set(7)])
        #expect(store.count.value == 8)
    }

    @Test func aValueRecorderStartsWithTheCurrentValueAndRecordsEachChange() {
        let variable = Variable(1)
        let recorder = ValueRecorder(variable)
        let changesOnly = ValueRecorder(Constant(variable), ignoreFirst: true)
        variable.value = 2
        variable.value = 3
        recorder.stop()
        variable.value = 4
        #expect(recorder.values == [1, 2, 3])
        #expect(recorder.last == 3)
        #expect(changesOnly.values == [2, 3, 4])
    }

    @Test func aValueRecorderOfASignalRecordsWhatIsSentFromThenOn() async throws {
        let sink = Sink<Int>()
        sink.send(1)
        let recorder = ValueRecorder(sink.signal)
        sink.send(2)
        DispatchQueue.global().async { sink.send(3) }
        #expect(try await recorder.waitForValues(count: 2) == [2, 3])
        recorder.stop()
        sink.send(4)
        #expect(recorder.values == [2, 3])
    }

    @Test func waitingForValuesReturnsOnceTheyArriveFromAnotherThread() async throws {
        let variable = Variable(0)
        let recorder = ValueRecorder(variable)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
            variable.value = 1
            variable.value = 2
        }
        // The timeout only bounds a failing run: no deadline a loaded machine could miss.
        #expect(try await recorder.waitForValues(count: 3, timeout: .seconds(600)) == [0, 1, 2])
    }

    @Test func waitingForValuesThatNeverComeThrowsWhatCame() async {
        let recorder = ValueRecorder(Variable("only"))
        let error = await #expect(throws: ValueRecorder<String>.Timeout.self) {
            try await recorder.waitForValues(count: 2, timeout: .milliseconds(20))
        }
        #expect(error?.recorded == ["only"])
        #expect(error?.description == "waited for 2 values, got 1: [\"only\"]")
    }
}
