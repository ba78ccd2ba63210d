import CFluxCapacitorShims

#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// The registry's table: for each store type ever instantiated, its registered store, if
/// any, and the thread making one, if any. Insert-only.
///
/// `Dictionary` hashes keys with SipHash, and a table of slot objects costs a retain and a
/// release per lookup; both cost more than the rest of a registry lookup. A type's
/// identifier is the address of its metadata, so a multiplicative hash of the address
/// spreads keys well; with linear probing and a load factor of at most one half, a lookup
/// is a multiply and a compare or two. A bucket is 16 bytes, the key and the ``StoreWord``
/// side by side, so a lookup touches one cache line.
///
/// The memory is a ``StoreTableStorage`` (a `ManagedBuffer`), which lets go of the
/// registrations it still holds when it goes; growing moves them to a new one. A copy of
/// the table shares the storage (nothing copies one: the registry owns its table).
///
/// Who may touch what (``StoreRegistry`` keeps these rules):
/// - keys, and the storage (which `insert` may replace), change only with both the
///   registry's lock and the dispatcher's mutex held, so a reader holding either sees them
///   steady;
/// - a store word, and the registry's retired flag, are read and written with relaxed
///   atomics: `instantiate()` writes a word with both locks held, `clear()` with the
///   registry's lock only;
/// - creators are read and written with the registry's lock held.
struct StoreTable {
    private var storage: StoreTableStorage
    // Here, not in the storage's header: a `ManagedBuffer`'s header is a stored property of
    // a class, checked for exclusivity at run time on each access.
    private var shift: Int
    private(set) var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        shift = 64 - 4
        storage = .make(capacity: capacity)
    }

    /// The bucket of `type`, if it is in the table. Buckets stay valid until the next
    /// `insert`.
    ///
    /// Forced inline: without it, the rows `dispatch` and `instantiate` of
    /// `Benchmarks/instructions` are 5% and 11% dearer.
    @inline(__always)
    func bucket(of type: ObjectIdentifier) -> Int? {
        let key = Self.key(type)
        let mask = capacity &- 1
        var index = home(of: key)
        while true {
            let found = storage.key(in: index)
            if found == key {
                return index
            }
            if found == 0 {
                return nil
            }
            index = (index &+ 1) & mask
        }
    }

    /// The registration in `bucket`.
    func word(in bucket: Int) -> StoreWord {
        StoreWord(bits: storage.loadWord(in: bucket))
    }

    /// Replaces the registration in `bucket` and returns the one it held, which the caller
    /// lets go of once no reader can be loading it (see ``StoreRegistry``).
    func exchangeWord(_ word: StoreWord, in bucket: Int) -> StoreWord {
        let old = self.word(in: bucket)
        storage.storeWord(word.bits, in: bucket)
        _checkBucket(bucket)
        return old
    }

    /// Whether the registry has retired words for the next holder of the dispatcher's mutex
    /// to let go of (see ``StoreRegistry``).
    // Written under the registry's lock; read relaxed by dispatches (dispatcher's mutex held).
    var hasRetired: Bool {
        get { storage.loadRetiredFlag() != 0 }
        nonmutating set { storage.storeRetiredFlag(newValue ? 1 : 0) }
    }

    /// The thread making the store of `bucket`, or 0.
    func creator(in bucket: Int) -> UInt {
        storage.creator(in: bucket)
    }

    mutating func setCreator(_ thread: UInt, in bucket: Int) {
        storage.setCreator(thread, in: bucket)
        _checkBucket(bucket)
    }

    /// Adds `type`, which must not be in the table yet, and returns its bucket.
    mutating func insert(_ type: ObjectIdentifier) -> Int {
        if (count &+ 1) &* 2 > capacity {
            grow()
        }
        count &+= 1
        let bucket = place(Self.key(type), word: 0, creator: 0)
        _checkBucket(bucket)
        return bucket
    }

    /// The buckets in use.
    var buckets: [Int] {
        (0..<capacity).filter { storage.key(in: $0) != 0 }
    }

    private static func key(_ type: ObjectIdentifier) -> UInt {
        UInt(bitPattern: type)
    }

    /// The bucket where the probe for `key` starts.
    ///
    /// Forced inline, for the same rows as `bucket(of:)`.
    @inline(__always)
    private func home(of key: UInt) -> Int {
        // Fibonacci hashing of the address without its always-zero low bits.
        Int(truncatingIfNeeded: ((key >> 3) &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }

    /// Puts `key` in its bucket, with its registration moved as it is (never loaded).
    private func place(_ key: UInt, word: UInt, creator: UInt) -> Int {
        let mask = capacity &- 1
        var index = home(of: key)
        while storage.key(in: index) != 0 {
            guard storage.key(in: index) != key else {
                fatalError("StoreTable: a store type was inserted twice")
            }
            index = (index &+ 1) & mask
        }
        storage.fill(index, key: key, word: word, creator: creator)
        return index
    }

    /// Moves every bucket to a storage twice the size. The old storage, left without
    /// registrations, goes with its last reference.
    private mutating func grow() {
        let old = (storage: storage, capacity: capacity)
        capacity *= 2
        shift -= 1
        storage = .make(capacity: capacity)
        storage.storeRetiredFlag(old.storage.loadRetiredFlag())
        for index in 0..<old.capacity where old.storage.key(in: index) != 0 {
            let word = old.storage.loadWord(in: index)
            old.storage.storeWord(0, in: index)
            _ = place(old.storage.key(in: index), word: word, creator: old.storage.creator(in: index))
        }
        _checkInvariants()
    }
}

/// The memory of a ``StoreTable``, owned by Swift; its header is the number of buckets.
///
/// Words, in order: the registry's retired flag (`StoreTable.hasRetired`); `capacity`
/// buckets of two words, the key (0 marks an empty bucket: no type lives at address 0) and
/// the store word's bits (after the object's header and the flag, 32 bytes in, so each
/// bucket is 16-byte aligned); `capacity` creators (the thread making the bucket's store, or
/// 0).
final class StoreTableStorage: ManagedBuffer<Int, UInt> {
    /// A storage of `capacity` empty buckets.
    static func make(capacity: Int) -> StoreTableStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1 + 3 * capacity) { _ in capacity }, to: Self.self)
        storage.words.initialize(repeating: 0, count: 1 + 3 * capacity)
        return storage
    }

    /// Lets go of the registrations left in the table (none is being read: the table's
    /// owner is going).
    deinit {
        for bucket in 0..<header {
            StoreWord(bits: loadWord(in: bucket)).letGo()
        }
    }

    private var words: UnsafeMutablePointer<UInt> { withUnsafeMutablePointerToElements { $0 } }

    func loadRetiredFlag() -> UInt {
        cflux_word_load_relaxed(words)
    }

    func storeRetiredFlag(_ flag: UInt) {
        cflux_word_store_relaxed(words, flag)
    }

    func key(in bucket: Int) -> UInt {
        words[1 &+ 2 &* bucket]
    }

    func loadWord(in bucket: Int) -> UInt {
        cflux_word_load_relaxed(words + (2 &+ 2 &* bucket))
    }

    func storeWord(_ bits: UInt, in bucket: Int) {
        cflux_word_store_relaxed(words + (2 &+ 2 &* bucket), bits)
    }

    // Creators: read and written with the registry's lock held, never by a dispatch, so
    // they may read the header.
    func creator(in bucket: Int) -> UInt {
        words[1 &+ 2 &* header &+ bucket]
    }

    func setCreator(_ thread: UInt, in bucket: Int) {
        words[1 &+ 2 &* header &+ bucket] = thread
    }

    /// Fills the empty `bucket` (with both locks held, or in a storage no one reads yet).
    func fill(_ bucket: Int, key: UInt, word: UInt, creator: UInt) {
        words[1 &+ 2 &* bucket] = key
        storeWord(word, in: bucket)
        setCreator(creator, in: bucket)
    }
}

/// One registration in the ``StoreTable``: what the table holds of a store.
///
/// - 0: none.
/// - A native Swift store's address: the table holds an *unowned* reference to it
///   (`swift_unownedRetain`), which keeps its memory, not its life. Loading it is
///   `swift_tryRetain`, which fails once the store's deinit has begun. Unlike a weak
///   reference, this makes no side table, so every retain and release of the store stays on
///   the runtime's fast path, and a load is one compare-and-swap.
/// - On Apple platforms, for a store whose class descends from `NSObject`: the address of
///   a ``WeakStoreBox`` with bit 0 set, which the table holds strongly. Such a store is not
///   a native Swift object: Swift retains and releases it through the Objective-C runtime
///   (the runtime's `swift_unknownObject…` entry points, "for an object which might not be
///   a native Swift object", swift/include/swift/Runtime/HeapObject.h), and `NSObject`
///   keeps its own counts and weak-reference machinery (`retain`, `release`,
///   `allowsWeakReference()`, `retainWeakReference()` in Apple's ObjectiveC reference), so
///   `swift_tryRetain` and `swift_unownedRetain`, which work on the native object header,
///   must never see one. A weak reference works for any object.
///
/// A store becomes a word in `init(registering:)` and a word becomes an object in
/// `object(at:)`, and nowhere else.
///
/// (apple-check cannot see the `canImport(ObjectiveC)` branches here: its stand-in SDK has
/// no Objective-C. They call `object_getClass(_ obj: Any?) -> AnyClass?` and
/// `class_getSuperclass(_ cls: AnyClass?) -> AnyClass?` as Apple's ObjectiveC reference
/// declares them, available since macOS 10.5 and iOS 2.)
struct StoreWord: Equatable {
    let bits: UInt

    init(bits: UInt) {
        self.bits = bits
    }

    /// No registration.
    static let none = StoreWord(bits: 0)

    /// A registration of `store`, which the caller owns until it lets go of it.
    init(registering store: AnyObject) {
        #if canImport(ObjectiveC)
        if !WeakStoreBox.isNative(store) {
            bits = UInt(bitPattern: Unmanaged.passRetained(WeakStoreBox(store)).toOpaque()) | 1
            return
        }
        #endif
        bits = UInt(bitPattern: ObjectIdentifier(store))
        swift_unownedRetain(Self.object(at: bits).toOpaque())
    }

    /// The object at `address` (a word's bits without the tag), unretained: a store, which
    /// its word holds unowned, or on Apple platforms a box, which its word holds strongly.
    private static func object(at address: UInt) -> Unmanaged<AnyObject> {
        .fromOpaque(UnsafeRawPointer(bitPattern: address)!)
    }

    /// The store, retained, unless there is none or its deinit has begun. Call only while
    /// this registration cannot be let go of (see ``StoreRegistry``).
    func liveStore() -> AnyObject? {
        guard bits != 0 else {
            return nil
        }
        #if canImport(ObjectiveC)
        if bits & 1 != 0 {
            return box.object
        }
        #endif
        let store = Self.object(at: bits)
        guard swift_tryRetain(store.toOpaque()) != nil else {
            return nil
        }
        return store.takeRetainedValue()
    }

    /// Whether this registers `store` (by address: a dead registration keeps the memory of
    /// a native store, so no live store can have its address).
    func registers(_ store: AnyObject) -> Bool {
        let address = UInt(bitPattern: ObjectIdentifier(store))
        #if canImport(ObjectiveC)
        if bits & 1 != 0 {
            return box.address == address
        }
        #endif
        return bits == address
    }

    /// Lets go of what the table held. Runs no deinit of a store (an unowned or a weak
    /// reference keeps none alive), so it may run with a lock held.
    func letGo() {
        guard bits != 0 else {
            return
        }
        #if canImport(ObjectiveC)
        if bits & 1 != 0 {
            Self.object(at: bits & ~1).release()
            return
        }
        #endif
        swift_unownedRelease(Self.object(at: bits).toOpaque())
    }

    #if canImport(ObjectiveC)
    private var box: WeakStoreBox {
        unsafeDowncast(Self.object(at: bits & ~1).takeUnretainedValue(), to: WeakStoreBox.self)
    }
    #endif
}

#if canImport(ObjectiveC)
/// A weak reference to a store whose class descends from `NSObject` (see ``StoreWord``).
final class WeakStoreBox {
    weak var object: AnyObject?
    let address: UInt

    init(_ object: AnyObject) {
        self.object = object
        address = UInt(bitPattern: ObjectIdentifier(object))
    }

    /// The root class of native Swift classes (`Swift._SwiftObject` on Apple platforms): a
    /// class whose chain of superclasses ends there is native, one that ends at `NSObject`
    /// (or another Objective-C root) is not.
    private static let nativeRoot = ObjectIdentifier(root(of: WeakStoreBox.self))

    static func isNative(_ object: AnyObject) -> Bool {
        guard let type = object_getClass(object) else {
            return false
        }
        return ObjectIdentifier(root(of: type)) == nativeRoot
    }

    private static func root(of type: AnyClass) -> AnyClass {
        var root: AnyClass = type
        while let superclass = class_getSuperclass(root) {
            root = superclass
        }
        return root
    }
}
#endif

extension StoreTable {
    #if FLUXCAPACITOR_INTERNAL_CHECKS
    /// Stops with "internal inconsistency" unless the table is well formed: its size is a
    /// power of two that matches `shift` and its storage, at most half full; `count` is the
    /// number of used buckets; no type is in two buckets; every used bucket is found by
    /// probing from its type's home bucket (no empty bucket between them); empty buckets
    /// have no creator and no store; and the retired flag is 0 or 1. Linear in the table's
    /// size (with probes of bounded length at a load factor of one half); run after each
    /// growth, so its cost per insert stays constant (amortized). Compiled in only with
    /// `FLUXCAPACITOR_INTERNAL_CHECKS` (see Internal/README.md).
    func _checkInvariants() {
        guard
            capacity >= 16 && capacity & (capacity - 1) == 0 && 1 << (64 - shift) == capacity
                && storage.header == capacity
        else {
            fatalError(
                "StoreTable: internal inconsistency: \(capacity) buckets with shift \(shift), "
                    + "storage of \(storage.header)")
        }
        let used = buckets
        guard used.count == count && count * 2 <= capacity else {
            fatalError("StoreTable: internal inconsistency: count \(count), \(used.count) buckets used of \(capacity)")
        }
        guard Set(used.map { storage.key(in: $0) }).count == used.count else {
            fatalError("StoreTable: internal inconsistency: a store type is in two buckets")
        }
        guard storage.loadRetiredFlag() <= 1 else {
            fatalError("StoreTable: internal inconsistency: retired flag \(storage.loadRetiredFlag())")
        }
        for index in 0..<capacity {
            _checkBucket(index)
        }
    }

    /// The checks of `_checkInvariants()` that concern one bucket, in the time of one probe:
    /// run after each change to a bucket.
    func _checkBucket(_ index: Int) {
        let key = storage.key(in: index)
        guard key != 0 else {
            guard storage.creator(in: index) == 0 && storage.loadWord(in: index) == 0 else {
                fatalError("StoreTable: internal inconsistency: empty bucket \(index) has a creator or a store")
            }
            return
        }
        var probe = home(of: key)
        while probe != index {
            guard storage.key(in: probe) != 0 && storage.key(in: probe) != key else {
                fatalError(
                    "StoreTable: internal inconsistency: bucket \(index) is not the first of its type "
                        + "reachable from its home bucket \(home(of: key)) (bucket \(probe))")
            }
            probe = (probe + 1) & (capacity - 1)
        }
    }
    #else
    func _checkInvariants() {}

    func _checkBucket(_ index: Int) {}
    #endif
}
