/// The trait of a ``Variable``: its value can be read and set.
///
/// ```swift
/// let count: PrimitiveValue<MutableTrait, Int> = Variable(0)  // what `Variable<Int>` spells
/// ```
public enum MutableTrait: ValueTrait, Sendable {}

/// An observable value that can be read and set.
///
/// ```swift
/// let count = Variable<Int>(0)
/// count.value = 1
/// count.value += 1
/// print(count.value)  // 2
/// ```
///
/// Stores keep their state in private `Variable`s, change them in `reduce(with:)`, and
/// expose them as ``Constant``s.
public typealias Variable<Element: Sendable> = PrimitiveValue<MutableTrait, Element>

extension PrimitiveValue where Trait == MutableTrait {
    /// Makes a variable holding `value`.
    ///
    /// - Parameter value: The first value.
    public convenience init(_ value: Element) {
        self.init(core: ValueCore(value))
    }

    /// The current value. Setting it notifies every observer.
    ///
    /// Changing it in place (`value.append(x)`, `value += 1`) is one atomic
    /// read-modify-write that does not copy the old value, followed by one notification.
    ///
    /// ```swift
    /// _repositories.value.append(contentsOf: page)
    /// ```
    ///
    /// The variable stays locked while such a change runs, so keep the mutating code plain:
    /// it must not read, set or observe this variable (that traps, with a message that says
    /// so), and should not clean dust, set other variables or dispatch, which could wait
    /// on a thread that waits on this variable. The same holds for the `deinit` of an
    /// object the change lets go of (an element it removes). A value replaced by assigning
    /// is let go of after the variable is unlocked, and its `deinit` may do anything.
    ///
    /// Reading the value takes part in Swift's Observation, as a property of an
    /// `@Observable` class does: inside a SwiftUI `body`, an `@Observable` model's computed
    /// property, `withObservationTracking` or `Observations`, the read is tracked, and the
    /// next change (a set, an in-place change, on any thread) calls the tracker's
    /// `onChange` on the thread that changes the value, before the new value is stored.
    ///
    /// ```swift
    /// withObservationTracking {
    ///     print(count.value)
    /// } onChange: {
    ///     print("count is about to change")
    /// }
    /// ```
    ///
    /// A variable that was never read this way skips Observation when it changes; once
    /// read, each change also tells Observation (some 30 ns, no allocation).
    @inlinable
    public var value: Element {
        get {
            core.value
        }
        set {
            core.set(newValue)
        }
        _modify {
            let observation = core.lockForModify()
            defer { core.finishModify(observation) }
            yield &core.storage
        }
    }
}
