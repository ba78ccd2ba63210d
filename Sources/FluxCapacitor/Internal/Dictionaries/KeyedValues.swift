/// The shared state behind a ``VariableDictionary`` and the ``ConstantDictionary``s made
/// from it: the keys in order, as a value core of their own (`keys`, which a
/// `Constant<[Key]>` shows), and one value core per element (`table`), so that a change of
/// one element reaches that element's observers only.
///
/// - **One lock for the structure.** The keys' core's lock guards `table` as well as the
///   keys, so that a key is in `table` exactly when it is in `keys`: an insertion or a
///   removal changes both holding it (`keys.lockForUpdate()`, which waits its turn and
///   tells Observation as any change of a value does), then delivers the new keys after
///   unlocking. A look-up holds it for the look-up only; an element's change then holds
///   only that element's core. So no thread ever holds two of these locks.
/// - **Elements are values.** Each element's core is a `ValueCore`, so its observers, its
///   Observation bridge, its first value and its in-place change in a dispatch are those of
///   a ``Variable``. A removed element's core is taken out of `table`: observers that hold
///   it (through ``PrimitiveDictionary/constant(for:)``) see no more changes, and its
///   Observation trackers hear of the removal.
/// - **Any change.** A dictionary made to tell of every change (a persisted one, for
///   FluxCapacitorPersistence) has `changes`, sent after each change of an element or of
///   the keys; the others have none, and a change pays one check for it.
@usableFromInline
final class KeyedValues<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // Sendable: `keys.lock` guards `table`; each element's core guards its value, and
    // `keys` its keys; `changes` is immutable (and a core is Sendable).

    /// The keys, in the order they were inserted.
    @usableFromInline
    let keys: ValueCore<[Key]>
    /// Each element's core, by key. Guarded by `keys.lock`.
    // Unchecked: `keys.lock` serializes every access.
    @usableFromInline
    @exclusivity(unchecked)
    var table: [Key: ValueCore<Value>]
    /// What hears of every change, in a dictionary made to tell of them.
    @usableFromInline
    let changes: DeliveryCore<Void>?

    @inlinable
    init(_ elements: some Sequence<(Key, Value)>, tellingOfEveryChange: Bool = false) {
        var keys: [Key] = []
        var table: [Key: ValueCore<Value>] = [:]
        for (key, value) in elements {
            if let core = table[key] {
                core.storage.element = value
            } else {
                keys.append(key)
                table[key] = ValueCore(value)
            }
        }
        self.keys = ValueCore(keys)
        self.table = table
        changes = tellingOfEveryChange ? DeliveryCore() : nil
    }

    // MARK: Reading

    /// The core of `key`'s element.
    @inlinable
    func core(for key: Key) -> ValueCore<Value>? {
        keys.lockOrTrap()
        defer { keys.lock.unlock() }
        return table[key]
    }

    /// The elements in the keys' order, without taking part in Observation (for encoding).
    @inlinable
    func snapshot() -> [(Key, Value)] {
        let (keys, cores) = keys.lock.withLock { (self.keys.storage.element, table) }
        return keys.compactMap { key in cores[key].map { (key, $0.read()) } }
    }

    // MARK: Changing

    /// Sets `key`'s element to `value`, inserting it after the others if it is not there.
    @inlinable
    func set(_ value: Value, forKey key: Key) {
        if let core = core(for: key) {
            core.set(value)
            changes?.send(())
        } else {
            insert(value, forKey: key)
        }
    }

    /// Inserts `key`'s element after the others (or sets it, if another thread inserted it
    /// meanwhile).
    @inlinable
    func insert(_ value: Value, forKey key: Key) {
        var inserted = false
        changeStructure { keys, table in
            guard table[key] == nil else { return }
            keys.append(key)
            table[key] = ValueCore(value)
            inserted = true
        }
        if !inserted {
            set(value, forKey: key)
        }
    }

    /// Removes `key`'s element; returns its value.
    @inlinable
    @discardableResult
    func removeValue(forKey key: Key) -> Value? {
        // A key that is not there changes nothing, and tells nobody.
        guard core(for: key) != nil else { return nil }
        var removed: ValueCore<Value>?
        changeStructure { keys, table in
            removed = table.removeValue(forKey: key)
            if removed != nil, let index = keys.firstIndex(of: key) {
                keys.remove(at: index)
            }
        }
        removed?.tellObservationOfARemoval()
        return removed?.read()
    }

    /// Removes the elements for which `shouldBeRemoved` is true (called with no lock held).
    @inlinable
    func removeAll(where shouldBeRemoved: (Value) throws -> Bool) rethrows {
        let (keys, cores) = keys.lock.withLock { (self.keys.storage.element, table) }
        var doomed: Set<Key> = []
        for key in keys {
            if let core = cores[key], try shouldBeRemoved(core.read()) {
                doomed.insert(key)
            }
        }
        guard !doomed.isEmpty else { return }
        var removed: [ValueCore<Value>] = []
        changeStructure { keys, table in
            keys.removeAll { key in
                guard doomed.contains(key), let core = table.removeValue(forKey: key) else { return false }
                removed.append(core)
                return true
            }
        }
        for core in removed {
            core.tellObservationOfARemoval()
        }
    }

    /// Removes every element.
    @inlinable
    func removeAll() {
        guard !keys.read().isEmpty else { return }
        var removed: [Key: ValueCore<Value>] = [:]
        changeStructure { keys, table in
            keys.removeAll()
            swap(&table, &removed)
        }
        for core in removed.values {
            core.tellObservationOfARemoval()
        }
    }

    /// Changes the keys and `table` together, holding the keys' core as `update(_:)` holds
    /// a value, then delivers the new keys, and tells what hears of every change.
    @inlinable
    func changeStructure(_ change: (inout [Key], inout [Key: ValueCore<Value>]) -> Void) {
        let update = keys.lockForUpdate()
        change(&keys.storage.element, &table)
        keys.deliverUpdateAndUnlock(update)
        changes?.send(())
    }

    /// Ends a change of `key`'s element through the subscript's `_modify`: `core` is the
    /// element's core when the change began (`nil`: not there), held for the change if
    /// `change` is not `nil` (in a dispatch); `element` is what the change left (`nil`:
    /// remove it).
    // Inlinable so that it runs specialized, but not inlined, so that the subscript's
    // `_modify` stays small enough to be inlined into the caller: as a call, its frame did
    // not fit a coroutine's buffer, a malloc at each change.
    @inlinable
    @inline(never)
    func endChange(
        of key: Key, core: ValueCore<Value>?, _ change: ValueCore<Value>.Update?, _ element: Value?
    ) {
        switch (core, element) {
        case (let core?, var element?):
            if let change {
                swap(&core.storage.element, &element)
                core.endChangeInPlace(change)
                // The value replaced goes here, after the unlock (`element` now holds it).
                withExtendedLifetime(element) {}
            } else {
                core.set(element)
            }
            changes?.send(())
        case (let core?, nil):
            if let change {
                core.endChangeInPlace(change)
            }
            removeValue(forKey: key)
        case (nil, let element?):
            insert(element, forKey: key)
        case (nil, nil):
            break
        }
    }

    // MARK: Any change

    /// Calls `changed` after every change of an element or of the keys, until the returned
    /// dust is cleaned; only for a dictionary made `tellingOfEveryChange` (for
    /// FluxCapacitorPersistence).
    func observeChanges(_ changed: @escaping @Sendable () -> Void) -> Dust {
        guard let changes else {
            fatalError(
                "KeyedValues: internal inconsistency: changes observed of a dictionary that tells of none")
        }
        return changes.observeChanges(on: .current) { changed() }
    }
}

extension ValueCore {
    /// Tells the value's Observation trackers that it changed, without a change: its key was
    /// removed from a dictionary (`KeyedValues`).
    @usableFromInline
    final func tellObservationOfARemoval() {
        let observation = lock.withLock { storage.observation }
        observation?.withBridge { bridge in
            bridge.willSet()
            bridge.didSet()
        }
    }
}
