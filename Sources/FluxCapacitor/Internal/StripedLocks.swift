/// A fixed table of mutexes shared by many small objects, so that each ``Dust`` can be
/// locked without allocating a mutex of its own. An object is mapped to a mutex by its
/// address; two objects may share one, which is harmless because nobody holds a striped
/// lock while taking another striped lock.
enum StripedLocks {
    private static let count = 64
    private static let mutexes: [Lock] = (0..<count).map { _ in Lock() }

    @inline(__always)
    static func mutex(for object: AnyObject) -> Lock {
        let address = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object)))
        // Heap objects are 16-byte aligned: drop the bits that are always zero.
        return mutexes[Int((address >> 4) % UInt(count))]
    }
}
