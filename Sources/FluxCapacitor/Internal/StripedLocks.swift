import CFluxCapacitorShims

/// A fixed table of mutexes shared by many small objects, so that each ``Dust`` (and each
/// mailbox and scoped observation) can be locked without a mutex of its own. An object is
/// mapped to a mutex by its address; two objects may share one, which is harmless because
/// nobody holds a striped lock while taking another lock of the library (their rank,
/// ``LockRank/striped``, is below only the buster's).
enum StripedLocks {
    /// The 64 mutexes, in one `ManagedBuffer` that lives as long as the process.
    private final class Table: ManagedBuffer<Void, cflux_mutex> {}

    private static let count = 64
    // Unsafe: made once, never changed; a mutex is made to be shared.
    nonisolated(unsafe) private static let table: Table = {
        let table = unsafeDowncast(Table.create(minimumCapacity: count) { _ in }, to: Table.self)
        table.withUnsafeMutablePointerToElements { mutexes in
            for index in 0..<count {
                cflux_mutex_init(mutexes + index)
            }
        }
        return table
    }()
    /// The first of `table`'s mutexes, kept apart so that a lookup reads a pointer and
    /// retains nothing (as an array of `Lock`s, a lookup retained and released the lock:
    /// observe + clean 1,451 → 1,3xx per observer in callgrind).
    nonisolated(unsafe) private static let mutexes = table.withUnsafeMutablePointerToElements { $0 }

    static func mutex(for object: AnyObject) -> StripedMutex {
        let address = UInt(bitPattern: ObjectIdentifier(object))
        // Heap objects are 16-byte aligned: drop the bits that are always zero.
        return StripedMutex(mutex: mutexes + Int(truncatingIfNeeded: (address >> 4) & UInt(count - 1)))
    }
}

/// One of the striped mutexes.
struct StripedMutex: MutexHolding {
    let mutex: UnsafeMutablePointer<cflux_mutex>

    var rank: LockRank {
        .striped
    }
}
