import Foundation

/// Counts the copies of a `CopyCounting` value's storage. One per test: a test owns its
/// counter, so tests running in parallel do not see each other's copies.
public final class CopyCounter: @unchecked Sendable {
    // Sendable: `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    /// A counter at zero.
    public init() {}

    /// How many times a change found the storage shared and copied it.
    public var copies: Int {
        lock.withLock { count }
    }

    fileprivate func countCopy() {
        lock.withLock { count += 1 }
    }
}

/// A value that keeps `Base` (an array, a dictionary) in storage of its own and counts
/// each time a change has to copy that storage because something else still holds it
/// (copy on write, as `Array` and `Dictionary` do): so a test sees whether a path of the
/// library kept a reference to a value it changes, which would make each change copy the
/// whole collection.
public struct CopyCounting<Base: Sendable>: @unchecked Sendable {
    // Sendable: a value type whose storage is never changed while shared (a change copies
    // shared storage first, as `Array` does); the counter is Sendable.
    private final class Storage {
        var base: Base
        let counter: CopyCounter

        init(_ base: Base, counter: CopyCounter) {
            self.base = base
            self.counter = counter
        }
    }

    private var storage: Storage

    /// `base`, whose copies `counter` counts.
    public init(_ base: Base, counter: CopyCounter) {
        storage = Storage(base, counter: counter)
    }

    /// The value.
    public var base: Base {
        storage.base
    }

    /// What counts the copies of this value's storage.
    public var counter: CopyCounter {
        storage.counter
    }

    /// Changes the value in place, copying its storage first (and counting it) if
    /// something else holds it.
    public mutating func change<Result>(_ body: (inout Base) throws -> Result) rethrows -> Result {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(storage.base, counter: storage.counter)
            storage.counter.countCopy()
        }
        return try body(&storage.base)
    }
}

extension CopyCounting: Equatable where Base: Equatable {
    /// Equal when the values are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.base == rhs.base
    }
}

extension CopyCounting: Encodable where Base: Encodable {
    /// Encodes the value as `Base` does.
    public func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
    }
}

extension CopyCounting: Decodable where Base: Decodable {
    /// Decodes the value; its copies are counted by `decoder.userInfo[.copyCounter]` if
    /// set, else by a counter of its own.
    public init(from decoder: any Decoder) throws {
        let counter = decoder.userInfo[.copyCounter] as? CopyCounter ?? CopyCounter()
        self.init(try Base(from: decoder), counter: counter)
    }
}

extension CodingUserInfoKey {
    /// The `CopyCounter` a decoded `CopyCounting` value counts its copies with.
    public static let copyCounter = CodingUserInfoKey(rawValue: "copyCounter")!
}
