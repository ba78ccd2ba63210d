import Foundation

/// A value as a tree that prints the way Swift code reads, line by line: structs and
/// enums as `Type(field: value)` / `Type.case(payload)`, collections with their indices,
/// dictionaries sorted by key. Built with `Mirror`, so it needs nothing from the type.
///
///     Dispatcher.Repository.addRepositories(
///       [
///         [0]: GitHub.Repository(
///           id: "id-marty-hoverboard",
///           stargazerCount: 7
///         )
///       ]
///     )
///
/// (The shape of swift-custom-dump's `customDump`, written here so that the testing
/// product depends on no package.)
indirect enum ValueDump: Equatable {
    /// A value printed on one line: `true`, `"marty"`, `42`, `Dispatcher.User.removeAllUsers`.
    case leaf(String)
    /// A value with parts: `open`, the children one per line, `close`.
    case compound(open: String, children: [Child], close: String, kind: Kind)

    /// One part of a compound value, with its label (`name`, `[0]`), if any.
    struct Child: Equatable {
        var label: String?
        var node: ValueDump
    }

    /// How the children of a compound value relate, which decides how a diff shows them.
    enum Kind: Equatable {
        /// The fields of a struct or class, a tuple's elements, an enum case's payload:
        /// every one shown.
        case fields
        /// The elements of a collection: runs of unchanged ones fold into `… (N unchanged)`.
        case elements
    }

    /// Dumps `value`.
    init(of value: Any) {
        var visiting: Set<ObjectIdentifier> = []
        self = Self.make(value, visiting: &visiting)
    }

    /// A value made of named fields that is no Swift value of its own: a store's values,
    /// `FavoriteStore(favorites: …)`, as a replay shows them.
    init(named name: String, fields: [(label: String, node: ValueDump)]) {
        self = .compound(
            open: "\(name)(", children: fields.map { Child(label: $0.label, node: $0.node) }, close: ")", kind: .fields)
    }

    /// The dump as lines, two spaces of indentation per level.
    var lines: [String] {
        lines(label: nil, indent: 0, comma: false)
    }

    /// The dump as one string, one line per line.
    var text: String {
        lines.joined(separator: "\n")
    }

    /// The dump on one line, when it fits there without losing structure: leaves, empty
    /// compounds, and compounds of one unlabeled leaf (`Counter.add(2)`).
    var singleLine: String? {
        switch self {
        case .leaf(let text):
            return text
        case .compound(let open, let children, let close, _):
            if children.isEmpty {
                return open + close
            }
            if children.count == 1, children[0].label == nil, case .leaf(let text) = children[0].node {
                return open + text + close
            }
            return nil
        }
    }

    /// The first line of the dump, and `…` for its body: what an unchanged compound shows
    /// in a diff (`coordinates: Coordinates(…)`).
    var folded: String {
        if let singleLine {
            return singleLine
        }
        guard case .compound(let open, _, let close, _) = self else {
            fatalError("ValueDump: a value with no single line must be compound")
        }
        return open + "…" + close
    }

    /// The lines of the dump, the first one prefixed with `label: `, the last one followed
    /// by `,` when `comma`.
    func lines(label: String?, indent: Int, comma: Bool) -> [String] {
        let prefix = String(repeating: "  ", count: indent) + (label.map { "\($0): " } ?? "")
        let suffix = comma ? "," : ""
        if let singleLine {
            return [prefix + singleLine + suffix]
        }
        guard case .compound(let open, let children, let close, _) = self else {
            fatalError("ValueDump: a value with no single line must be compound")
        }
        var lines = [prefix + open]
        for (index, child) in children.enumerated() {
            lines += child.node.lines(label: child.label, indent: indent + 1, comma: index < children.count - 1)
        }
        lines.append(String(repeating: "  ", count: indent) + close + suffix)
        return lines
    }

    // MARK: - Making the tree

    private static func make(_ value: Any, visiting: inout Set<ObjectIdentifier>) -> ValueDump {
        if let special = specialLeaf(value) {
            return .leaf(special)
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first else {
                return .leaf("nil")
            }
            return make(wrapped.value, visiting: &visiting)
        case .collection:
            let children = mirror.children.enumerated().map { index, child in
                Child(label: "[\(index)]", node: make(child.value, visiting: &visiting))
            }
            return .compound(open: "[", children: children, close: "]", kind: .elements)
        case .set:
            let children = mirror.children.map { Child(label: nil, node: make($0.value, visiting: &visiting)) }
            return .compound(
                open: "Set([", children: children.sorted { $0.node.text < $1.node.text }, close: "])",
                kind: .elements)
        case .dictionary:
            let children = mirror.children.map { pair -> Child in
                let parts = Array(Mirror(reflecting: pair.value).children)
                guard parts.count == 2 else {
                    return Child(label: nil, node: make(pair.value, visiting: &visiting))
                }
                let key = make(parts[0].value, visiting: &visiting)
                return Child(label: key.singleLine ?? key.folded, node: make(parts[1].value, visiting: &visiting))
            }
            return .compound(
                open: "[", children: children.sorted { ($0.label ?? "") < ($1.label ?? "") }, close: "]",
                kind: .elements)
        case .enum:
            let name = typeName(type(of: value))
            guard let payload = mirror.children.first else {
                return .leaf("\(name).\(caseName(of: value))")
            }
            let caseName = payload.label ?? "\(value)"
            let payloadMirror = Mirror(reflecting: payload.value)
            let children: [Child]
            if payloadMirror.displayStyle == .tuple {
                children = payloadMirror.children.map {
                    Child(label: fieldLabel($0.label), node: make($0.value, visiting: &visiting))
                }
            } else {
                children = [Child(label: nil, node: make(payload.value, visiting: &visiting))]
            }
            return .compound(open: "\(name).\(caseName)(", children: children, close: ")", kind: .fields)
        case .tuple:
            let children = mirror.children.map {
                Child(label: fieldLabel($0.label), node: make($0.value, visiting: &visiting))
            }
            return .compound(open: "(", children: children, close: ")", kind: .fields)
        case .class:
            let object = ObjectIdentifier(value as AnyObject)
            let name = typeName(type(of: value))
            guard visiting.insert(object).inserted else {
                // A cycle: this object is being dumped further up.
                return .leaf("\(name)(↩︎)")
            }
            defer { visiting.remove(object) }
            var fields: [Child] = []
            var level: Mirror? = mirror
            while let current = level {
                fields =
                    current.children.map {
                        Child(label: fieldLabel($0.label), node: make($0.value, visiting: &visiting))
                    } + fields
                level = current.superclassMirror
            }
            return .compound(open: "\(name)(", children: fields, close: ")", kind: .fields)
        case .struct where isStandardLibraryStorage(value, mirror):
            // `Duration`, `Task`: what the type says of itself, if anything, not its storage.
            if let describable = value as? any CustomStringConvertible {
                return .leaf(describable.description)
            }
            return .leaf("\(typeName(type(of: value)))(…)")
        case .struct:
            let children = mirror.children.map {
                Child(label: fieldLabel($0.label), node: make($0.value, visiting: &visiting))
            }
            return .compound(open: "\(typeName(type(of: value)))(", children: children, close: ")", kind: .fields)
        default:
            // Numbers, Bool and the other values with no parts to show.
            return .leaf(String(describing: value))
        }
    }

    /// How values whose mirror shows their storage rather than their meaning print.
    private static func specialLeaf(_ value: Any) -> String? {
        switch value {
        case let string as String:
            return string.debugDescription
        case let substring as Substring:
            return String(substring).debugDescription
        case let character as Character:
            return character.debugDescription
        case let type as Any.Type:
            return "\(typeName(type, keepingGenerics: true)).self"
        case let url as URL:
            return "URL(\(url.absoluteString))"
        case let date as Date:
            return "Date(\(date.formatted(.iso8601)))"
        case let uuid as UUID:
            return "UUID(\(uuid.uuidString))"
        case let data as Data:
            return "Data(\(data.count) bytes)"
        case let decimal as Decimal:
            return decimal.description
        case let error as NSError where type(of: value) is NSError.Type:
            return "NSError(domain: \(error.domain.debugDescription), code: \(error.code))"
        default:
            return nil
        }
    }

    /// Whether `value` is a standard library struct whose mirror shows only its private
    /// storage (`_low`, `_task`). User types are left alone: a property wrapper's storage
    /// is `_name` too, and it is what the test wants to see.
    private static func isStandardLibraryStorage(_ value: Any, _ mirror: Mirror) -> Bool {
        let name = String(reflecting: type(of: value))
        guard name.hasPrefix("Swift.") || name.hasPrefix("_Concurrency.") else {
            return false
        }
        return !mirror.children.isEmpty && mirror.children.allSatisfy { $0.label?.first == "_" }
    }

    /// A child's label, or `nil` for a tuple's unlabeled `.0`.
    private static func fieldLabel(_ label: String?) -> String? {
        guard let label, !label.hasPrefix(".") else {
            return nil
        }
        return label
    }
}

/// The name of `value`'s enum case, also when its type describes itself otherwise
/// (`GitHubError.cancelled`, not the sentence its `description` gives).
private func caseName<Value>(of value: Value) -> String {
    guard let name = enumCaseName(value) else {
        return "\(value)"
    }
    return String(cString: name)
}

// The runtime function behind `print` for enums with no description of their own (the
// standard library declares it the same way, `_getEnumCaseName`): it reads the case name
// from the type's metadata. `nil` when the metadata has no names.
@_silgen_name("swift_EnumCaseName")
private func enumCaseName<Value>(_ value: Value) -> UnsafePointer<CChar>?

/// `type`'s name as the code that uses it spells it: without module names
/// (`Dispatcher.Repository`, not `MyApp.Dispatcher.Repository`) and, unless
/// `keepingGenerics`, without generic arguments (`Result.success(42)`). Worked out once per
/// type (a replay's timeline dumps a hundred thousand states of a few types).
func typeName(_ type: Any.Type, keepingGenerics: Bool = false) -> String {
    let key = TypeNames.Key(type: ObjectIdentifier(type), keepingGenerics: keepingGenerics)
    if let name = TypeNames.lock.withLock({ TypeNames.names[key] }) {
        return name
    }
    let name = makeTypeName(type, keepingGenerics: keepingGenerics)
    TypeNames.lock.withLock { TypeNames.names[key] = name }
    return name
}

/// The names `typeName` worked out.
private enum TypeNames {
    struct Key: Hashable {
        let type: ObjectIdentifier
        let keepingGenerics: Bool
    }

    // A leaf of the lock order (rank 10 in Sources/FluxCapacitor/Internal/README.md): a
    // dictionary access, nothing inside.
    static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) static var names: [Key: String] = [:]
}

private func makeTypeName(_ type: Any.Type, keepingGenerics: Bool) -> String {
    var name = String(reflecting: type)
    // Types declared inside functions: `Module.(unknown context at $1234abc).Local` reads
    // `Module.Local`, whose module the scan below removes.
    while let start = name.range(of: "(unknown context at "), let end = name[start.upperBound...].range(of: ").") {
        name.removeSubrange(start.lowerBound..<end.upperBound)
    }
    // Types nested in an extension of another module's type:
    // `(extension in App):FluxCapacitor.Dispatcher.User` reads `FluxCapacitor.Dispatcher.User`.
    while let start = name.range(of: "(extension in "), let end = name[start.upperBound...].range(of: "):") {
        name.removeSubrange(start.lowerBound..<end.upperBound)
    }
    var result = ""
    var qualified = ""
    var genericDepth = 0
    func flush() {
        // The first component of a qualified name is its module.
        if let dot = qualified.firstIndex(of: "."), !qualified.hasPrefix(".") {
            result += qualified[qualified.index(after: dot)...]
        } else {
            result += qualified
        }
        qualified = ""
    }
    for character in name {
        if isIdentifierCharacter(character) || character == "." {
            if genericDepth == 0 || keepingGenerics {
                qualified.append(character)
            }
            continue
        }
        flush()
        if !keepingGenerics {
            if character == "<" {
                genericDepth += 1
                continue
            }
            if character == ">", genericDepth > 0 {
                genericDepth -= 1
                continue
            }
            if genericDepth > 0 {
                continue
            }
        }
        result.append(character)
    }
    flush()
    return result
}

private func isIdentifierCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "_"
}
