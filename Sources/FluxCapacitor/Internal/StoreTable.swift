/// The registry's table: for each store type ever instantiated, a weak reference to its
/// live instance and the thread making one, if any. Insert-only.
///
/// `Dictionary` hashes keys with SipHash, and a table of slot objects costs a retain and a
/// release per lookup; both cost more than the rest of a registry lookup. A type's
/// identifier is the address of its metadata, so a multiplicative hash of the address
/// spreads keys well; with linear probing and a load factor of at most one half, a lookup
/// is a multiply and a compare or two, and the weak reference is loaded in place (the weak
/// slots live in a raw buffer, because reading one out of an array copies it, which costs
/// two more runtime calls). The owner calls `deallocate()` from its `deinit`.
struct StoreTable {
    private struct WeakStore {
        weak var object: AnyObject?
    }

    /// 0 marks an empty bucket: no type lives at address 0.
    private var keys: ContiguousArray<UInt>
    private var stores: UnsafeMutablePointer<WeakStore>
    private var creators: ContiguousArray<UInt>
    private var shift: Int
    private(set) var count = 0

    init() {
        keys = ContiguousArray(repeating: 0, count: 16)
        stores = .allocate(capacity: 16)
        stores.initialize(repeating: WeakStore(), count: 16)
        creators = ContiguousArray(repeating: 0, count: 16)
        shift = 64 - 4
    }

    func deallocate() {
        stores.deinitialize(count: keys.count)
        stores.deallocate()
    }

    /// The bucket of `type`, if it is in the table. Buckets stay valid until the next
    /// `insert`.
    @inline(__always)
    func bucket(of type: ObjectIdentifier) -> Int? {
        let key = Self.key(type)
        let mask = keys.count - 1
        var index = home(of: key)
        while true {
            let found = keys[index]
            if found == key {
                return index
            }
            if found == 0 {
                return nil
            }
            index = (index + 1) & mask
        }
    }

    /// The live store in `bucket`, retained, or `nil`.
    @inline(__always)
    func store(in bucket: Int) -> AnyObject? {
        stores[bucket].object
    }

    func setStore(_ store: AnyObject?, in bucket: Int) {
        stores[bucket].object = store
        _checkInvariants()
    }

    /// The thread making the store of `bucket`, or 0.
    func creator(in bucket: Int) -> UInt {
        creators[bucket]
    }

    mutating func setCreator(_ thread: UInt, in bucket: Int) {
        creators[bucket] = thread
        _checkInvariants()
    }

    /// Adds `type`, which must not be in the table yet, and returns its bucket.
    mutating func insert(_ type: ObjectIdentifier) -> Int {
        if (count + 1) * 2 > keys.count {
            grow()
        }
        count += 1
        let bucket = place(Self.key(type), store: WeakStore(), creator: 0)
        _checkInvariants()
        return bucket
    }

    /// The buckets in use.
    var buckets: [Int] {
        keys.indices.filter { keys[$0] != 0 }
    }

    @inline(__always)
    private static func key(_ type: ObjectIdentifier) -> UInt {
        UInt(bitPattern: Int(bitPattern: type))
    }

    @inline(__always)
    private func home(of key: UInt) -> Int {
        // Fibonacci hashing of the address without its always-zero low bits.
        Int(truncatingIfNeeded: ((key >> 3) &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }

    /// Puts `key` in its bucket. `store` is copied as a weak reference, never loaded: a
    /// load makes a strong reference, whose release could be a store's last, and run its
    /// deinit with the registry's mutex held.
    private mutating func place(_ key: UInt, store: WeakStore, creator: UInt) -> Int {
        let mask = keys.count - 1
        var index = home(of: key)
        while keys[index] != 0 {
            precondition(keys[index] != key, "StoreTable: a store type was inserted twice")
            index = (index + 1) & mask
        }
        keys[index] = key
        stores[index] = store
        creators[index] = creator
        return index
    }

    private mutating func grow() {
        let old = (keys: keys, stores: stores, creators: creators)
        let capacity = keys.count * 2
        keys = ContiguousArray(repeating: 0, count: capacity)
        stores = .allocate(capacity: capacity)
        stores.initialize(repeating: WeakStore(), count: capacity)
        creators = ContiguousArray(repeating: 0, count: capacity)
        shift -= 1
        for index in old.keys.indices where old.keys[index] != 0 {
            _ = place(old.keys[index], store: old.stores[index], creator: old.creators[index])
        }
        old.stores.deinitialize(count: old.keys.count)
        old.stores.deallocate()
        _checkInvariants()
    }
}

extension StoreTable {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Stops with "internal inconsistency" unless the table is well formed: its size is a
    /// power of two that matches `shift`, at most half full; `count` is the number of used
    /// buckets; no type is in two buckets; every used bucket is found by probing from its
    /// type's home bucket (no empty bucket between them); and empty buckets have no
    /// creator. (Store slots are not read: loading a weak reference retains the store, and
    /// its release could run a deinit with the registry locked.) Compiled in only with
    /// `FLUXCAPACITOR_INTERNAL_CHECKS` (see Internal/README.md).
    func _checkInvariants() {
        let capacity = keys.count
        precondition(
            capacity >= 16 && capacity & (capacity - 1) == 0 && 1 << (64 - shift) == capacity,
            "StoreTable: internal inconsistency: \(capacity) buckets with shift \(shift)")
        let used = keys.indices.filter { keys[$0] != 0 }
        precondition(
            used.count == count && count * 2 <= capacity,
            "StoreTable: internal inconsistency: count \(count), \(used.count) buckets used of \(capacity)")
        precondition(
            Set(used.map { keys[$0] }).count == used.count,
            "StoreTable: internal inconsistency: a store type is in two buckets")
        for index in keys.indices {
            let key = keys[index]
            guard key != 0 else {
                precondition(
                    creators[index] == 0,
                    "StoreTable: internal inconsistency: empty bucket \(index) has a creator")
                continue
            }
            var probe = home(of: key)
            while probe != index {
                precondition(
                    keys[probe] != 0,
                    "StoreTable: internal inconsistency: bucket \(index) is not reachable "
                        + "from its home bucket \(home(of: key)) (bucket \(probe) is empty)")
                probe = (probe + 1) & (capacity - 1)
            }
        }
    }
    #else
    @inline(__always)
    func _checkInvariants() {}
    #endif
}
