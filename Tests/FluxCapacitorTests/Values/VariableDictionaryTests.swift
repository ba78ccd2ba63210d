import Dispatch
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

struct Row: Identifiable, Codable, Equatable, Sendable {
    var id: Int
    var title: String
}

extension Dispatcher {
    enum Rows: DispatchState {
        typealias RelatedStoreType = RowsStore
        typealias RelatedActionType = RowsAction
        case add([Row])
        case rename(Int, String)
        case remove(Int)
        case removeAll
        /// Counts, in `mismatches`, a key listed without its row (reductions never overlap,
        /// so this sees the keys and the rows between two changes).
        case check(mismatches: Locked<Int>)
    }
}

final class RowsStore: Storable {
    typealias DispatchStateType = Dispatcher.Rows
    let rows: ConstantDictionary<Int, Row>
    private let _rows = VariableDictionary<Int, Row>()

    required init() {
        rows = ConstantDictionary(_rows)
    }

    func reduce(with state: Dispatcher.Rows) {
        switch state {
        case .add(let rows): _rows.append(contentsOf: rows)
        case .rename(let id, let title): _rows[id]?.title = title
        case .remove(let id): _rows[id] = nil
        case .removeAll: _rows.removeAll()
        case .check(let mismatches):
            if _rows.keys.value.contains(where: { _rows[$0] == nil }) {
                mismatches.withLock { $0 += 1 }
            }
        }
    }
}

struct RowsAction: Actionable { typealias DispatchStateType = Dispatcher.Rows }

private func rows(_ ids: Range<Int>) -> [Row] {
    ids.map { Row(id: $0, title: "row \($0)") }
}

@Suite("VariableDictionary: rows observed one at a time", .isolatedDispatcher)
struct VariableDictionaryTests {
    @Test(arguments: [1_000, 10_000])
    func aChangeOfOneRowReachesThatRowsObserversOnly(rowCount: Int) {
        let store = RowsStore.instantiate()
        RowsAction().invoke(.add(rows(0..<rowCount)))
        let calls = Locked([Int: [String]]())
        let buster = DustBuster()
        for id in store.rows.keys.value {
            store.rows.constant(for: id)?
                .observe(ignoreFirst: true) { row in calls.withLock { $0[row.id, default: []].append(row.title) } }
                .cleaned(by: buster)
        }
        let keyChanges = Locked(0)
        store.rows.keys.observe(ignoreFirst: true) { _ in keyChanges.withLock { $0 += 1 } }.cleaned(by: buster)

        RowsAction().invoke(.rename(rowCount / 2, "renamed"))

        #expect(calls.value == [rowCount / 2: ["renamed"]])
        #expect(keyChanges.value == 0)
        #expect(store.rows[rowCount / 2]?.title == "renamed")
    }

    @Test func keysKeepTheOrderTheyCameInAndChangeOnlyWhenARowComesOrGoes() {
        let store = RowsStore.instantiate()
        let seen = Locked<[[Int]]>([])
        let dust = store.rows.keys.observe { keys in seen.withLock { $0.append(keys) } }
        defer { dust.clean() }

        RowsAction().invoke(.add([Row(id: 3, title: "c"), Row(id: 1, title: "a")]))
        RowsAction().invoke(.add([Row(id: 3, title: "C"), Row(id: 2, title: "b")]))
        RowsAction().invoke(.rename(1, "A"))
        RowsAction().invoke(.remove(3))
        RowsAction().invoke(.remove(42))

        #expect(seen.value == [[], [3], [3, 1], [3, 1, 2], [1, 2]])
        #expect(store.rows.elements.map(\.value) == [Row(id: 1, title: "A"), Row(id: 2, title: "b")])
        #expect(store.rows.count == 2)
    }

    @Test func readingARowThroughObservationTracksThatRowAlone() {
        let store = RowsStore.instantiate()
        RowsAction().invoke(.add(rows(0..<3)))
        let fires = Locked<[String]>([])
        func track(_ id: Int, _ name: String) {
            withObservationTracking {
                _ = store.rows[id]
            } onChange: {
                fires.withLock { $0.append(name) }
            }
        }
        track(1, "row 1")

        RowsAction().invoke(.rename(2, "another row"))
        #expect(fires.value == [])
        RowsAction().invoke(.rename(1, "this row"))
        #expect(fires.value == ["row 1"])
        track(1, "row 1 again")
        RowsAction().invoke(.remove(1))
        #expect(fires.value == ["row 1", "row 1 again"])
        // A key that is not there tracks the keys: its row is drawn when the keys change.
        track(9, "row 9, not there yet")
        RowsAction().invoke(.rename(2, "another row again"))
        #expect(fires.value == ["row 1", "row 1 again"])
        RowsAction().invoke(.add([Row(id: 9, title: "nine")]))
        #expect(fires.value == ["row 1", "row 1 again", "row 9, not there yet"])
    }

    @Test func aRemovedRowsConstantKeepsItsLastValueAndAKeyInsertedAgainIsANewRow() throws {
        let store = RowsStore.instantiate()
        RowsAction().invoke(.add(rows(0..<2)))
        let old = try #require(store.rows.constant(for: 1))
        RowsAction().invoke(.remove(1))
        #expect(store.rows.constant(for: 1) == nil)
        RowsAction().invoke(.add([Row(id: 1, title: "back")]))
        #expect(old.value.title == "row 1")
        #expect(store.rows.constant(for: 1)?.value.title == "back")
        #expect(store.rows.keys.value == [0, 1])
    }

    @Test func aDictionaryEncodesInOrderAndDecodesToTheSameRows() throws {
        let rows = VariableDictionary([Row(id: 5, title: "five"), Row(id: 2, title: "two")])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(rows)
        #expect(String(decoding: data, as: UTF8.self) == #"[5,{"id":5,"title":"five"},2,{"id":2,"title":"two"}]"#)
        let decoded = try JSONDecoder().decode(VariableDictionary<Int, Row>.self, from: data)
        #expect(decoded.elements.map(\.value) == rows.elements.map(\.value))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(VariableDictionary<Int, Row>.self, from: Data("[1]".utf8))
        }
    }

    @Test func aRowChangedOutsideADispatchSetsAndRemovesAsADictionaryDoes() {
        let rows = VariableDictionary<Int, Row>()
        rows[1] = Row(id: 1, title: "one")
        rows[1]?.title = "uno"
        rows[2]?.title = "nobody"
        #expect(rows[1]?.title == "uno")
        #expect(rows[2] == nil)
        #expect(rows.removeValue(forKey: 1)?.title == "uno")
        #expect(rows.isEmpty)
        #expect(rows.description == "[:]")
    }

    @Test(arguments: [false, true])
    func rowsChangedFromManyThreadsLoseNoChangeAndKeysAlwaysMatchTheRows(onTheSharedDispatcher: Bool) {
        let dispatcher = onTheSharedDispatcher ? Dispatcher.shared : Dispatcher.current
        Dispatcher.withCurrent(dispatcher) {
            let store = RowsStore.instantiate()
            defer { store.clear() }
            RowsAction().invoke(.removeAll)
            let threads = 4
            let mismatches = Locked(0)
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                Thread {
                    Dispatcher.withCurrent(dispatcher) {
                        for step in 0..<500 {
                            let id = thread * 1_000 + step
                            RowsAction().invoke(.add([Row(id: id, title: "0")]))
                            RowsAction().invoke(.rename(id, "1"))
                            if step % 2 == 0 {
                                RowsAction().invoke(.remove(id))
                            }
                            RowsAction().invoke(.check(mismatches: mismatches))
                        }
                    }
                    group.leave()
                }.start()
            }
            group.wait()
            #expect(mismatches.value == 0)
            #expect(store.rows.count == threads * 250)
            #expect(store.rows.elements.allSatisfy { $0.value.title == "1" })
        }
    }
}
