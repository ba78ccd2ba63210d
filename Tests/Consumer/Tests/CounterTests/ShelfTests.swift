import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing

@testable import counter

/// The app's own types at work: persisted, recorded and replayed, searched with an enum
/// id, combined, and tested exhaustively. On the main actor, where the app's types live in
/// an Xcode 26 app target.
@Suite(.isolatedDispatcher)
@MainActor
struct ShelfTests {
    let dune = Book(id: 1, title: "Dune")
    let emma = Book(id: 2, title: "Emma")

    @Test func addedBooksAreSavedAndCounted() async {
        let storage = InMemoryStorage()
        await Persistence.withDefaultStorage(storage) {
            let store = ShelfStore.instantiate()
            let tester = DispatchTester(of: Dispatcher.Shelf.self)
            let books = tester.track(store.books, named: "books")
            ShelfAction().add(dune)
            ShelfAction().add(emma)
            await tester.receive(.add(dune))
            await tester.receive(.add(emma))
            await books.receive([dune])
            await books.receive([dune, emma])
            #expect(store.summary.value == "2 books, 0 found")
        }
        storage.flush()
        let saved = try? JSONDecoder().decode([Book].self, from: storage.contents(of: "books") ?? Data())
        #expect(saved == [dune, emma])
    }

    @Test func aNewSearchCancelsTheOneRunning() async throws {
        await Persistence.withDefaultStorage(InMemoryStorage()) {
            let store = ShelfStore.instantiate()
            let action = ShelfAction()
            let first = action.search("Dune", in: [dune, emma], after: .seconds(3_600))
            let second = action.search("Emma", in: [dune, emma])
            await second?.waitUntilDone()
            await first?.waitUntilDone()
            #expect(first?.isCancelled == true)
            #expect(store.found.value == [emma])
            #expect(!action.searches.isRunning(.search))
        }
    }

    @Test func aRecordedSessionReplaysIntoFreshStores() throws {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("consumer-shelf-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Persistence.withDefaultStorage(InMemoryStorage()) {
            let recorder = try recordShelf(to: file)
            let store = ShelfStore.instantiate()
            ShelfAction().add(dune)
            ShelfAction().add(emma)
            recorder.stop()
            #expect(store.books.value.count == 2)
        }
        Persistence.withDefaultStorage(InMemoryStorage()) {
            Dispatcher.withCurrent(Dispatcher()) {
                let store = ShelfStore.instantiate()
                let replay = DispatchReplay(
                    contentsOf: file, decoding: [.state(Dispatcher.Shelf.self, named: "Shelf")])
                replay.replayAll()
                #expect(store.books.value == [dune, emma])
            }
        }
    }
}
