import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
import Testing

@testable import FluxCapacitor

/// An object to scope observations to; its properties are set by observers.
final class Screen: @unchecked Sendable {
    // Sendable: `lock` guards `title` and `shown`.
    private let lock = Locked<(title: String, shown: [Int])>(("", []))
    let deinits: Locked<Int>

    init(deinits: Locked<Int> = Locked(0)) {
        self.deinits = deinits
    }

    deinit {
        deinits.withLock { $0 += 1 }
    }

    var title: String {
        get { lock.value.title }
        set { lock.withLock { $0.title = newValue } }
    }

    var shown: [Int] { lock.value.shown }

    func show(_ value: Int) {
        lock.withLock { $0.shown.append(value) }
    }
}

@Suite("Scoped observation and bindings", .isolatedDispatcher)
struct ScopedObservationTests {
    @Test func aScopedObserverGetsTheObjectWithEachValue() {
        let variable = Variable(0)
        let screen = Screen()
        variable.observe(on: .current, ignoreFirst: false, duringScopeOf: screen) { screen, value in
            screen.show(value)
        }
        variable.value = 1
        #expect(screen.shown == [0, 1])
    }

    @Test func aScopedObservationEndsWhenTheObjectGoes() {
        let variable = Variable(0)
        let deinits = Locked(0)
        let calls = Locked(0)
        do {
            let screen = Screen(deinits: deinits)
            variable.observe(on: .current, ignoreFirst: true, duringScopeOf: screen) { _, _ in
                calls.withLock { $0 += 1 }
            }
            variable.value = 1
        }
        #expect(deinits.value == 1, "the observation holds the object weakly")
        #expect(calls.value == 1)
        variable.value = 2
        #expect(calls.value == 1)
        #expect(variable.core.observerCount == 0, "released at the first change after the object went")
    }

    @Test func aScopedObservationCanEndSoonerThroughItsDust() {
        let variable = Variable(0)
        let screen = Screen()
        let dust = variable.observe(on: .current, ignoreFirst: true, duringScopeOf: screen) { screen, value in
            screen.show(value)
        }
        dust.clean()
        variable.value = 1
        #expect(screen.shown.isEmpty)
        #expect(variable.core.observerCount == 0)
    }

    @Test func bindSetsTheKeyPathNowAndOnEveryChange() {
        let count = Variable(3)
        let screen = Screen()
        count.map { "\($0) repositories" }.bind(to: screen, \.title, on: .current)
        #expect(screen.title == "3 repositories")
        count.value = 4
        #expect(screen.title == "4 repositories")
    }

    @Test func bindDeliversOnTheRequestedQueue() async throws {
        let queue = DispatchQueue(label: "binding")
        queue.setSpecific(key: QueueLabel.queueKey, value: "binding")
        let variable = Variable("first")
        let label = QueueLabel()
        variable.bind(to: label, \.text, on: .queue(queue))
        variable.value = "second"
        try await waitUntil { label.sets.count == 2 }
        #expect(label.sets.map(\.text) == ["first", "second"])
        #expect(label.sets.map(\.queue) == ["binding", "binding"])
    }

    @Test func aBindingEndsWhenTheObjectGoes() {
        let variable = Variable("a")
        let deinits = Locked(0)
        do {
            let screen = Screen(deinits: deinits)
            variable.bind(to: screen, \.title, on: .current)
        }
        #expect(deinits.value == 1)
        variable.value = "b"
        #expect(variable.core.observerCount == 0)
    }

    @Test @MainActor func aMainQueueObserverMayEnterTheMainActor() async {
        let variable = Variable(0)
        let model = MainActorModel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let dust = Locked<Dust?>(nil)
            dust.withLock {
                $0 = variable.observe(on: .main, ignoreFirst: true) { value in
                    MainActor.assumeIsolated {
                        model.values.append(value)
                    }
                    dust.value?.clean()
                    continuation.resume()
                }
            }
            DispatchQueue.global().async { variable.value = 7 }
        }
        #expect(model.values == [7])
    }

    @Test @MainActor func aMainActorObjectIsObservedOnTheMainActorForAsLongAsItLives() async throws {
        let variable = Variable(0)
        let deinits = Locked(0)
        var model: MainActorModel? = MainActorModel(deinits: deinits)
        variable.observe(ignoreFirst: false, duringScopeOf: model!) { model, value in
            model.values.append(value)
        }
        #expect(model?.values == [0], "the first value, at once on the main actor")
        DispatchQueue.global().async { variable.value = 1 }
        try await waitUntil { MainActor.assumeIsolated { model?.values == [0, 1] } }
        model = nil
        #expect(deinits.value == 1)
        variable.value = 2
        try await waitUntil { variable.core.observerCount == 0 }
    }

    @Test @MainActor func bindSetsAMainActorPropertyOnTheMainActor() async throws {
        let variable = Variable("first")
        let model = MainActorModel()
        variable.map { $0.uppercased() }.bind(to: model, \.title)
        #expect(model.title == "FIRST")
        DispatchQueue.global().async { variable.value = "second" }
        try await waitUntil { MainActor.assumeIsolated { model.title == "SECOND" } }
    }
}

/// A label that records each text it is given and the queue it was given on.
final class QueueLabel: @unchecked Sendable {
    // Sendable: `recorded` is a `Locked`.
    static let queueKey = DispatchSpecificKey<String>()
    private let recorded = Locked<[(text: String, queue: String?)]>([])

    var text: String {
        get { recorded.value.last?.text ?? "" }
        set { recorded.withLock { $0.append((newValue, DispatchQueue.getSpecific(key: Self.queueKey))) } }
    }

    var sets: [(text: String, queue: String?)] { recorded.value }
}

@MainActor
final class MainActorModel {
    var values: [Int] = []
    var title = ""
    let deinits: Locked<Int>

    init(deinits: Locked<Int> = Locked(0)) {
        self.deinits = deinits
    }

    isolated deinit {
        deinits.withLock { $0 += 1 }
    }
}
