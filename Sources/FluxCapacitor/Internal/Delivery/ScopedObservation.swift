/// The dust of a scoped observation, handed to its own observer once registered, so that
/// the observer can clean the observation when the object is gone.
final class ScopedObservation: @unchecked Sendable {
    // Sendable: `dust` is guarded by the striped mutex for this object.
    private var dust: Dust?
    private var cleanedEarly = false

    func hold(_ dust: Dust) {
        let cleanNow = StripedLocks.mutex(for: self).withLock {
            self.dust = dust
            return cleanedEarly
        }
        if cleanNow {
            dust.clean()
        }
    }

    func clean() {
        let dust = StripedLocks.mutex(for: self).withLock {
            cleanedEarly = true
            return self.dust
        }
        dust?.clean()
    }
}

extension ScopedObservation {
    /// Observes with `observe` for as long as `object` lives, handing `changes` the object
    /// with each value; once the object is gone, the next value cleans the observation. What
    /// the scoped `observe` of values and signals does.
    static func observe<Object: AnyObject & Sendable, Value: Sendable>(
        duringScopeOf object: Object,
        changes: @escaping @Sendable (Object, Value) -> Void,
        through observe: (@escaping @Sendable (Value) -> Void) -> Dust
    ) -> Dust {
        let observation = ScopedObservation()
        let dust = observe { [weak object] value in
            guard let object else {
                observation.clean()
                return
            }
            changes(object, value)
        }
        observation.hold(dust)
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
                    observation.clean()
                    return
                }
                changes(object, value)
            }
        }
        observation.hold(dust)
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
