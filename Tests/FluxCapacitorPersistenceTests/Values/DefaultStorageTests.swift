import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import Testing

/// A persisted value made with no storage of its own is saved to the default storage, or,
/// with none at all, says so: never silently unsaved.
@Suite("The default storage", .isolatedDispatcher)
struct DefaultStorageTests {
    @Test func aValueMadeWithNoStorageIsSavedToTheOneTheTestBinds() {
        let storage = InMemoryStorage(coalescingInterval: .zero)
        Persistence.withDefaultStorage(storage) {
            let variable = Variable(0, persistedAs: "count")
            variable.value = 3
            storage.flush()
        }
        #expect(storage.contents(of: "count") == Data("3".utf8))
    }

    /// The optional `in:` of 1.0's API, deprecated (the default storage is said one way,
    /// by leaving `in:` out), still compiles and keeps its meaning: `nil` is the default
    /// storage, a storage is that storage.
    @available(*, deprecated, message: "calls the deprecated optional 'in:' on purpose")
    @Test func theDeprecatedOptionalStorageSavesNilToTheDefaultAndAStorageThere() {
        let storage = InMemoryStorage(coalescingInterval: .zero)
        let own = InMemoryStorage(coalescingInterval: .zero)
        let nothing: (any PersistentStorage)? = nil
        let something: (any PersistentStorage)? = own
        let (unnamed, named) = Persistence.withDefaultStorage(storage) {
            (
                Variable([String](), persistedAs: "names", in: nothing),
                Variable([String](), persistedAs: "names", in: something)
            )
        }
        unnamed.value = ["marty"]
        named.value = ["doc"]
        storage.flush()
        own.flush()
        func names(in storage: InMemoryStorage) -> [String]? {
            storage.contents(of: "names").flatMap { try? JSONDecoder().decode([String].self, from: $0) }
        }
        #expect(names(in: storage) == ["marty"])
        #expect(names(in: own) == ["doc"])
    }

    @Test func theStorageIsTheOneBoundWhenTheValueIsMadeNotWhenItChanges() {
        let first = InMemoryStorage(coalescingInterval: .zero)
        let second = InMemoryStorage(coalescingInterval: .zero)
        let variable = Persistence.withDefaultStorage(first) { Variable(0, persistedAs: "count") }
        Persistence.withDefaultStorage(second) {
            variable.value = 1
        }
        first.flush()
        second.flush()
        #expect(first.contents(of: "count") == Data("1".utf8))
        #expect(second.contents(of: "count") == nil)
    }

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    /// The app sets its storage once; values made anywhere later (a detached task, another
    /// thread) use it. In a process of its own, which the setting is for.
    @Test func theAppsStorageSetAtLaunchSavesValuesMadeAnywhereLater() async {
        await #expect(processExitsWith: .success) {
            let storage = InMemoryStorage(coalescingInterval: .zero)
            Persistence.setDefaultStorage(storage)
            let variable = await Task.detached { Variable(0, persistedAs: "count") }.value
            variable.value = 7
            storage.flush()
            guard storage.contents(of: "count") == Data("7".utf8) else { exit(EXIT_FAILURE) }
        }
    }

    /// With no storage at all, the value works unsaved and says so on standard error, once
    /// per slot.
    @Test func aValueMadeWithNoStorageAtAllSaysSoOncePerSlot() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let first = Variable(0, persistedAs: "count")
            let second = Variable(0, persistedAs: "count")
            let other = Variable("", persistedAs: "name")
            first.value = 1
            guard first.value == 1, second.value == 0, other.value.isEmpty else { exit(EXIT_FAILURE) }
        }
        let warnings = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            .split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 2, "once per slot: \(warnings)")
        #expect(
            warnings.first
                == """
                warning: the value persisted as "count" was made with no storage, so its changes are not saved. \
                In an app, set the app's storage at launch, before making stores: \
                Persistence.setDefaultStorage(FileStorage.applicationSupport(named: "MyApp")). \
                In a test, make the store inside Persistence.withDefaultStorage(InMemoryStorage()) { … }.
                """)
    }

    /// In a test that the `.isolatedDispatcher` trait runs, the warning names the test and
    /// the fix for a test alone.
    @Test func aValueMadeWithNoStorageInATestNamesTheTestAndTheFixForTests() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // What the trait binds for each test it runs.
            RunningTest.$name.withValue("CounterTests/incrementing()") {
                _ = Variable(0, persistedAs: "count")
            }
        }
        let warnings = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            .split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(
            warnings
                == [
                    """
                    warning: the value persisted as "count" was made with no storage in the test \
                    “CounterTests/incrementing()”, so its changes are not saved. Give the test a storage of its \
                    own: make the store inside Persistence.withDefaultStorage(InMemoryStorage()) { … }.
                    """
                ])
    }
    #endif
}
