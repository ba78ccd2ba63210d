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
/// Who may touch what (``StoreRegistry`` keeps these rules):
/// - keys, and the table's buffer (which `insert` may replace), change only with both the
///   registry's lock and the dispatcher's mutex held, so a reader holding either sees them
///   steady;
/// - a store word is read and written with relaxed atomics: `instantiate()` writes one with
///   both locks held, `clear()` with the registry's lock only;
/// - creators are read and written with the registry's lock held.
///
/// The owner calls `deallocate()` from its `deinit`.
struct StoreTable {
    /// `capacity` buckets of two words: the key (0 marks an empty bucket: no type lives at
    /// address 0) and the store word's bits.
    private var words: UnsafeMutablePointer<UInt>
    private var creators: ContiguousArray<UInt>
    private var shift: Int
    private(set) var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        shift = 64 - 4
        words = .allocate(capacity: 2 * capacity)
        words.initialize(repeating: 0, count: 2 * capacity)
        creators = ContiguousArray(repeating: 0, count: capacity)
    }

    /// Frees the buffer and lets go of every registration. Nothing may read the table after.
    func deallocate() {
        for bucket in buckets {
            StoreWord(bits: words[2 &* bucket &+ 1]).letGo()
        }
        words.deallocate()
    }

    /// The bucket of `type`, if it is in the table. Buckets stay valid until the next
    /// `insert`.
    @inline(__always)
    func bucket(of type: ObjectIdentifier) -> Int? {
        let key = Self.key(type)
        let mask = capacity &- 1
        var index = home(of: key)
        while true {
            let found = words[2 &* index]
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
    @inline(__always)
    func word(in bucket: Int) -> StoreWord {
        StoreWord(bits: cflux_word_load_relaxed(words + (2 &* bucket &+ 1)))
    }

    /// Replaces the registration in `bucket` and returns the one it held, which the caller
    /// lets go of once no reader can be loading it (see ``StoreRegistry``).
    func exchangeWord(_ word: StoreWord, in bucket: Int) -> StoreWord {
        let slot = words + (2 &* bucket &+ 1)
        let old = StoreWord(bits: cflux_word_load_relaxed(slot))
        cflux_word_store_relaxed(slot, word.bits)
        _checkBucket(bucket)
        return old
    }

    /// The thread making the store of `bucket`, or 0.
    func creator(in bucket: Int) -> UInt {
        creators[bucket]
    }

    mutating func setCreator(_ thread: UInt, in bucket: Int) {
        creators[bucket] = thread
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
        (0..<capacity).filter { words[2 &* $0] != 0 }
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

    /// Puts `key` in its bucket, with its registration moved as it is (never loaded).
    private mutating func place(_ key: UInt, word: UInt, creator: UInt) -> Int {
        let mask = capacity &- 1
        var index = home(of: key)
        while words[2 &* index] != 0 {
            precondition(words[2 &* index] != key, "StoreTable: a store type was inserted twice")
            index = (index &+ 1) & mask
        }
        words[2 &* index] = key
        words[2 &* index &+ 1] = word
        creators[index] = creator
        return index
    }

    private mutating func grow() {
        let old = (words: words, creators: creators, capacity: capacity)
        capacity *= 2
        shift -= 1
        words = .allocate(capacity: 2 * capacity)
        words.initialize(repeating: 0, count: 2 * capacity)
        creators = ContiguousArray(repeating: 0, count: capacity)
        for index in 0..<old.capacity where old.words[2 &* index] != 0 {
            _ = place(old.words[2 &* index], word: old.words[2 &* index &+ 1], creator: old.creators[index])
        }
        old.words.deallocate()
        _checkInvariants()
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
        let address = UInt(bitPattern: Unmanaged.passUnretained(store).toOpaque())
        #if canImport(ObjectiveC)
        if !WeakStoreBox.isNative(store) {
            let box = Unmanaged.passRetained(WeakStoreBox(store)).toOpaque()
            bits = UInt(bitPattern: box) | 1
            return
        }
        #endif
        swift_unownedRetain(Unmanaged.passUnretained(store).toOpaque())
        bits = address
    }

    /// The store, retained, unless there is none or its deinit has begun. Call only while
    /// this registration cannot be let go of (see ``StoreRegistry``).
    @inline(__always)
    func liveStore() -> AnyObject? {
        guard bits != 0 else {
            return nil
        }
        #if canImport(ObjectiveC)
        if bits & 1 != 0 {
            return box.object
        }
        #endif
        let object = UnsafeMutableRawPointer(bitPattern: bits)!
        guard swift_tryRetain(object) != nil else {
            return nil
        }
        return Unmanaged<AnyObject>.fromOpaque(object).takeRetainedValue()
    }

    /// Whether this registers `store` (by address: a dead registration keeps the memory of
    /// a native store, so no live store can have its address).
    func registers(_ store: AnyObject) -> Bool {
        let address = UInt(bitPattern: Unmanaged.passUnretained(store).toOpaque())
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
            Unmanaged<WeakStoreBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~1)!).release()
            return
        }
        #endif
        swift_unownedRelease(UnsafeMutableRawPointer(bitPattern: bits)!)
    }

    #if canImport(ObjectiveC)
    private var box: WeakStoreBox {
        Unmanaged<WeakStoreBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~1)!).takeUnretainedValue()
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
        address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
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
    /// power of two that matches `shift`, at most half full; `count` is the number of used
    /// buckets; no type is in two buckets; every used bucket is found by probing from its
    /// type's home bucket (no empty bucket between them); and empty buckets have no creator
    /// and no store. Linear in the table's size (with probes of bounded length at a load
    /// factor of one half); run after each growth, so its cost per insert stays constant
    /// (amortized). Compiled in only with `FLUXCAPACITOR_INTERNAL_CHECKS` (see
    /// Internal/README.md).
    func _checkInvariants() {
        precondition(
            capacity >= 16 && capacity & (capacity - 1) == 0 && 1 << (64 - shift) == capacity,
            "StoreTable: internal inconsistency: \(capacity) buckets with shift \(shift)")
        let used = buckets
        precondition(
            used.count == count && count * 2 <= capacity,
            "StoreTable: internal inconsistency: count \(count), \(used.count) buckets used of \(capacity)")
        precondition(
            Set(used.map { words[2 * $0] }).count == used.count,
            "StoreTable: internal inconsistency: a store type is in two buckets")
        for index in 0..<capacity {
            _checkBucket(index)
        }
    }

    /// The checks of `_checkInvariants()` that concern one bucket, in the time of one probe:
    /// run after each change to a bucket.
    func _checkBucket(_ index: Int) {
        let key = words[2 * index]
        guard key != 0 else {
            precondition(
                creators[index] == 0 && words[2 * index + 1] == 0,
                "StoreTable: internal inconsistency: empty bucket \(index) has a creator or a store")
            return
        }
        var probe = home(of: key)
        while probe != index {
            precondition(
                words[2 * probe] != 0 && words[2 * probe] != key,
                "StoreTable: internal inconsistency: bucket \(index) is not the first of its type "
                    + "reachable from its home bucket \(home(of: key)) (bucket \(probe))")
            probe = (probe + 1) & (capacity - 1)
        }
    }
    #else
    @inline(__always)
    func _checkInvariants() {}

    @inline(__always)
    func _checkBucket(_ index: Int) {}
    #endif
}
