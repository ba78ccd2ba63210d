/// The machinery behind `Constant(combining:_:)`: a value core computed from several
/// sources, recomputed when any of them changes, once per reduce when a dispatch changes
/// several.
///
/// **Whose it is.** A combination belongs to the dispatcher that was current where it was
/// made (in a store's `init`, that store's dispatcher; in a test, the test's own), and every
/// recomputation holds that dispatcher's mutex, as a dispatch does: so no reduce of it is
/// ever halfway while the sources are read, whichever thread triggered it.
///
/// - A trigger on a thread that is dispatching it (the change came from a `reduce`, an
///   observer or a log subscriber) asks it for one recomputation after the reduce
///   (`Dispatcher.recomputeAfterThisReduceLocked(_:)`, which asks once per combination).
/// - A trigger on a thread that is dispatching another dispatcher, the current one (a
///   source is a store value of that one) asks that one, so that its reduce is not halfway
///   either: the recomputation then holds both.
/// - Any other trigger recomputes as a dispatch of its own
///   (`Dispatcher.recomputeAsDispatch(_:)`): it waits for a dispatch running on another
///   thread, like `invoke`, and what the recomputation's observers dispatch runs after it.
///
/// **What it reads.** Each source's observation is only a trigger: a recomputation reads
/// every source as it is now (`ValueCore.snapshot()`, a value and its version) and sets
/// the derived core when a version moved since its last read: when the sum of the versions
/// moved, as versions only ever grow. So a duplicate trigger
/// changes nothing, and a source whose change waits in another thread's round is read as it
/// is, not as it was.
///
/// **Order.** A combination's `level` is one more than the highest of the combinations it is
/// computed from (directly, or through `map` and the like); the dispatcher runs the
/// recomputations a reduce asked for lowest level first, so one made from another reads its
/// new value and changes once. Computed once, when it is made: linear in the graph.
///
/// **Lifetime.** The derived core holds this object (its `upstream` source) and the dusts of
/// the sources' observations, which it cleans when it goes; this object holds the sources'
/// cores (in `update`) and the derived core weakly, as the store registry holds stores (a
/// `StoreWord`: a weak reference would give the derived core a side table, and every
/// retain and release of it the runtime's slow path). The observations' handlers hold this
/// object, so it lives while they can still be called.
@usableFromInline
final class Combination: @unchecked Sendable {
    // Sendable: `state` is guarded by `dispatcher`'s mutex, which every recomputation holds;
    // the other fields are set once, in `init`.

    /// The dispatcher whose mutex every recomputation holds.
    let dispatcher: Dispatcher
    /// Where the dispatcher runs it among the recomputations a reduce asked for.
    let level: Int
    /// Reads every source and, if the sum of their versions differs from the given one
    /// (which it updates), sets the derived core (given) to the transform of their values.
    /// Made by the caller's module, specialized for the sources' types (see
    /// `ValueCore.combining`).
    private let update: @Sendable (inout UInt64, ObserverCore) -> Void
    /// The derived core, held weakly.
    private let derived: StoreWord
    /// What the recomputations change, guarded by `dispatcher`'s mutex.
    // Unchecked: the dispatcher's mutex serializes every access; the runtime's check of a
    // recomputation's `inout` access cost it 126 instructions (callgrind,
    // `Benchmarks/instructions --filter combining`: a tenth of a dispatch changing two
    // sources).
    @exclusivity(unchecked)
    private var state: State

    private struct State {
        /// The sum of the versions of the sources' values that the derived core's value was
        /// computed from. (One number rather than one per source: no array to check for
        /// uniqueness and to write at every read.)
        var lastVersionSum: UInt64
        /// Whether `dispatcher` was asked to recompute it after its current reduce: later
        /// triggers of the reduce need not ask again. (A flag, not a search of the
        /// dispatcher's list, which cost a dispatch changing two sources 50 instructions.)
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
        dispatcher.recomputeAsDispatch(self)
    }

    /// Reads the sources and sets the derived core if one moved. Called by a dispatcher
    /// with its mutex held (this one's, or the current one's, then taking this one's too).
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

    func recomputeLocked() {
        if dispatcher.mutex.isHeldByCurrentThread {
            state.isPending = false
        }
        // The derived core retained for the recomputation, if it is still alive.
        guard let derived = derived.liveStore() else { return }
        dispatcher.withDispatchesPaused {
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
        let first = dispatcher.withDispatchesPaused { (repeat Combination.read(each sources, &versions)) }
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
        var index = 0
        for source in repeat each sources {
            // A change since the first read is delivered at once, and triggers a read.
            observations.append(source.observeForCombination(after: versions[index], combination))
            index += 1
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
