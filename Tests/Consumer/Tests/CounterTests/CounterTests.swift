import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing

@testable import counter

/// Each test's stores save to a storage of its own, in memory.
@Suite(.isolatedDispatcher)
struct CounterTests {
    @Test func incrementingThreeTimesCountsThree() {
        let storage = InMemoryStorage()
        Persistence.withDefaultStorage(storage) {
            let store = CounterStore.instantiate()
            CounterAction().increment(times: 3)
            #expect(store.count.value == 3)
        }
        storage.flush()
        #expect(storage.contents(of: "count") == Data("3".utf8))
    }

    @Test func resetDispatchesResetAfterTheIncrements() {
        let recorder = DispatchRecorder()
        CounterAction().increment(times: 2)
        CounterAction().reset()
        #expect(recorder.states(of: Dispatcher.Counter.self) == [.increment, .increment, .reset])
    }

    @Test func everyChangeOfTheCountIsAsserted() async {
        await Persistence.withDefaultStorage(InMemoryStorage()) {
            let store = CounterStore.instantiate()
            let tester = DispatchTester(of: Dispatcher.Counter.self)
            let count = tester.track(store.count, named: "count")
            CounterAction().increment(times: 1)
            await tester.receive(.increment)
            await count.receive(1)
        }
    }

    @Test func buildsInTheLanguageModeTheCheckAskedFor() throws {
        let asked = try #require(ProcessInfo.processInfo.environment["CONSUMER_LANGUAGE_MODE"])
        #if swift(>=6)
        #expect(asked == "6")
        #else
        #expect(asked == "5")
        #endif
    }
}
