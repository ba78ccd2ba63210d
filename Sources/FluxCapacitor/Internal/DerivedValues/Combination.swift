/// The machinery behind `Constant(combining:_:)`: a value core computed from several
/// sources, recomputed when any of them changes, once per reduce when a dispatch changes
/// several (Internal/README.md, "Combined values", walks through it).
///
/// It belongs to the dispatcher that was current where it was made, and every
/// recomputation holds that dispatcher's mutex, as a dispatch does: so no reduce of it is
/// halfway while the sources are read. A trigger inside a dispatch of it asks for one
/// recomputation after the reduce; a trigger outside any dispatch recomputes as a dispatch
/// of its own (`Dispatcher.asPartOfADispatch(_:)`). A trigger inside a dispatch of another
/// dispatcher is refused (`changedInAnotherDispatchersDispatch`): recomputing there would
/// take this dispatcher inside the other's (a deadlock with a dispatch going the other
/// way), and would read the other dispatcher's sources without holding it (a halfway
/// reduce). So a combined value's sources change in its own dispatcher, or outside any.
///
/// A source's observation is only a trigger: a recomputation reads every source as it is
/// now, and sets the derived core when the sum of their versions (which only grow) moved.
/// Recomputations run lowest `level` first, so one made from another changes once.
///
/// The derived core holds this object (its `upstream` source) and the sources'
/// observations; this object holds the sources' cores (in `update`) and the derived core
/// as a `StoreWord`, weakly without a side table (a weak reference would send every
/// retain and release of the derived core to the runtime's slow path).
@usableFromInline
final class Combination: @unchecked Sendable {
    // Sendable: `state` is guarded by `dispatcher`'s mutex, which every recomputation holds;
    // the other fields are set once, in `init`.

    /// The dispatcher whose mutex every recomputation holds.
    let dispatcher: Dispatcher
    /// Where the dispatcher runs it among the recomputations a reduce asked for.
    let level: Int
    /// Reads every source and, if the sum of their versions moved from the one given (and
    /// updated), sets the given derived core (specialized in the caller: `combining`).
    private let update: @Sendable (inout UInt64, ObserverCore, Combination) -> Void
    /// The derived core, held weakly.
    private let derived: StoreWord
    /// How a failure names this value and its sources: `Constant<Int>(combining:
    /// Variable<Int>, Variable<String>)`'s parts.
    private let names: (value: String, sources: [String])
    /// What the recomputations change, guarded by `dispatcher`'s mutex.
    // Unchecked: the dispatcher's mutex serializes every access; the runtime's check makes
    // the row `combiningTwoSourcesDispatch` of `Benchmarks/instructions` a tenth dearer.
    @exclusivity(unchecked)
    private var state: State

    private struct State {
        /// The sum of the versions of the sources' values the derived value was computed
        /// from (one number, not an array to write at every read).
        var lastVersionSum: UInt64
        /// Whether `dispatcher` was asked to recompute it after its current reduce (a flag,
        /// not a search of its list, which cost a dispatch changing two sources 50 more).
        var isPending = false
    }

    /// Whether its transform is running: a source that changes then was set by the
    /// transform, a cycle. Guarded by `dispatcher`'s mutex (apart from `state`, which a
    /// recomputation has in an `inout` access while the transform runs).
    // Unchecked: as `state`.
    @exclusivity(unchecked)
    private var isTransforming = false

    @usableFromInline
    init(
        dispatcher: Dispatcher, sources: [ObserverCore], versionSum: UInt64, derived: ObserverCore,
        names: (value: String, sources: [String]),
        update:
            @escaping @Sendable (_ lastVersionSum: inout UInt64, _ derived: ObserverCore, _ itself: Combination) -> Void
    ) {
        self.dispatcher = dispatcher
        self.update = update
        self.derived = StoreWord(registering: derived)
        self.names = names
        state = State(lastVersionSum: versionSum)
        level = 1 + (sources.map(Self.level(of:)).max() ?? 0)
    }

    deinit {
        derived.letGo()
    }

    /// The level of the combination `core` is, or is derived from through `map` and the
    /// like (0 for none).
    private static func level(of core: ObserverCore) -> Int {
        var core = core
        // `upstream` is set once, before a core is shared.
        while let source = core.upstream?.source {
            if let combination = source as? Combination {
                return combination.level
            }
            guard let next = source as? ObserverCore else { return 0 }
            core = next
        }
        return 0
    }

    /// The source at `index` changed: recompute after the current reduce if this thread is
    /// dispatching the dispatcher, or now, as a dispatch of its own, if it is dispatching
    /// none. Inside a dispatch of another dispatcher, or from the transform itself, it stops
    /// the program with a message that says why and names the fix.
    @usableFromInline
    func sourceChanged(_ index: Int) {
        if dispatcher.mutex.isHeldByCurrentThread {
            if _slowPath(isTransforming) {
                changedByItsOwnTransform(index)
            }
            if !state.isPending {
                state.isPending = true
                dispatcher.recomputeAfterThisReduceLocked(self)
            }
            return
        }
        if _slowPath(Dispatcher.isDispatchingOnThisThread) {
            changedInAnotherDispatchersDispatch(index)
        }
        recompute()
    }

    /// A source changed between the first read and the observations (`combining`):
    /// recomputes as a trigger would, after the current reduce if this thread dispatches
    /// the dispatcher, else now.
    @usableFromInline
    func sourcesMovedWhileItWasMade() {
        if dispatcher.mutex.isHeldByCurrentThread {
            if !state.isPending {
                state.isPending = true
                dispatcher.recomputeAfterThisReduceLocked(self)
            }
            return
        }
        recompute()
    }

    private func changedByItsOwnTransform(_ index: Int) -> Never {
        fatalError(
            "\(names.value)(combining:) is a cycle: its transform changed its own source \(index + 1), "
                + "\(names.sources[index]), so it would be recomputed again and again. A transform "
                + "computes a value from its sources; change sources in reduce(with:), or observe the "
                + "combined value and dispatch from that observer.")
    }

    private func changedInAnotherDispatchersDispatch(_ index: Int) -> Never {
        fatalError(
            "\(names.value)(combining:) belongs to \(dispatcher.nameForMessages) (the one current "
                + "where it was made), but its source \(index + 1), \(names.sources[index]), changed in a "
                + "dispatch of \(Dispatcher.current.nameForMessages). Recomputing it there would take its "
                + "dispatcher inside the other's (a deadlock when a dispatch goes the other way) and "
                + "read the other dispatcher's stores without waiting for their reduce (a halfway "
                + "value). Make the combined value in the dispatcher whose dispatches change its "
                + "sources (`Dispatcher.withCurrent(thatDispatcher) { Constant(combining: …) }`), "
                + "or keep the stores it combines in one dispatcher.")
    }

    /// `source`'s value; adds its version to `versionSum`.
    @inlinable
    static func read<SourceElement>(_ source: ValueCore<SourceElement>, _ versionSum: inout UInt64) -> SourceElement {
        let (value, version) = source.snapshot()
        versionSum &+= version
        return value
    }

    /// `source`'s value; appends its version to `versions`: the first read, which each
    /// source's observation starts after.
    @inlinable
    static func read<SourceElement>(_ source: ValueCore<SourceElement>, _ versions: inout [UInt64]) -> SourceElement {
        let (value, version) = source.snapshot()
        versions.append(version)
        return value
    }

    /// Reads the sources and sets the derived core if one moved, holding the dispatcher's
    /// mutex: inside this thread's dispatch of it (the dispatcher runs what a reduce asked
    /// for), or else as a dispatch of its own (a trigger outside any dispatch, or a
    /// recomputation another dispatcher's reduce asked for), so that what it leads to (a
    /// value combined from this one) runs after it.
    func recompute() {
        if dispatcher.mutex.isHeldByCurrentThread {
            state.isPending = false
        }
        // The derived core retained for the recomputation, if it is still alive.
        guard let derived = derived.liveStore() else { return }
        dispatcher.asPartOfADispatch {
            update(&state.lastVersionSum, unsafeDowncast(derived, to: ObserverCore.self), self)
        }
    }

    /// Runs a transform: a change of a source meanwhile is a cycle. Call holding the
    /// dispatcher's mutex (`update` runs inside `recompute()`).
    @inlinable
    func transforming<Result>(_ transform: () -> Result) -> Result {
        setTransforming(true)
        defer { setTransforming(false) }
        return transform()
    }

    @usableFromInline
    func setTransforming(_ isTransforming: Bool) {
        self.isTransforming = isTransforming
    }
}

extension ValueCore {
    /// Makes the core of a value computed from `sources` with `transform` (see
    /// `Combination`): it starts at the transform of their values, and follows them.
    ///
    /// Inlinable, so that the reads of the sources and the set of the derived core, which
    /// run at every change, are specialized for the sources' types in the caller's module
    /// (unspecialized, a pack of sources instantiates tuple and class metadata at each
    /// read, and the row `combiningOneSource` of `Benchmarks/instructions` cost several
    /// times the row `map`).
    @inlinable
    static func combining<each SourceElement: Sendable>(
        _ sources: repeat ValueCore<each SourceElement>,
        transform: @escaping @Sendable (repeat each SourceElement) -> Element
    ) -> ValueCore<Element> {
        let cores = (repeat each sources)
        var sourceCores: [ObserverCore] = []
        for source in repeat each sources {
            sourceCores.append(source)
        }
        let dispatcher = Dispatcher.current
        var versions: [UInt64] = []
        let first = dispatcher.withMutex { (repeat Combination.read(each sources, &versions)) }
        let derived = ValueCore(transform(repeat each first), isDerived: true)
        var sourceNames: [String] = []
        for source in repeat each sources {
            sourceNames.append(source.nameForMessages)
        }
        let combination = Combination(
            dispatcher: dispatcher, sources: sourceCores, versionSum: versions.reduce(0, &+), derived: derived,
            names: ("Constant<\(Element.self)>", sourceNames)
        ) { lastVersionSum, derived, combination in
            // Every source's value, and the sum of their versions. No tuple of snapshots: a
            // tuple of a pack is made at run time, at each read.
            var versionSum: UInt64 = 0
            let values = (repeat Combination.read(each cores, &versionSum))
            if versionSum != lastVersionSum {
                lastVersionSum = versionSum
                let value = combination.transforming { transform(repeat each values) }
                // The core this closure is made for (see `Combination.derived`).
                unsafeDowncast(derived, to: ValueCore<Element>.self).set(value)
            }
        }
        var observations: [Dust] = []
        for source in repeat each sources {
            observations.append(source.observeForCombination(combination, index: observations.count))
        }
        // A change since the first read (by the first transform, say) is a trigger too: the
        // sources are observed from now on, so nothing is missed, and a change seen both
        // ways is read once (its version is read once).
        var index = 0
        var moved = false
        for source in repeat each sources {
            moved = moved || source.snapshot().version != versions[index]
            index += 1
        }
        if moved {
            combination.sourcesMovedWhileItWasMade()
        }
        derived.hold(upstream: Dust.cleaningAll(observations), source: combination)
        return derived
    }

    /// Observes the changes for `combination`, whose source `index` this is: each one
    /// triggers a read. (No first value: a change while the value is made is found by
    /// `combining`'s second look at the versions, which runs no observer inside another's
    /// first value, so a transform that changes its own source is always heard inside it.)
    @usableFromInline
    func observeForCombination(_ combination: Combination, index: Int) -> Dust {
        observeChanges(on: .current) { _ in combination.sourceChanged(index) }
    }

    /// How a failure names this value: `Variable<Int>`, or `Constant<Int>` for a derived one.
    @usableFromInline
    var nameForMessages: String {
        "\(isKeptAliveByObservers ? "Constant" : "Variable")<\(Element.self)>"
    }
}
