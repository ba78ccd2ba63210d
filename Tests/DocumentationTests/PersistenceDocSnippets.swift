// The code samples of the doc comments of Sources/FluxCapacitorPersistence
// (FileStorage, FileStorageError, InMemoryStorage, PersistenceError, PersistentStorage,
// Variable+Persistence), verbatim: DocumentationSampleTests checks that each sample
// appears here (or in another *Snippets.swift file). Samples that are tests run as tests,
// on an InMemoryStorage; samples that use `FileStorage.applicationSupport` (the user's
// real folders) or install signal handlers are compiled, never run. Edit the doc comment
// first, then copy the sample here.

import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing

// MARK: - What the samples assume

/// Tells the user the disk is full, in the samples.
func showDiskFullAlert() {
    print("The disk is full.")
}

extension Dispatcher {
    /// A problem to show the user, in the samples.
    enum Problem: DispatchState {
        typealias RelatedStoreType = ProblemStore
        typealias RelatedActionType = ProblemAction

        case show(String)
    }
}

/// The store of the problems shown, in the samples.
final class ProblemStore: Storable {
    typealias DispatchStateType = Dispatcher.Problem

    let shown = Variable<[String]>([])

    required init() {}

    func reduce(with state: Dispatcher.Problem) {
        switch state {
        case .show(let problem): shown.value.append(problem)
        }
    }
}

struct ProblemAction: Actionable {
    typealias DispatchStateType = Dispatcher.Problem
}

/// A stand-in for swift-log's `Logger`, in the samples (`nonisolated`, as swift-log's is,
/// also where code is on the main actor by default).
nonisolated struct Logger: Sendable {
    func error(_ message: String) {
        print("error:", message)
    }
}

// MARK: - PersistentStorage

func persistentStorageSample() {
    let storage = FileStorage.applicationSupport(named: "repository-search")
    let favorites = Variable<[GitHub.Repository]>(
        [], persistedAs: "favorites", in: storage)
    _ = favorites
}

func flushOnTerminationSample() {
    let storage = FileStorage.applicationSupport(named: "my-tool")
    // SIGINT and SIGTERM no longer lose the last change
    storage.flushOnTermination()
}

// MARK: - Variable+Persistence

/// The persisted store of `PrimitiveValue.init(_:persistedAs:in:)`. The sample declares its
/// own `FavoriteStore`, so it sits in a namespace whose `Dispatcher.Favorite` names it (the
/// target's `Dispatcher.Favorite` belongs to the unpersisted `FavoriteStore` of
/// CoreDocSnippets.swift); `storage` is the app's storage the sample assumes.
enum PersistedFavoritesSample {
    // `nonisolated`: read by a store's property initializer, which is nonisolated also
    // where code is on the main actor by default (see "Xcode 26 app targets").
    nonisolated static let storage = FileStorage.applicationSupport(named: "repository-search")

    enum Dispatcher {
        enum Favorite: DispatchState {
            typealias RelatedStoreType = FavoriteStore
            typealias RelatedActionType = FavoriteAction

            case add(GitHub.Repository)
        }
    }

    struct FavoriteAction: Actionable, Sendable {
        typealias DispatchStateType = Dispatcher.Favorite
    }

    final class FavoriteStore: Storable {
        typealias DispatchStateType = Dispatcher.Favorite

        let favorites: Constant<[GitHub.Repository]>
        private let _favorites = Variable<[GitHub.Repository]>(
            [], persistedAs: "favorites", in: storage)

        required init() {
            favorites = Constant(_favorites)
        }

        func reduce(with state: Dispatcher.Favorite) {
            switch state {
            case .add(let repository):
                _favorites.value.append(repository)
            }
        }
    }
}

// MARK: - FileStorage, FileStorageError

func fileStorageSample(temporaryDirectory: URL) {
    let storage = FileStorage.applicationSupport(named: "repository-search")
    let tests = FileStorage(
        directory: temporaryDirectory, coalescingInterval: .zero)
    _ = (storage, tests)
}

func fileStorageErrorSample(url: URL) {
    let storage = FileStorage(directory: url) { error in
        if let failure = error.underlyingError as? FileStorageError,
            failure.code == .ENOSPC
        {
            Task { @MainActor in showDiskFullAlert() }
        }
    }
    _ = storage
}

// PersistingValues.md: a report handler hops to a task before it dispatches.
func reportHandlerHopsToATaskSample() {
    let storage = FileStorage.applicationSupport(named: "MyApp") { error in
        Task { @MainActor in
            ProblemAction().invoke(.show(error.description))
        }
    }
    _ = storage
}

func fileStorageErrorUnderlyingErrorSample(failure: FileStorageError) {
    if case POSIXError.ENOSPC = failure.underlyingError { showDiskFullAlert() }
}

func fileStorageErrorInitSample(descriptor: Int32, path: String) throws {
    guard fsync(descriptor) == 0 else {
        throw FileStorageError(operation: "syncing", path: path)
    }
}

// MARK: - PersistenceError

func persistenceErrorSample(url: URL, logger: Logger) {
    let storage = FileStorage(directory: url) { error in logger.error("\(error)") }
    _ = storage
}

func persistenceErrorKindSample(error: PersistenceError) {
    switch error.kind {
    case .incompatible(let setAsideAs):
        print("kept the old data as \(setAsideAs ?? "nothing")")
    case .replacedChangedFile(let keptAs):
        print("another instance's version is kept as \(keptAs)")
    case .unreadable, .writeFailed: print(error)
    }
}

// MARK: - InMemoryStorage

@Test func aSecondVariableOfTheSlotStartsFromWhatTheFirstSaved() {
    let storage = InMemoryStorage()
    let first = Variable(0, persistedAs: "count", in: storage)
    first.value = 3
    storage.flush()
    let second = Variable(0, persistedAs: "count", in: storage)  // 3
    #expect(second.value == 3)
}

@Test func favoritesThatCannotBeDecodedAreKeptAside() {
    let storage = InMemoryStorage()
    storage.seed(Data("not json".utf8), in: "favorites")
    let favorites = Variable<[String]>(
        [], persistedAs: "favorites", in: storage)
    #expect(favorites.value == [])
    #expect(storage.contents(of: "favorites.corrupt") == Data("not json".utf8))
    #expect(
        storage.reportedErrors.map(\.kind)
            == [.incompatible(setAsideAs: "favorites.corrupt")])
}

@Test func aFullDiskIsReportedAndTheValueKeepsWorking() {
    let storage = InMemoryStorage()
    storage.failWrites(with: POSIXError(.ENOSPC))
    let count = Variable(0, persistedAs: "count", in: storage)
    count.value = 1
    storage.flush()
    #expect(count.value == 1)
    #expect(storage.reportedErrors.map(\.kind) == [.writeFailed])
}

// MARK: - Persistence (the default storage)

/// The store of `Persistence`'s samples, which persists in the default storage.
extension Dispatcher {
    enum Bookmark: DispatchState, Equatable {
        typealias RelatedStoreType = BookmarkStore
        typealias RelatedActionType = BookmarkAction

        case add(GitHub.Repository)
    }
}

struct BookmarkAction: Actionable, Sendable {
    typealias DispatchStateType = Dispatcher.Bookmark

    /// An action that adds a bookmark after a pause, for the async sample.
    func addLater(_ repository: GitHub.Repository) async {
        await Task.yield()
        invoke(.add(repository))
    }
}

final class BookmarkStore: Storable {
    typealias DispatchStateType = Dispatcher.Bookmark

    let bookmarks: Constant<[GitHub.Repository]>
    private let _bookmarks = Variable<[GitHub.Repository]>(
        [], persistedAs: "bookmarks")

    required init() {
        bookmarks = Constant(_bookmarks)
    }

    func reduce(with state: Dispatcher.Bookmark) {
        switch state {
        case .add(let repository): _bookmarks.value.append(repository)
        }
    }
}

/// Compiled, never run: it sets the process's default storage to the user's real folder.
func defaultStorageSetSample() {
    Persistence.setDefaultStorage(FileStorage.applicationSupport(named: "MyApp"))
}

@Suite("Persistence's samples", .isolatedDispatcher)
struct PersistenceSamples {
    @Test(.isolatedDispatcher) func aBookmarkIsSaved() {
        let storage = InMemoryStorage()
        Persistence.withDefaultStorage(storage) {
            let store = BookmarkStore.instantiate()
            BookmarkAction().invoke(.add(fluxCapacitor))
            storage.flush()
            #expect(store.bookmarks.value == [fluxCapacitor])
            #expect(storage.writeCount(of: "bookmarks") == 1)
        }
    }

    @Test func defaultStorageSample() {
        Persistence.withDefaultStorage(InMemoryStorage()) {
            if Persistence.defaultStorage == nil {
                print("the bookmarks will not be saved")
            }
            #expect(Persistence.defaultStorage != nil)
        }
    }

    @Test func withDefaultStorageSample() {
        let store = Persistence.withDefaultStorage(InMemoryStorage()) { BookmarkStore.instantiate() }
        Persistence.withDefaultStorage(InMemoryStorage()) {
            BookmarkAction().invoke(.add(fluxCapacitor))
        }
        #expect(store.bookmarks.value == [fluxCapacitor])
    }

    @Test func asyncWithDefaultStorageSample() async {
        let store = Persistence.withDefaultStorage(InMemoryStorage()) { BookmarkStore.instantiate() }
        await Persistence.withDefaultStorage(InMemoryStorage()) {
            await BookmarkAction().addLater(fluxCapacitor)
        }
        #expect(store.bookmarks.value == [fluxCapacitor])
    }
}
