import FluxCapacitor
import Foundation
import Observation
import TestSupport
import Testing

@Suite("MIGRATION.md")
struct MigrationGuideTests {
    /// What a sample prints goes to `SampleOutput`, not the test log, and is what the
    /// guide's comment says: the current value first, then the change.
    @Test func theObserveSamplePrintsTheCurrentValueFirst() {
        #expect(SampleOutput.lines(printedBy: printsTheCurrentValueFirst) == ["0", "10"])
    }

    @Test func theMigratedSwiftUIViewModelIsTrackedWithoutCopies() {
        Dispatcher.withCurrent(Dispatcher()) {
            let viewModel = RepositoryListViewModel()
            let changed = ChangeCount()
            let names = withObservationTracking {
                viewModel.names
            } onChange: {
                changed.increment()
            }
            #expect(names.isEmpty)
            RepositoryAction().invoke(.addRepositories([GitHub.Repository(name: "FluxCapacitor")]))
            #expect(changed.count == 1)
            #expect(viewModel.names == ["FluxCapacitor"])
        }
    }

    @Test func theMigratedStoreReducesAsBefore() {
        Dispatcher.withCurrent(Dispatcher()) {
            let counter = RepositoryCounter()
            let store = RepositoryStore.instantiate()
            RepositoryAction().invoke(.addRepositories([GitHub.Repository(name: "FluxCapacitor")]))
            RepositoryAction().invoke(.isRepositoryFetching(true))
            #expect(store.repositories.value == [GitHub.Repository(name: "FluxCapacitor")])
            #expect(store.isRepositoryFetching.value)
            RepositoryAction().invoke(.removeAllRepositories)
            #expect(store.repositories.value.isEmpty)
            _ = counter
        }
    }

    @Test func aDispatchFromAnObserverRunsAfterIt() {
        Dispatcher.withCurrent(Dispatcher()) {
            let store = RepositoryStore.instantiate()
            let dustBuster = DustBuster()
            fetchWhenEmpty(store: store, action: RepositoryAction(), dustBuster: dustBuster)
            RepositoryAction().invoke(.removeAllRepositories)
            #expect(store.isRepositoryFetching.value)
        }
    }

    @Test func theSavedFavoriteIsAnEventSeenOnceAndNotKept() {
        Dispatcher.withCurrent(Dispatcher()) {
            let store = FavoriteStore.instantiate()
            let seen = SentValues<GitHub.Repository>()
            let dust = store.saved.observe { seen.append($0) }
            FavoriteAction().invoke(.add(GitHub.Repository(name: "FluxCapacitor")))
            dust.clean()
            let later = SentValues<GitHub.Repository>()
            let laterDust = store.saved.observe { later.append($0) }
            laterDust.clean()
            #expect(seen.values == [GitHub.Repository(name: "FluxCapacitor")])
            #expect(later.values.isEmpty, "nothing to reset: an observer that comes later sees nothing")
            let dustBuster = DustBuster()
            sayWhenSaved(in: store, dustBuster: dustBuster)
            #expect(dustBuster.count == 1)
        }
    }

    @Test func droppedDispatchesAreReported() {
        let dustBuster = DustBuster()
        reportDroppedDispatches(until: dustBuster)
        #expect(dustBuster.count == 1)
    }

    @Test func aFinalStoreReducesAndSharesCodeThroughAProtocol() {
        Dispatcher.withCurrent(Dispatcher()) {
            let store = TestStore.instantiate()
            #expect(store.isEmpty)
            TestAction().invoke(.increment)
            #expect(store.count.value == 1)
            #expect(!store.isEmpty)
        }
    }
}

/// Counts `onChange` calls.
final class ChangeCount: @unchecked Sendable {
    // Sendable: `lock` guards `stored`.
    private let lock = NSLock()
    private var stored = 0
    var count: Int { lock.withLock { stored } }
    func increment() { lock.withLock { stored += 1 } }
}
