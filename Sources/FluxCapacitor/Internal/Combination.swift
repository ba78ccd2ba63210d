/// The machinery behind `Constant(combining:_:)`: a value core computed from several
/// sources, recomputed when any of them changes, once per reduce when a dispatch changes
/// several (Internal/README.md, "Combined values", walks through it).
///
/// It belongs to the dispatcher that was current where it was made, and every
/// recomputation holds that dispatcher's mutex, as a dispatch does: so no reduce of it is
/// halfway while the sources are read. A trigger inside a dispatch of it asks for one
/// recomputation after the reduce; inside a dispatch of the current dispatcher, that one
/// asks (and the recomputation holds both); anywhere else the recomputation is a dispatch
/// of its own (`Dispatcher.asPartOfADispatch(_:)`).
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
    private let update: @Sendable (inout UInt64, ObserverCore) -> Void
    /// The derived core, held weakly.
    private let derived: StoreWord
    /// What the recomputations change, guarded by `dispatcher`'s mutex.
    // Unchecked: the dispatcher's mutex serializes every access; the runtime's check cost a
    // dispatch changing two sources a tenth more (`Benchmarks/instructions --filter combining`).
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

    @usableFromInline
    init(
        dispatcher: Dispatcher, sources: [ObserverCore], versionSum: UInt64, derived: ObserverCore,
        update: @escaping @Sendable (_ lastVersionSum: inout UInt64, _ derived: ObserverCore) -> Void
    ) {
        self.dispatcher = dispatcher
        self.update = update
        self.derived = StoreWord(registering: derived)
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

    /// A source changed: recompute after the current reduce if this thread is dispatching
    /// (the dispatcher, or the current one), else now, as a dispatch of its own.
    @usableFromInline
    func sourceChanged() {
        if dispatcher.mutex.isHeldByCurrentThread {
            if !state.isPending {
                state.isPending = true
                dispatcher.recomputeAfterThisReduceLocked(self)
            }
            return
        }
        let current = Dispatcher.current
        if current !== dispatcher && current.mutex.isHeldByCurrentThread {
            current.recomputeAfterThisReduceLocked(self)
            return
        }
        recompute()
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
            update(&state.lastVersionSum, unsafeDowncast(derived, to: ObserverCore.self))
        }
    }
}

extension ValueCore {
    /// Makes the core of a value computed from `sources` with `transform` (see
    /// `Combination`): it starts at the transform of their values, and follows them.
    ///
    /// Inlinable, so that the reads of the sources and the set of the derived core, which
    /// run at every change, are specialized for the sources' types in the caller's module
    /// (unspecialized, a pack of sources instantiates tuple and class metadata at each
    /// read: 3,845 instructions per change against 1,291 for `map`).
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
        let combination = Combination(
            dispatcher: dispatcher, sources: sourceCores, versionSum: versions.reduce(0, &+), derived: derived
        ) { lastVersionSum, derived in
            // Every source's value, and the sum of their versions. No tuple of snapshots: a
            // tuple of a pack is made at run time, at each read.
            var versionSum: UInt64 = 0
            let values = (repeat Combination.read(each cores, &versionSum))
            if versionSum != lastVersionSum {
                lastVersionSum = versionSum
                // The core this closure is made for (see `Combination.derived`).
                unsafeDowncast(derived, to: ValueCore<Element>.self).set(transform(repeat each values))
            }
        }
        var observations: [Dust] = []
        for source in repeat each sources {
            // A change since the first read is delivered at once, and triggers a read.
            observations.append(source.observeForCombination(after: versions[observations.count], combination))
        }
        derived.hold(upstream: Dust.cleaningAll(observations), source: combination)
        return derived
    }

    /// Observes the changes after `version` for `combination`: each one triggers a read.
    @usableFromInline
    func observeForCombination(after version: UInt64, _ combination: Combination) -> Dust {
        observe(on: .current, after: version) { _ in combination.sourceChanged() }
    }
}
