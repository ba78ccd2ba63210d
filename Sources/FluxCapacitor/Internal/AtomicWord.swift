public import CFluxCapacitorShims

/// One word that threads read and change without a lock (see `cflux_atomic_word` in the C
/// shims): the value core's round state, which a round that nobody disturbed ends without
/// taking the core's lock.
///
/// A value of this type is a handle: copies share one word. The owner calls
/// ``deallocate()`` exactly once, from its `deinit`.
@usableFromInline
struct AtomicWord: @unchecked Sendable {
    // Sendable: the pointee is a C11 atomic, made to be shared.
    @usableFromInline
    let pointer: UnsafeMutablePointer<cflux_atomic_word>

    @usableFromInline
    init() {
        guard let pointer = cflux_atomic_word_create() else {
            fatalError("FluxCapacitor could not allocate an atomic word: malloc failed.")
        }
        self.pointer = pointer
    }

    /// The value (acquire).
    /// A word allocated elsewhere (`Lock.makeWithAtomicWord()`).
    @usableFromInline
    init(pointer: UnsafeMutablePointer<cflux_atomic_word>) {
        self.pointer = pointer
    }

    @inlinable
    func load() -> UInt {
        UInt(cflux_atomic_word_load(pointer))
    }

    /// Stores `value` (release).
    @inlinable
    func store(_ value: UInt) {
        cflux_atomic_word_store(pointer, UInt(value))
    }

    /// Replaces the value with `desired` if it is `expected` (acquire-release); returns
    /// whether it did.
    @inlinable
    func compareExchange(expected: UInt, desired: UInt) -> Bool {
        cflux_atomic_word_compare_exchange(pointer, UInt(expected), UInt(desired))
    }

    @usableFromInline
    func deallocate() {
        cflux_atomic_word_destroy(pointer)
    }
}
