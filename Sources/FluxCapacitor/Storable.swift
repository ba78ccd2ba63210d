/// A store: the only place where a part of the application state changes.
///
/// A store exposes its state as ``Constant``s backed by private ``Variable``s, and changes
/// them in ``reduce(with:)``, which the dispatcher calls for every dispatched
/// ``DispatchStateType``:
///
/// ```swift
/// final class RepositoryStore: Storable {
///     typealias DispatchStateType = Dispatcher.Repository
///
///     let isRepositoryFetching: Constant<Bool>
///     private let _isRepositoryFetching = Variable<Bool>(false)
///
///     let repositories: Constant<[GitHub.Repository]>
///     private let _repositories = Variable<[GitHub.Repository]>([])
///
///     required init() {
///         isRepositoryFetching = Constant(_isRepositoryFetching)
///         repositories = Constant(_repositories)
///     }
///
///     func reduce(with state: Dispatcher.Repository) {
///         switch state {
///         case .isRepositoryFetching(let value):
///             _isRepositoryFetching.value = value
///         case .addRepositories(let value):
///             _repositories.value.append(contentsOf: value)
///         case .removeAllRepositories:
///             _repositories.value.removeAll()
///         }
///     }
/// }
/// ```
///
/// Get the live instance with ``instantiate()``.
///
/// Rules the dispatcher keeps for you: reductions of one store never overlap, and they
/// run in the order the states were dispatched. A store is `Sendable` because any thread
/// may dispatch to it; keep its state in `Variable`s (which are thread-safe) rather than
/// in `var` properties.
public protocol Storable: AnyObject, Sendable {
    /// The state this store reduces.
    associatedtype DispatchStateType: DispatchState where DispatchStateType.RelatedStoreType == Self

    /// Makes an empty store. The dispatcher calls it from ``instantiate()``, holding the
    /// dispatcher as a dispatch does: `init()` may instantiate other stores, observe them
    /// and dispatch (what it dispatches is reduced once `init()` has returned and the store
    /// is registered), but must not wait for other threads that dispatch, and must not
    /// instantiate its own type (that would never end, and traps with a message that says
    /// so).
    init()

    /// Applies `state` to the store's values. Called by the dispatcher only, one call at a
    /// time per store, on the thread that invoked the state.
    func reduce(with state: DispatchStateType)
}

extension Storable {
    /// Returns the live instance of this store in ``Dispatcher/current``, or makes and
    /// registers a new one.
    ///
    /// The dispatcher holds stores weakly: the instance lives as long as somebody holds
    /// it. When the last reference goes, the store is freed, dispatches to it are dropped,
    /// and the next `instantiate()` makes a fresh one.
    ///
    /// Any number of threads may call it at once; they all get the same instance. A new
    /// store is made while no dispatch runs on another thread.
    ///
    /// ```swift
    /// final class RepositoryViewModel {
    ///     private let store: RepositoryStore
    ///
    ///     init(store: RepositoryStore = .instantiate()) {
    ///         self.store = store
    ///     }
    /// }
    /// ```
    ///
    /// - Returns: The live instance.
    @inlinable
    public static func instantiate() -> Self {
        Dispatcher.instantiateInCurrent(Self.self)
    }

    /// Unregisters this instance from ``Dispatcher/current``: later dispatches no longer
    /// reach it, and the next ``instantiate()`` makes a new store. Does nothing if another
    /// instance is registered.
    public func clear() {
        Dispatcher.current.registry.remove(self)
    }
}
