/// A bag of ``Dust`` that cleans every dust it holds when ``clean()`` is called and when
/// the buster goes away.
///
/// Keep one per owner of observations (a view model, a service) so that its observations
/// end with it:
///
/// ```swift
/// @MainActor
/// final class RepositoryListViewModel {
///     private let dustBuster = DustBuster()
///     private(set) var names: [String] = []
///
///     init(store: RepositoryStore = .instantiate()) {
///         store.repositories
///             .observe(on: .main) { [weak self] repositories in
///                 // `.main` calls it on the main actor
///                 MainActor.assumeIsolated {
///                     self?.names = repositories.map(\.name)
///                 }
///             }
///             .cleaned(by: dustBuster)
///     }
/// }
/// ```
///
/// The buster holds each dust until it is cleaned, by the buster or on its own; a
/// cleaned dust is let go at once, so it does not keep what its observer captured alive.
/// It lets go of an ``InFlightTask`` once the task's work has returned uncancelled, and
/// does not take one whose work has returned. Cleaning the buster, or its going away,
/// cleans each dust as ``Dust/clean()`` does: it never waits for observers, but a task it
/// cancels waits for a dispatch of the task's work that another thread is reducing at
/// that moment (see <doc:ThreadingAndReentrancy>).
public final class DustBuster: @unchecked Sendable {
    // Sendable: `mutex` guards `dusts`.
    private let mutex = Lock.make(.dustBuster)
    private var dusts: [ObjectIdentifier: Dust] = [:]

    /// Makes an empty buster.
    public init() {}

    deinit {
        // Nobody else can reach `dusts` now: a dust's weak reference to a buster that is
        // going away reads as nil.
        for dust in dusts.values {
            dust.clean()
        }
    }

    /// Cleans every dust the buster holds and empties it. The buster can be used again.
    public func clean() {
        let dusts = mutex.withLock {
            let dusts = self.dusts
            self.dusts = [:]
            return dusts
        }
        for dust in dusts.values {
            dust.clean()
        }
    }

    /// The number of dusts the buster holds.
    public var count: Int {
        mutex.withLock { dusts.count }
    }

    func insert(_ dust: Dust) {
        mutex.withLock { dusts[ObjectIdentifier(dust)] = dust }
    }

    func remove(_ dust: Dust) {
        mutex.withLock { dusts[ObjectIdentifier(dust)] = nil }
    }
}
