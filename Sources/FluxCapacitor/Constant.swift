/// The trait of a ``Constant``: its value can be read, not set.
///
/// ```swift
/// // what `Constant<Int>` spells:
/// let count: PrimitiveValue<ImmutableTrait, Int> = Constant(_count)
/// ```
public enum ImmutableTrait: ValueTrait, Sendable {}

/// An observable value that can be read but not set: the face a store shows of its
/// private ``Variable``s.
///
/// ```swift
/// let repositories: Constant<[GitHub.Repository]>
/// private let _repositories = Variable<[GitHub.Repository]>([])
///
/// required init() {
///     repositories = Constant(_repositories)
/// }
/// ```
///
/// `Constant<Element>` is ``PrimitiveValue`` with the ``ImmutableTrait``: its members are
/// `PrimitiveValue`'s, those its page lists, and those it shares with ``Variable``.
public typealias Constant<Element: Sendable> = PrimitiveValue<ImmutableTrait, Element>

extension PrimitiveValue where Trait == ImmutableTrait {
    /// Makes a constant that shares `variable`'s value and observers: it reads what the
    /// variable holds, and its observers hear every change of the variable.
    ///
    /// ```swift
    /// let variable = Variable<Int>(0)
    /// let constant = Constant(variable)
    /// variable.value = 1
    /// print(constant.value)  // 1
    /// ```
    ///
    /// - Parameter variable: The variable to follow.
    public convenience init(_ variable: Variable<Element>) {
        self.init(core: variable.core)
    }

    /// The current value.
    ///
    /// Reading it takes part in Swift's Observation through the ``Variable`` it was made
    /// from: a SwiftUI `body` or an `@Observable` model's computed property that reads it
    /// is told of the variable's next change (see `Variable.value`).
    ///
    /// ```swift
    /// @Observable
    /// final class RepositoryListModel {
    ///     private let store = RepositoryStore.instantiate()
    ///     var count: Int { store.repositories.value.count }
    /// }
    /// ```
    @inlinable
    public var value: Element {
        readNotingObservation()
    }
}
