/// The trait of a ``PrimitiveValue``: ``MutableTrait`` for a ``Variable``,
/// ``ImmutableTrait`` for a ``Constant``.
///
/// ```swift
/// extension PrimitiveValue where Trait == ImmutableTrait, Element: Collection {
///     var isEmpty: Bool { value.isEmpty }
/// }
/// ```
public protocol ValueTrait {}

/// An observable value: a ``Variable`` (read and write) or a ``Constant`` (read only).
///
/// A store keeps its state in private `Variable`s and exposes `Constant`s made from them;
/// a `Constant` shares its `Variable`'s value and observers.
///
/// ```swift
/// let variable = Variable<Int>(0)
/// let constant = Constant(variable)
///
/// let dust = constant.observe { value in
///     print(value)  // 0 -> 10
/// }
/// variable.value = 10
/// dust.clean()
/// ```
///
/// Values are thread-safe: any thread may read, set and observe them at once. Observers
/// are called without any lock held, so they may set values, observe and clean.
///
/// Reading `.value` also takes part in Swift's Observation, so a SwiftUI view or an
/// `@Observable` model that reads a store's values is updated when they change, with no
/// glue code. Observation calls its trackers on the thread that changes the value: change
/// the values views read on the main actor (dispatch from main-actor code), or copy values
/// that change elsewhere into main-actor state with ``bind(to:_:)``.
///
/// A value is used as a ``Variable`` or a ``Constant``, the two names of its two traits;
/// their pages list the members each has.
public final class PrimitiveValue<Trait: ValueTrait, Element: Sendable>: Sendable {
    @usableFromInline
    let core: ValueCore<Element>

    @usableFromInline
    init(core: ValueCore<Element>) {
        self.core = core
    }

    /// Calls `changes` with the current value, then with every value set from now on, on
    /// `queue`, until the returned ``Dust`` is cleaned.
    ///
    /// - Parameters:
    ///   - queue: Where to call `changes`; ``ExecuteQueue/current`` by default.
    ///   - ignoreFirst: When `false` (the default, as in FluxCapacitor 0.10.1 and later),
    ///     `changes` is first called with the current value, on `queue` like every later
    ///     one. Reading the current value and registering are one step, so no value set in
    ///     between is missed. Pass `true` to be told of changes only.
    ///   - changes: Called with each value, in the order the values were set, each once,
    ///     never twice at the same time.
    /// - Returns: A ``Dust`` that ends the observation; clean it, or hand it to a
    ///   ``DustBuster``. Dropping it does not end the observation: it then lasts as long as
    ///   the value. Like ``Signal``'s `observe`, and unlike the forms that an object's life
    ///   ends (``observe(on:ignoreFirst:duringScopeOf:changes:)``, ``bind(to:_:on:)``), it is
    ///   not `@discardableResult`: the returned `Dust` is the only way to end the
    ///   observation, so the compiler warns when it is dropped. Write
    ///   `_ = value.observe { … }` where the observation is meant to last as long as the
    ///   value.
    ///
    /// ```swift
    /// store.repositories
    ///     .observe(on: .main) { repositories in
    ///         render(repositories)  // the current repositories, then each change
    ///     }
    ///     .cleaned(by: dustBuster)
    /// ```
    ///
    /// Observers of a value are called in the order they were registered. A value set by
    /// an observer is delivered after the current one. A set made while another thread
    /// delivers a change waits briefly for that delivery to end, then delivers its value
    /// itself; if the delivery goes on (a slow observer), that thread takes the value and
    /// delivers it after the current one, and the setter returns before its value reached
    /// the `.current` observers. See <doc:ThreadingAndReentrancy>.
    @preconcurrency
    @inlinable
    public func observe(
        on queue: ExecuteQueue = .current,
        ignoreFirst: Bool = false,
        changes: @escaping @Sendable (Element) -> Void
    ) -> Dust {
        core.observe(on: queue, ignoreFirst: ignoreFirst, changes: changes)
    }
}
