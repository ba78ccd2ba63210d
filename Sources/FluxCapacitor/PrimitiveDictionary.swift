/// An observable dictionary whose every element is an observable value of its own: the
/// rows of a list, an entity cache. A change of one element reaches that element's
/// observers only, and costs the same among ten rows or ten thousand.
///
/// You use it as ``VariableDictionary`` in a store, changed in `reduce(with:)` as a
/// dictionary is, and expose it as a ``ConstantDictionary``:
///
/// ```swift
/// final class RowsStore: Storable {
///     let rows: ConstantDictionary<Int, Row>
///     private let _rows = VariableDictionary<Int, Row>()
///
///     init() {
///         rows = ConstantDictionary(_rows)
///     }
///
///     func reduce(with state: Dispatcher.Rows) {
///         switch state {
///         case .add(let row): _rows.append(row)
///         case .rename(let id, let title): _rows[id]?.title = title
///         case .remove(let id): _rows[id] = nil
///         }
///     }
/// }
/// ```
///
/// A row observes its own element, and only hears of its changes; the list observes
/// ``keys``, which change only when an element comes or goes:
///
/// ```swift
/// let store = RowsStore.instantiate()
/// store.rows.constant(for: 7)?
///     .observe { row in showTitle(row.title) }
///     .cleaned(by: dustBuster)
/// store.rows.keys
///     .observe { ids in showCount(ids.count) }
///     .cleaned(by: dustBuster)
/// ```
///
/// Reading an element through the subscript takes part in Swift's Observation as a
/// ``Variable``'s `value` does, for that element alone: a SwiftUI row that reads
/// `store.rows[id]` is drawn again when that row changes or goes, not when another does.
/// (Reading a key that is not there tracks the keys, so the row is drawn when it comes.)
///
/// Keys keep the order they were first inserted in (as swift-collections'
/// `OrderedDictionary` does): setting an element that is there keeps its place.
///
/// ## What each operation costs
///
/// - Reading or changing one element: a look-up of its key, then what reading or changing
///   a ``Variable`` costs. The element is copied for the change (it is one element).
/// - Inserting a key: a look-up, and an append to the keys, in place inside a dispatch.
/// - Removing a key: a look-up, and a search of the keys for its place (linear in the
///   number of keys).
/// - Each element is a value with its own observers, about as large as an `@Observable`
///   object per row (the row `dictionaryElementMemory` of `Benchmarks/instructions`). For a
///   collection that nobody observes element by element, a `Variable<[Key: Value]>` is
///   smaller; changed in place in `reduce(with:)`, it costs the change too. See
///   <doc:BigState>.
public final class PrimitiveDictionary<Trait: ValueTrait, Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    let storage: KeyedValues<Key, Value>

    /// The keys, in the order they were first inserted: an observable value that changes
    /// when an element is inserted or removed, not when one changes.
    ///
    /// ```swift
    /// let ids = store.rows.keys.value
    /// ```
    public let keys: Constant<[Key]>

    @usableFromInline
    init(storage: KeyedValues<Key, Value>) {
        self.storage = storage
        keys = Constant(core: storage.keys)
    }

    /// How many elements there are. Read through Observation, it tracks the keys.
    ///
    /// ```swift
    /// let rowCount = store.rows.count
    /// ```
    @inlinable
    public var count: Int {
        keys.readNotingObservation().count
    }

    /// Whether there is no element. Read through Observation, it tracks the keys.
    ///
    /// ```swift
    /// let showsPlaceholder = store.rows.isEmpty
    /// ```
    @inlinable
    public var isEmpty: Bool {
        keys.readNotingObservation().isEmpty
    }

    /// The element of `key` as a ``Constant``, to observe it, map it or await its changes,
    /// or `nil` if `key` is not there. The constant hears of that element's changes only;
    /// once the element is removed it keeps its last value and changes no more (a key
    /// inserted again is a new element).
    ///
    /// ```swift
    /// let row = store.rows.constant(for: 7)
    /// ```
    ///
    /// - Parameter key: The key of the element.
    /// - Returns: The element's constant, or `nil`.
    @inlinable
    public func constant(for key: Key) -> Constant<Value>? {
        storage.core(for: key).map { Constant(core: $0) }
    }

    /// The elements in the keys' order, as they are now (a copy of each element; not a
    /// read for Observation).
    ///
    /// ```swift
    /// let titles = store.rows.elements.map(\.value.title)
    /// ```
    @inlinable
    public var elements: [(key: Key, value: Value)] {
        storage.snapshot().map { (key: $0.0, value: $0.1) }
    }
}

extension PrimitiveDictionary: CustomStringConvertible {
    /// The elements, in order, as a dictionary literal shows them.
    ///
    /// ```swift
    /// let text = store.rows.description  // [7: Row(id: 7, …)]
    /// ```
    public var description: String {
        let elements = storage.snapshot()
        guard !elements.isEmpty else { return "[:]" }
        return "[" + elements.map { "\(String(reflecting: $0.0)): \(String(reflecting: $0.1))" }.joined(separator: ", ")
            + "]"
    }
}

extension PrimitiveDictionary: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the elements in order, as an array of alternating keys and values (as
    /// `Dictionary` encodes one whose keys are not strings or integers).
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(store.rows)
    /// ```
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for (key, value) in storage.snapshot() {
            try container.encode(key)
            try container.encode(value)
        }
    }
}
