/// Where events are sent: each value given to ``send(_:)`` reaches the observers of the
/// sink's ``signal`` that observe at that moment, and is not kept.
///
/// For what a store has to tell its screen that is not state ("the favorite was saved",
/// "show this alert"): kept in a ``Variable``, such an event would be replayed to every new
/// observer and would have to be reset by hand. A store holds its sink privately and
/// exposes the signal, as it does with a `Variable` and its ``Constant``:
///
/// ```swift
/// final class FavoriteStore: Storable {
///     typealias DispatchStateType = Dispatcher.Favorite
///
///     let favorites: Constant<[GitHub.Repository]>
///     private let _favorites = Variable<[GitHub.Repository]>([])
///
///     let saved: Signal<GitHub.Repository>
///     private let _saved = Sink<GitHub.Repository>()
///
///     required init() {
///         favorites = Constant(_favorites)
///         saved = _saved.signal
///     }
///
///     func reduce(with state: Dispatcher.Favorite) {
///         switch state {
///         case .add(let repository):
///             _favorites.value.append(repository)
///             _saved.send(repository)
///         }
///     }
/// }
/// ```
///
/// Sending is thread-safe, and gives the events the guarantees a `Variable`'s changes
/// have: see ``Signal``.
public final class Sink<Element: Sendable>: Sendable {
    @usableFromInline
    let core: DeliveryCore<Element>

    /// Makes a sink whose signal nobody observes yet.
    public init() {
        core = DeliveryCore()
    }

    /// Delivers `value` to every current observer of ``signal``, in the order they
    /// registered, on each one's queue; then lets go of it.
    ///
    /// - Parameter value: The event. Observers that register later never see it.
    ///
    /// `.current` observers have run when `send` returns. If another thread is delivering
    /// an event of this sink, `send` waits briefly for it to end; if it goes on (a slow
    /// observer), that thread takes `value` and delivers it after the current one, and
    /// `send` returns at once (see <doc:ThreadingAndReentrancy>). A value sent from inside
    /// an observer is delivered after the current one, to every observer. When the last
    /// observer has been called (or, for `.main` and `.queue` observers, has run), nothing
    /// holds `value` any more.
    @inlinable
    public func send(_ value: Element) {
        core.send(value)
    }

    /// The events sent into this sink, to observe: what a store exposes.
    @inlinable
    public var signal: Signal<Element> {
        Signal(core: core)
    }
}
