import CFluxCapacitorShims

/// A fixed table of mutexes shared by many small objects, so that each ``Dust`` (and each
/// mailbox and scoped observation) can be locked without a mutex of its own. An object is
/// mapped to a mutex by its address; two objects may share one, which is harmless because
/// no thread takes two striped mutexes at once (the order refuses two locks of one rank,
/// ``LockRank/striped``, and the checked build traps), and under one it takes only a
/// `DustBuster`'s mutex, which never waits for a striped one.
enum StripedLocks {
    private static let count = 64
    /// The 64 mutexes, made once and kept for the life of the process.
    // Unsafe: never changed after it is made, and a mutex is made to be shared.
    nonisolated(unsafe) private static let locks = (0..<count).map { _ in Lock.make(.striped) }

    static func mutex(for object: AnyObject) -> StripedMutex {
        let address = UInt(bitPattern: ObjectIdentifier(object))
        // Heap objects are 16-byte aligned: drop the bits that are always zero.
        return StripedMutex(mutex: locks[Int(truncatingIfNeeded: (address >> 4) & UInt(count - 1))].mutex)
    }
}

/// One of the striped mutexes.
struct StripedMutex: MutexHolding {
    let mutex: UnsafeMutablePointer<cflux_mutex>

    var rank: LockRank {
        .striped
    }
}
