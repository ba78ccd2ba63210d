/// A value that actions dispatch and one store reduces: the "action" of Flux.
///
/// A dispatch state ties one store type to one action type. Nest it in an extension of
/// ``Dispatcher`` and list what can happen as cases:
///
/// ```swift
/// extension Dispatcher {
///     enum Repository: DispatchState, Equatable {
///         typealias RelatedStoreType = RepositoryStore
///         typealias RelatedActionType = RepositoryAction
///
///         case isRepositoryFetching(Bool)
///         case addRepositories([GitHub.Repository])
///         case removeAllRepositories
///     }
/// }
/// ```
///
/// Inside `extension Dispatcher`, `Repository` means `Dispatcher.Repository` itself: name
/// your model types with a namespace (`GitHub.Repository`) or a prefix to avoid the clash.
///
/// The routing is checked by the compiler: `RelatedStoreType` must name this type as its
/// ``Storable/DispatchStateType``, and `RelatedActionType` must name it as its
/// ``Actionable/DispatchStateType``, so a state can only ever reach the store that reduces it.
///
/// A dispatch state is reduced on the thread that invokes it, so it needs not be `Sendable`
/// unless your own code sends it elsewhere.
public protocol DispatchState {
    /// The store that reduces this state.
    associatedtype RelatedStoreType: Storable where RelatedStoreType.DispatchStateType == Self
    /// The action that invokes this state.
    associatedtype RelatedActionType: Actionable where RelatedActionType.DispatchStateType == Self
}
