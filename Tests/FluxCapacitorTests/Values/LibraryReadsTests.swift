import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

/// A value's cores, to check that none has an Observation bridge.
struct Cores {
    let cores: [(name: String, hasBridge: () -> Bool)]

    init(_ values: [(String, ObserverCore)]) {
        cores = values.map { name, core in (name, { core.hasObservationBridge }) }
    }

    var bridged: [String] {
        cores.filter { $0.hasBridge() }.map(\.name)
    }
}

/// Sets `source` inside `withObservationTracking` (so that whatever the library does on the
/// setting thread runs inside the tracking scope, as it would inside a SwiftUI `body` or
/// an `@Observable` model's method), then changes it twice outside; returns how often
/// `onChange` ran. A closure that only sets a value tracks nothing, so the answer must be 0.
func firesOfATrackerThatOnlySets(_ source: Variable<Int>, then settle: () async -> Void = {}) async -> Int {
    let fires = Locked(0)
    withObservationTracking {
        source.value = 1
    } onChange: {
        fires.withLock { $0 += 1 }
    }
    await settle()
    source.value = 2
    source.value = 3
    await settle()
    return fires.value
}

/// The library's own reads of a value (its derived values, bindings, async sequences,
/// recorders) take no part in Swift's Observation: only a read through the public `.value`
/// does. Otherwise a derived value would pay the registrar on every change, and a SwiftUI
/// view whose body only sets a value would be invalidated by its next change.
@Suite("The library's own reads take no part in Observation", .isolatedDispatcher)
struct LibraryReadsTests {
    @Test func mapReadsWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let derived = source.map { $0 * 2 }
        let dust = derived.observe { _ in }
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(Cores([("source", source.core), ("map", derived.core)]).bridged == [])
        dust.clean()
    }

    @Test func removeDuplicatesReadsWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let derived = source.removeDuplicates()
        let dust = derived.observe { _ in }
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(Cores([("source", source.core), ("removeDuplicates", derived.core)]).bridged == [])
        dust.clean()
    }

    @Test func removeDuplicatesByAPredicateReadsWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let derived = source.removeDuplicates { $0 / 2 == $1 / 2 }
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(Cores([("source", source.core), ("removeDuplicates(by:)", derived.core)]).bridged == [])
    }

    @Test func chainedDerivedValuesReadWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let deduplicated = source.map { $0 / 2 }.removeDuplicates()
        let chained = deduplicated.map { $0 + 1 }.removeDuplicates()
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(
            Cores([("source", source.core), ("first", deduplicated.core), ("chained", chained.core)]).bridged == [])
    }

    @Test func aConstantObservedReadsWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let constant = Constant(source)
        let seen = Locked<[Int]>([])
        let dust = constant.observe { value in seen.withLock { $0.append(value) } }
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(seen.value == [0, 1, 2, 3])
        #expect(Cores([("constant", constant.core)]).bridged == [])
        dust.clean()
    }

    @Test func bindReadsWithoutABridgeOrATrackedRead() async {
        final class Mirror: @unchecked Sendable {
            // Sendable: set only by the binding, on the setting thread, read after it.
            var value = 0
        }
        let source = Variable(0)
        let derived = source.removeDuplicates()
        let mirror = Mirror()
        derived.bind(to: mirror, \.value, on: .current)
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(mirror.value == 3)
        #expect(Cores([("source", source.core), ("removeDuplicates", derived.core)]).bridged == [])
    }

    @Test func valuesReadWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let derived = source.removeDuplicates()
        let values = derived.values
        let consumed = Task {
            var seen: [Int] = []
            for await value in values {
                seen.append(value)
                if value == 3 { break }
            }
            return seen
        }
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(await consumed.value.last == 3)
        #expect(Cores([("source", source.core), ("removeDuplicates", derived.core)]).bridged == [])
    }

    @Test func theTestingRecordersReadWithoutABridgeOrATrackedRead() async {
        let source = Variable(0)
        let derived = source.removeDuplicates()
        let recorder = ValueRecorder(derived)
        let tester = DispatchTester(of: Dispatcher.Counter.self)
        let tracked = tester.track(derived, named: "derived")
        #expect(await firesOfATrackerThatOnlySets(source) == 0)
        #expect(recorder.values == [0, 1, 2, 3])
        await tracked.receive(1)
        await tracked.receive(2)
        await tracked.receive(3)
        tester.assertAllReceived()
        recorder.stop()
        #expect(Cores([("source", source.core), ("removeDuplicates", derived.core)]).bridged == [])
    }

    @Test func signalsDerivedFromSignalsReadWithoutABridge() {
        let sink = Sink<Int>()
        let mapped = sink.signal.map { $0 * 2 }.filter { $0 > 0 }
        let fires = Locked(0)
        let dust = mapped.observe { _ in }
        withObservationTracking {
            sink.send(1)
        } onChange: {
            fires.withLock { $0 += 1 }
        }
        sink.send(2)
        #expect(fires.value == 0)
        #expect(Cores([("signal", sink.signal.core), ("mapped", mapped.core)]).bridged == [])
        dust.clean()
    }

    @Test func aReadThroughValueStillInstallsTheBridge() {
        // The other side of the rule: the public getters do take part.
        let source = Variable(0)
        let constant = Constant(source)
        _ = constant.value
        #expect(Cores([("source", source.core)]).bridged == ["source"])
    }
}

/// The rule above, held by the code's shape: only the public getters reach the read that
/// notes Observation, and only that read notes one.
@Suite("Only the public getters note a read for Observation")
struct ObservedReadCallersTests {
    /// Every Swift file of the three library targets, by path under Sources/.
    static func librarySources() throws -> [(path: String, text: String)] {
        // This file is Tests/FluxCapacitorTests/Values/LibraryReadsTests.swift.
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appending(path: "Sources")
        var files: [(String, String)] = []
        for target in ["FluxCapacitor", "FluxCapacitorPersistence", "FluxCapacitorTesting"] {
            let directory = sources.appending(path: target)
            let enumerator = try #require(FileManager.default.enumerator(atPath: directory.path))
            for case let path as String in enumerator where path.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appending(path: path), encoding: .utf8)
                files.append(("\(target)/\(path)", text))
            }
        }
        return files
    }

    /// The files whose code (not comments) calls `name`.
    static func callers(of name: String) throws -> [String] {
        try librarySources().filter { _, text in
            text.split(separator: "\n").contains { line in
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return code.contains("\(name)(") && !code.contains("func \(name)(")
            }
        }.map(\.path).sorted()
    }

    @Test func onlyThePublicGettersReadNotingObservation() throws {
        #expect(
            try Self.callers(of: "readNotingObservation") == [
                "FluxCapacitor/Constant.swift", "FluxCapacitor/ConstantDictionary.swift",
                // A dictionary's element: `ValueCore.readNotingObservation()`, for its getters.
                "FluxCapacitor/Internal/Observation/PrimitiveValue+ObservedRead.swift",
                "FluxCapacitor/PrimitiveDictionary.swift", "FluxCapacitor/Variable.swift",
                "FluxCapacitor/VariableDictionary.swift",
            ])
    }

    @Test func onlyTheGettersReadNotesTheRead() throws {
        #expect(
            try Self.callers(of: "noteReadLocked") == [
                "FluxCapacitor/Internal/Observation/PrimitiveValue+ObservedRead.swift"
            ])
    }
}
