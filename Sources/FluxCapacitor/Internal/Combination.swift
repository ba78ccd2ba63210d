/// The machinery behind `Constant(combining:_:)`: a value core computed from several
/// sources, which recomputes it when any of them changes, once per reduce when a dispatch
/// changes several.
///
/// **What it reads.** Each source's observation is only a trigger: a recomputation reads
/// every source as it is now (`ValueCore.snapshot()`, a value and its version) and runs
/// the transform when a version moved since the last one. So a source whose change waits
/// for another thread's round (a hand-over) is read as it is, not as it was.
///
/// **When it reads.** Never while a dispatch is halfway through a reduce that may change
/// several sources:
///
/// - A trigger on a thread that is dispatching (it holds `Dispatcher.current`'s mutex: the
///   change came from a `reduce`, an observer or a log subscriber of that dispatch) asks
///   the dispatcher to run one recomputation after the reduce
///   (`Dispatcher.runAfterThisReduceLocked(_:)`); later triggers of that reduce find it
///   asked for already.
/// - Any other trigger reads holding `Dispatcher.current`'s mutex, as a dispatch would, so
///   it waits for a dispatch running on another thread to end. That dispatcher is the one
///   the change was made in: a value handed over to another thread's round is delivered in
///   the scope it was set in.
///
/// **Who sets the derived core.** One thread at a time, the *drainer*, in the order it
/// read the sources (`drainState`: idle, draining, or draining with a trigger since its
/// last read, which makes it read again). A trigger that finds a drainer leaves the work to
/// it and returns, as a value's hand-over does: a combined value whose observer changes one
/// of its sources, on that thread or another, neither recurses nor deadlocks.
///
/// **Lifetime.** The derived core holds this object (its `upstream` source) and the dusts of
/// the sources' observations, which it cleans when it goes; this object holds the sources'
/// cores and the derived core weakly. The observations' handlers hold this object, so it
/// lives while they can still be called.
@usableFromInline
final class Combination: CombinationNode, @unchecked Sendable {
    // Sendable: `lastVersions` is touched only by the drainer (the thread that moved
    // `drainState` from idle to draining, until it moves it back) or, before the object is
    // shared, by `init`; `dispatchersWithHook` is guarded by `hookLock`; `update` and
    // `sources` are set once, in `init`.

    /// Reads every source and, if a version differs from the given ones (which it
    /// updates), sets the derived core to the transform of their values. The reads hold
    /// the given dispatcher's mutex (`withDispatchesPaused(of:_:)`), which the trigger
    /// found current. Made by the caller's module, specialized for the sources' types (see
    /// `ValueCore.combining`).
    private let update: @Sendable (inout [UInt64], Dispatcher) -> Void
    /// The versions of the sources' values that the derived core's value was computed from.
    @exclusivity(unchecked)
    private var lastVersions: [UInt64]
    /// 0: idle; 1: a drainer is reading or setting; 2: it is, and a trigger came since its
    /// last read.
    private let drainState = AtomicWord()
    /// The dispatchers that will run a recomputation after their current reduce.
    private let hookLock = Lock()
    private var dispatchersWithHook: [ObjectIdentifier] = []
    /// The sources' cores, to find the combinations this one is computed from.
    private let sources: [ObserverCore]

    @usableFromInline
    init(
        sources: [ObserverCore], versions: [UInt64],
        update: @escaping @Sendable (_ lastVersions: inout [UInt64], _ dispatcher: Dispatcher) -> Void
    ) {
        self.sources = sources
        self.update = update
        lastVersions = versions
    }

    deinit {
        drainState.deallocate()
        hookLock.deallocate()
    }

    /// A source changed: recompute after the current reduce if this thread is dispatching,
    /// else now.
    @usableFromInline
    func sourceChanged() {
        let dispatcher = Dispatcher.current
        if dispatcher.mutex.isHeldByCurrentThread {
            recomputeAfterThisReduce(of: dispatcher)
        } else {
            drain(readingIn: dispatcher)
        }
    }
    private func recomputeAfterThisReduce(of dispatcher: Dispatcher) {
        let id = ObjectIdentifier(dispatcher)
        hookLock.lock()
        let isAsked = dispatchersWithHook.contains(id)
        if !isAsked {
            dispatchersWithHook.append(id)
        }
        hookLock.unlock()
        if isAsked {
            return
        }
        dispatcher.runAfterThisReduceLocked { [self] in
            runHook(of: dispatcher)
        }
    }

    /// The recomputation after a reduce; but first that of every combination this one is
    /// computed from (directly, or through `map` and the like) that the same reduce changed,
    /// so that this one reads their new values and changes once.
    private func runHook(of dispatcher: Dispatcher) {
        let id = ObjectIdentifier(dispatcher)
        if sources.contains(where: { Self.isWaiting($0, for: id) }) {
            // Run after them. The values form no cycle (a combination is made from values
            // that exist), so this ends.
            dispatcher.runAfterThisReduceLocked { [self] in
                runHook(of: dispatcher)
            }
            return
        }
        hookLock.lock()
        dispatchersWithHook.removeAll { $0 == id }
        hookLock.unlock()
        drain(readingIn: dispatcher)
    }

    func isWaitingForHook(of id: ObjectIdentifier) -> Bool {
        hookLock.lock()
        defer { hookLock.unlock() }
        return dispatchersWithHook.contains(id)
    }

    func dependsOnWaiting(for id: ObjectIdentifier) -> Bool {
        sources.contains { Self.isWaiting($0, for: id) }
    }

    /// Whether `core` is, or follows through derived values, a combination that waits for
    /// a recomputation after the current reduce of the dispatcher `id`.
    private static func isWaiting(_ core: ObserverCore, for id: ObjectIdentifier) -> Bool {
        var core = core
        // `upstream` is set once, before a core is shared.
        while let source = core.upstream?.source {
            if let combination = source as? any CombinationNode {
                return combination.isWaitingForHook(of: id) || combination.dependsOnWaiting(for: id)
            }
            guard let next = source as? ObserverCore else {
                return false
            }
            core = next
        }
        return false
    }

    /// Becomes the drainer, or leaves the work to the one there is. The drainer reads the
    /// sources and sets the derived core until no trigger came since its last read.
    /// `dispatcher`: the trigger's current dispatcher, whose mutex the reads hold (this
    /// thread may hold it already).
    private func drain(readingIn dispatcher: Dispatcher) {
        if !drainState.compareExchange(expected: 0, desired: 1) {
            // A drainer runs: have it read again. (It may have just gone idle: then retry.)
            while true {
                let state = drainState.load()
                if state == 2 || (state == 1 && drainState.compareExchange(expected: 1, desired: 2)) {
                    return
                }
                if state == 0 && drainState.compareExchange(expected: 0, desired: 1) {
                    break
                }
            }
        }
        while true {
            update(&lastVersions, dispatcher)
            if drainState.compareExchange(expected: 1, desired: 0) {
                return
            }
            // A trigger came meanwhile (state 2): read again.
            drainState.store(1)
        }
    }

    /// Runs `body` holding `dispatcher`'s mutex (when this thread does not hold it
    /// already), so that no dispatch of it is halfway through a reduce meanwhile.
    @usableFromInline
    static func withDispatchesPaused<Result>(of dispatcher: Dispatcher, _ body: () -> Result) -> Result {
        let mutex = dispatcher.mutex
        if mutex.isHeldByCurrentThread {
            return body()
        }
        mutex.lock()
        defer { mutex.unlock() }
        return body()
    }
}

/// What a combination tells the combinations made from it (see `Combination.runHook`).
protocol CombinationNode: AnyObject {
    /// Whether it waits for a recomputation after the current reduce of dispatcher `id`.
    func isWaitingForHook(of id: ObjectIdentifier) -> Bool
    /// Whether one of the combinations it is computed from does.
    func dependsOnWaiting(for id: ObjectIdentifier) -> Bool
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
        // `changed` if one moved. Runs holding the dispatcher's mutex outside a dispatch;
        // `transform`, which is the caller's code, runs after it, without that mutex.
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
        // No version is `.max`, so the first read sees every source as moved.
        var versions = [UInt64](repeating: .max, count: sourceCores.count)
        var changed = false
        let first = Combination.withDispatchesPaused(of: .current) { read(&versions, &changed) }
        let derived = ValueCore(transform(repeat each first))
        let combination = Combination(sources: sourceCores, versions: versions) {
            [weak derived] lastVersions, dispatcher in
            var changed = false
            let values = Combination.withDispatchesPaused(of: dispatcher) { read(&lastVersions, &changed) }
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
        derived.hold(combination, observations: observations)
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

    /// Makes this core a combined one: it holds `combination` (which holds the sources) and
    /// cleans `observations` (of the sources) when it goes; see `hold(upstream:source:)`.
    @usableFromInline
    func hold(_ combination: Combination, observations: [Dust]) {
        let upstream =
            observations.count == 1
            ? observations[0]
            : Dust { [observations] in
                for observation in observations {
                    observation.clean()
                }
            }
        hold(upstream: upstream, source: combination)
    }
}
