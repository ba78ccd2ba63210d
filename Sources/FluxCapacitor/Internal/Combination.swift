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
/// the derived core when a version moved since its last read. So a duplicate trigger
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
/// cores and the derived core weakly (in `update`). The observations' handlers hold this
/// object, so it lives while they can still be called.
@usableFromInline
final class Combination: @unchecked Sendable {
    // Sendable: `lastVersions` is guarded by `dispatcher`'s mutex, which every recomputation
    // holds; the other fields are set once, in `init`.

    /// The dispatcher whose mutex every recomputation holds.
    let dispatcher: Dispatcher
    /// Where the dispatcher runs it among the recomputations a reduce asked for.
    let level: Int
    /// Reads every source and, if a version differs from the given ones (which it updates),
    /// sets the derived core to the transform of their values. Made by the caller's module,
    /// specialized for the sources' types (see `ValueCore.combining`).
    private let update: @Sendable (inout [UInt64]) -> Void
    /// The versions of the sources' values that the derived core's value was computed from.
    // Unchecked: the dispatcher's mutex serializes every access; the runtime's check of the
    // `inout` access cost each recomputation 126 instructions (callgrind,
    // `Benchmarks/instructions --filter combining`: 1,058 → 9xx per set).
    @exclusivity(unchecked)
    private var lastVersions: [UInt64]

    @usableFromInline
    init(
        dispatcher: Dispatcher, sources: [ObserverCore], versions: [UInt64],
        update: @escaping @Sendable (_ lastVersions: inout [UInt64]) -> Void
    ) {
        self.dispatcher = dispatcher
        self.update = update
        lastVersions = versions
        level = 1 + (sources.map(Self.level(of:)).max() ?? 0)
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
            dispatcher.recomputeAfterThisReduceLocked(self)
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
    func recomputeLocked() {
        dispatcher.withDispatchesPaused { update(&lastVersions) }
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
        // Reads every source's value, notes its version in `lastVersions`, and sets
        // `changed` if one moved.
        let read: @Sendable (inout [UInt64], inout Bool) -> (repeat each SourceElement) = {
            lastVersions, changed in
            var index = 0
            // No tuple of snapshots: a tuple of a pack is made at run time, at each read.
            return (repeat readSource(each cores, &lastVersions, &index, &changed))
        }
        var sourceCores: [ObserverCore] = []
        for source in repeat each sources {
            sourceCores.append(source)
        }
        let dispatcher = Dispatcher.current
        // No version is `.max`, so the first read sees every source as moved.
        var versions = [UInt64](repeating: .max, count: sourceCores.count)
        var changed = false
        let first = dispatcher.withDispatchesPaused { read(&versions, &changed) }
        let derived = ValueCore(transform(repeat each first))
        let combination = Combination(dispatcher: dispatcher, sources: sourceCores, versions: versions) {
            [weak derived] lastVersions in
            var changed = false
            let values = read(&lastVersions, &changed)
            if changed, let derived {
                derived.set(transform(repeat each values))
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

    /// `source`'s value; notes its version at `index` of `lastVersions`, and whether it
    /// moved, and steps `index` on.
    @inlinable
    static func readSource<SourceElement>(
        _ source: ValueCore<SourceElement>, _ lastVersions: inout [UInt64], _ index: inout Int, _ changed: inout Bool
    ) -> SourceElement {
        let (value, version) = source.snapshotForCombination()
        if lastVersions[index] != version {
            lastVersions[index] = version
            changed = true
        }
        index += 1
        return value
    }

    /// The value and its version (`snapshot()`), for the inlinable `combining`.
    @usableFromInline
    func snapshotForCombination() -> (value: Element, version: UInt64) {
        snapshot()
    }

    /// Observes the changes after `version` for `combination`: each one triggers a read.
    @usableFromInline
    func observeForCombination(after version: UInt64, _ combination: Combination) -> Dust {
        observe(on: .current, after: version) { _ in combination.sourceChanged() }
    }
}
