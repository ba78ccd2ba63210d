/// The dust of a scoped observation, handed to its own observer once registered, so that
/// the observer can end the observation when the object is gone.
final class ScopedObservation: @unchecked Sendable {
    // Sendable: `dust` is guarded by the striped mutex for this object.
    private var dust: Dust?
    private var endedEarly = false

    func begin(_ dust: Dust) {
        let endNow = StripedLocks.mutex(for: self).withLock {
            self.dust = dust
            return endedEarly
        }
        if endNow {
            dust.clean()
        }
    }

    func end() {
        let dust = StripedLocks.mutex(for: self).withLock {
            endedEarly = true
            return self.dust
        }
        dust?.clean()
    }
}

extension ScopedObservation {
    /// Observes with `observe` for as long as `object` lives, handing `changes` the object
    /// with each value; once the object is gone, the next value ends the observation. What
    /// the scoped `observe` of values and signals does.
    static func observe<Object: AnyObject & Sendable, Value: Sendable>(
        duringScopeOf object: Object,
        changes: @escaping @Sendable (Object, Value) -> Void,
        through observe: (@escaping @Sendable (Value) -> Void) -> Dust
    ) -> Dust {
        let observation = ScopedObservation()
        let dust = observe { [weak object] value in
            guard let object else {
                observation.end()
                return
            }
            changes(object, value)
        }
        observation.begin(dust)
        return dust
    }

    /// ``observe(duringScopeOf:changes:through:)`` for a `@MainActor` object: `observe` must
    /// deliver on ``ExecuteQueue/main``, where `changes` runs on the main actor.
    @MainActor
    static func observeOnMainActor<Object: AnyObject, Value: Sendable>(
        duringScopeOf object: Object,
        changes: @escaping @MainActor (Object, Value) -> Void,
        through observe: (@escaping @Sendable (Value) -> Void) -> Dust
    ) -> Dust {
        let reference = MainActorWeakReference(object)
        let observation = ScopedObservation()
        let dust = observe { value in
            MainActor.assumeIsolated {
                guard let object = reference.object else {
                    observation.end()
                    return
                }
                changes(object, value)
            }
        }
        observation.begin(dust)
        return dust
    }
}

/// A weak reference to a main-actor object, carried through `@Sendable` closures and only
/// read on the main actor.
private final class MainActorWeakReference<Object: AnyObject>: @unchecked Sendable {
    // Sendable: `object` is read only inside `MainActor.assumeIsolated`, on the main actor,
    // and written only at creation.
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
