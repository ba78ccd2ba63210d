import FluxCapacitor
public import Testing

/// A Swift Testing trait that runs each test case with a new, empty `Dispatcher` as
/// `Dispatcher.current`, so tests that run in parallel never share stores.
///
/// ```swift
/// @Suite(.isolatedDispatcher)
/// struct RepositoryStoreTests {
///     @Test func addingRepositoriesAppendsThem() {
///         let store = RepositoryStore.instantiate()  // this test's own store
///         RepositoryAction(session: StubSession(found: []))
///             .invoke(.addRepositories([fluxCapacitor]))
///         #expect(store.repositories.value == [fluxCapacitor])
///     }
/// }
/// ```
///
/// On a suite it applies to every test in it, each test case getting its own dispatcher.
/// The scope carries to what the test runs synchronously, to child tasks and `Task { }`,
/// and to FluxCapacitor's own `.main`/`.queue` deliveries; see
/// `Dispatcher.withCurrent(_:operation:)` for what does not carry it.
public struct IsolatedDispatcherTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is attached to.
    public var isRecursive: Bool { true }

    /// Runs `function` with a new dispatcher as `Dispatcher.current` (and, for the
    /// messages of FluxCapacitorPersistence, knowing the test it runs).
    ///
    /// - Parameters:
    ///   - test: The test or suite the trait is attached to.
    ///   - testCase: The test case to run, or `nil` for a suite.
    ///   - function: The test case, run inside the new dispatcher's scope.
    /// - Throws: What `function` throws.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @concurrent @Sendable () async throws -> Void
    ) async throws {
        // The test's name too, for messages that name the fix that fits a test.
        try await RunningTest.$name.withValue(TestIdentity.name(of: test)) {
            try await Dispatcher.withCurrent(Dispatcher()) {
                try await function()
            }
        }
    }
}

extension Trait where Self == IsolatedDispatcherTrait {
    /// Runs each test case with a new, empty dispatcher of its own.
    ///
    /// Attach it to a test or to a suite (where it applies to every test in it, each test
    /// case getting a dispatcher of its own):
    ///
    /// ```swift
    /// @Test(.isolatedDispatcher) func addingAFavoriteAddsIt() async {
    ///     let tester = DispatchTester(of: Dispatcher.Favorite.self)
    ///     FavoriteAction().invoke(.add(fluxCapacitor))
    ///     await tester.receive(.add(fluxCapacitor))
    /// }
    /// ```
    ///
    /// Inside the test, `Dispatcher.current` is that dispatcher: `instantiate()`,
    /// `invoke(_:)` and `clear()` reach its registry, never `Dispatcher.shared` nor another
    /// test's, so tests that run in parallel (Swift Testing's default) never share stores.
    /// It is what `Dispatcher.shared.unregisterAll()` in a tear-down did for tests that ran
    /// one at a time. Code the test starts on threads of its own (`DispatchQueue.async`,
    /// `Task.detached`) is outside the scope: see `Dispatcher.withCurrent(_:operation:)`.
    public static var isolatedDispatcher: Self {
        IsolatedDispatcherTrait()
    }
}
