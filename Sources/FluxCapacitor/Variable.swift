/// The trait of a ``Variable``: its value can be read and set.
///
/// ```swift
/// // what `Variable<Int>` spells:
/// let count: PrimitiveValue<MutableTrait, Int> = Variable(0)
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
///
/// `Variable<Element>` is ``PrimitiveValue`` with the ``MutableTrait``: its members are
/// `PrimitiveValue`'s, those its page lists, and those it shares with ``Constant``.
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
    /// Changing it in place (`value.append(x)`, `value[i] = x`, `value += 1`) notifies once.
    /// Inside a dispatch (in `reduce(with:)`, where stores change their values), the change
    /// holds the variable as ``update(_:)`` does and changes the stored value where it is:
    /// changing one element of a collection costs that element, whatever its size.
    ///
    /// ```swift
    /// _repositories.value.append(contentsOf: page)
    /// ```
    ///
    /// The code of such a change (the closure of `removeAll(where:)`, the `deinit` of an
    /// element it removes) must not read or set this variable, and two in-place changes
    /// must not nest (`swap(&a.value, &b.value)`): both trap with a message that names the
    /// fix. Another thread reading the variable meanwhile waits for the change to end.
    ///
    /// Outside a dispatch, where an in-place access may `await` (`await value.load()`) or
    /// nest in another, the change reads the value, lets the mutating code change that
    /// copy with no lock held, and sets the result back: there it may `await`, may read or
    /// set this variable and others, and two of them never wait on each other. Being a read
    /// followed by a set, it is atomic only where nothing else sets the value meanwhile,
    /// and a collection is copied once (the variable keeps the old value for its readers
    /// while the copy changes): where threads change one variable at once, or to change a
    /// collection outside a dispatch without copying it, use ``update(_:)``.
    /// <doc:ThreadingAndReentrancy> says why, and <doc:BigState> what each change costs.
    ///
    /// Reading the value takes part in Swift's Observation, as a property of an
    /// `@Observable` class does: inside a SwiftUI `body`, an `@Observable` model's computed
    /// property, `withObservationTracking` or `Observations`, the read is tracked, and the
    /// next change (a set, an in-place change, an update, on any thread) calls the
    /// tracker's `onChange` on the thread that changes the value, before the new value is
    /// stored.
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
            readNotingObservation()
        }
        set {
            core.set(newValue)
        }
        _modify {
            // One `yield`, so that the optimizer inlines this accessor into the caller (a
            // second `yield` made it a call, and the row `dispatch` of
            // `Benchmarks/instructions` a fifth dearer, over its budget).
            var value: Element
            let change = core.beginChangeInPlace()
            if let change {
                // In a dispatch: the stored value itself, moved out while the variable is
                // held for the change (as `update` holds it), so a change of one element
                // costs that element.
                value = core.moveOutForChange(change)
            } else {
                value = core.read()
            }
            // Set back also when the mutating code throws, as an `inout` argument is.
            defer {
                if let change {
                    core.moveInAndEndChange(value, change)
                } else {
                    core.set(value)
                }
            }
            yield &value
        }
    }

    /// Changes the value in place as one atomic read-modify-write: no other thread reads,
    /// sets or changes the variable between `change`'s read and its write, and observers
    /// are notified once, after it.
    ///
    /// ```swift
    /// let visits = Variable(0)
    /// // from any number of threads at once: no visit is lost
    /// visits.update { $0 += 1 }
    /// let jobs = Variable<[String]>(["index", "build"])
    /// let next = jobs.update { $0.popLast() } // "build"
    /// ```
    ///
    /// The variable stays locked while `change` runs, so keep it short and plain: it must
    /// not read, set, update or observe this variable (that traps, with a message that says
    /// so), and should not touch other variables, clean dust or dispatch, any of which
    /// could wait on a thread that waits on this variable. The same holds for the `deinit`
    /// of an object that `change` lets go of. In a store, change values in `reduce(with:)`
    /// through `value` instead: reductions never overlap, so they lose no update either.
    ///
    /// - Parameter change: Changes the value in place; synchronous, so it cannot `await`
    ///   while holding the variable.
    /// - Returns: What `change` returns.
    /// - Throws: What `change` throws; what it changed before throwing is kept, and
    ///   observers are notified of it.
    @inlinable
    public func update<Result>(_ change: (inout Element) throws -> Result) rethrows -> Result {
        let update = core.lockForUpdate()
        defer { core.deliverUpdateAndUnlock(update) }
        return try change(&core.storage.element)
    }
}
