public import Observation

/// How a value core takes part in Swift's Observation (`withObservationTracking`,
/// SwiftUI, `@Observable` models, `Observations`): the registrar that records reads of the
/// value and tells trackers about changes.
///
/// A core makes its bridge on the first read through `.value` and never lets go of it
/// (see `ValueCore.Storage.observation`), so a value that is only observed, bound or
/// persisted, and never read through `.value`, never reaches Observation: its sets stay as
/// cheap as they were. A value that was read pays one registrar `willSet`/`didSet` pair per
/// change, whether or not anything tracks it: Observation has no public way to ask.
///
/// The key path handed to the registrar names a property of this non-generic class, so
/// it is made once per process: a key path into the generic core would be instantiated
/// (with four mallocs) on every call.
@usableFromInline
final class ObservationBridge: Observable, Sendable {
    /// The registrar of the value's one observable property.
    let registrar = ObservationRegistrar()

    /// The key path the registrar knows the value by, kept rather than fetched from the
    /// runtime's key path cache at every call: that fetch made the row `setOfReadValue` of
    /// `Benchmarks/instructions` 29% dearer, and a static `let` costs a `swift_once`
    /// check per call.
    private let keyPath: any KeyPath<ObservationBridge, ObservationRegistrar> & Sendable = \.registrar

    @usableFromInline
    init() {}

    /// Records a read of the value in the current `withObservationTracking` scope, if any.
    @usableFromInline
    func access() {
        registrar.access(self, keyPath: keyPath)
    }

    /// Tells trackers that the value is about to change: `withObservationTracking`'s
    /// `onChange` runs here, on the calling thread. Call without holding the core's mutex.
    @usableFromInline
    func willSet() {
        registrar.willSet(self, keyPath: keyPath)
    }

    /// Tells trackers that the value changed. Call without holding the core's mutex.
    @usableFromInline
    func didSet() {
        registrar.didSet(self, keyPath: keyPath)
    }
}

extension Unmanaged<ObservationBridge> {
    /// Calls `body` with the bridge, without retaining it: a value core holds its bridge
    /// (+1) from the first read through `.value` until its deinit, and each caller holds
    /// the core. A retain and release per change make the row `setOfReadValue` of
    /// `Benchmarks/instructions` a sixth dearer.
    @inlinable
    func withBridge(_ body: (ObservationBridge) -> Void) {
        _withUnsafeGuaranteedRef(body)
    }
}
