import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing

// Every public API of the three products that takes a closure, called as a user of the
// language mode writes it. Scripts/check-consumer builds this package in the Swift 5 and
// the Swift 6 language modes and fails on any warning, so a closure parameter that a
// Swift 5 caller is warned about (FluxCapacitor's rule: every escaping closure parameter
// is `@Sendable` or `@MainActor`, and the function that takes it is `@preconcurrency`)
// fails the check. When a public API gains a closure parameter, call it here.

/// A main-actor object that observations are scoped to and bindings write to.
@MainActor
final class Screen {
    var count = 0
}

/// A Sendable object for the observations scoped to any queue.
final class Log: Sendable {}

#if swift(>=6)
/// What a Swift 6 caller writes: closures that capture only what is Sendable.
@MainActor
func callEveryClosureTakingAPI(count: Variable<Int>, sink: Sink<Int>, directory: URL) async -> [String] {
    let seen = Seen()
    let screen = Screen()
    let log = Log()
    let buster = DustBuster()

    count.observe { seen.add("observe \($0)") }.cleaned(by: buster)
    count.observe(on: .current, duringScopeOf: log) { _, value in seen.add("scoped \(value)") }
    count.observe(duringScopeOf: screen) { screen, value in screen.count = value }
    count.map { "\($0)" }.observe { seen.add("map \($0)") }.cleaned(by: buster)
    count.map(String.init).observe { _ in }.cleaned(by: buster)
    count.removeDuplicates { $0 == $1 }.observe { seen.add("removeDuplicates \($0)") }.cleaned(by: buster)
    count.update { $0 += 1 }

    sink.signal.observe { seen.add("signal \($0)") }.cleaned(by: buster)
    sink.signal.observe(on: .current, duringScopeOf: log) { _, value in seen.add("signal scoped \(value)") }
    sink.signal.observe(duringScopeOf: screen) { screen, value in screen.count += value }
    sink.signal.map { $0 * 2 }.filter { $0 > 0 }.observe { seen.add("signal map \($0)") }.cleaned(by: buster)
    sink.send(1)

    Dust { seen.add("dust cleaned") }.cleaned(by: buster)
    Dispatcher.current.observeDispatches { _ in }.cleaned(by: buster)
    Dispatcher.current.printDispatches(to: { _ in }).cleaned(by: buster)
    Dispatcher.withCurrent(Dispatcher()) { seen.add("withCurrent") }
    await Dispatcher.withCurrent(Dispatcher()) { await Task.yield() }

    _ = FileStorage(directory: directory, onError: { seen.add("error \($0)") })
    _ = FileStorage.applicationSupport(named: "consumer-check", onError: { _ in })
    _ = IssueReporter(failure: { message, _ in seen.add(message) }, note: { _, _ in })

    buster.clean()
    return seen.lines
}
#else
/// What a Swift 5 caller writes, as FluxCapacitor 0.11's README did: closures that change
/// local variables, and functions passed where a closure goes.
@MainActor
func callEveryClosureTakingAPI(count: Variable<Int>, sink: Sink<Int>, directory: URL) async -> [String] {
    var lines: [String] = []
    // Changed by the closures whose calls the test does not list.
    var touched = 0
    let screen = Screen()
    let log = Log()
    let buster = DustBuster()

    count.observe { lines.append("observe \($0)") }.cleaned(by: buster)
    count.observe(on: .current, duringScopeOf: log) { _, value in lines.append("scoped \(value)") }
    count.observe(duringScopeOf: screen) { screen, value in
        screen.count = value
        touched += 1
    }
    count.map { value -> String in
        touched += 1
        return "\(value)"
    }
    .observe { lines.append("map \($0)") }.cleaned(by: buster)
    // Not `count.map(String.init)`: in the Swift 5 mode a function reference is not
    // Sendable unless the package enables the upcoming feature InferSendableFromCaptures
    // (SE-0418, on in the Swift 6 mode), and `@preconcurrency` does not quiet that warning.
    count.map { String($0) }.observe { _ in touched += 1 }.cleaned(by: buster)
    count.removeDuplicates {
        touched += 1
        return $0 == $1
    }
    .observe { lines.append("removeDuplicates \($0)") }.cleaned(by: buster)
    count.update {
        $0 += 1
        touched += 1
    }

    sink.signal.observe { lines.append("signal \($0)") }.cleaned(by: buster)
    sink.signal.observe(on: .current, duringScopeOf: log) { _, value in lines.append("signal scoped \(value)") }
    sink.signal.observe(duringScopeOf: screen) { screen, value in
        screen.count += value
        touched += 1
    }
    sink.signal.map { value -> Int in
        touched += 1
        return value * 2
    }
    .filter { value -> Bool in
        touched += 1
        return value > 0
    }
    .observe { lines.append("signal map \($0)") }.cleaned(by: buster)
    sink.send(1)

    Dust { lines.append("dust cleaned") }.cleaned(by: buster)
    Dispatcher.current.observeDispatches { _ in touched += 1 }.cleaned(by: buster)
    Dispatcher.current.printDispatches(to: { _ in touched += 1 }).cleaned(by: buster)
    Dispatcher.withCurrent(Dispatcher()) { lines.append("withCurrent") }
    await Dispatcher.withCurrent(Dispatcher()) {
        await Task.yield()
        touched += 1
    }

    _ = FileStorage(directory: directory, onError: { lines.append("error \($0)") })
    _ = FileStorage.applicationSupport(named: "consumer-check", onError: { _ in touched += 1 })
    _ = IssueReporter(failure: { message, _ in lines.append(message) }, note: { _, _ in touched += 1 })

    buster.clean()
    _ = touched
    return lines
}
#endif

/// Lines that Sendable closures add to, one at a time, from any thread (`nonisolated`: not
/// the main actor's, also where that is the default, as in an Xcode 26 app target).
nonisolated final class Seen: @unchecked Sendable {
    // Sendable: `lock` guards `storage`.
    private let lock = NSLock()
    private var storage: [String] = []

    func add(_ line: String) {
        lock.withLock { storage.append(line) }
    }

    var lines: [String] {
        lock.withLock { storage }
    }
}

@Suite(.isolatedDispatcher)
struct ClosureAPITests {
    @Test @MainActor func everyClosureTakingAPIRunsItsClosure() async {
        let lines = await callEveryClosureTakingAPI(
            count: Variable(0), sink: Sink(), directory: FileManager.default.temporaryDirectory)
        #expect(
            lines == [
                "observe 0", "scoped 0", "map 0", "removeDuplicates 0",
                "observe 1", "scoped 1", "map 1", "removeDuplicates 1",
                "signal 1", "signal scoped 1", "signal map 2",
                "withCurrent", "dust cleaned",
            ])
    }
}
