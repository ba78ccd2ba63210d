/// The difference between an expected and an actual value, as lines of their dumps: the
/// parts that differ marked `−` (expected) and `+` (actual), the structure around them
/// kept so that the reader sees where they are, and unchanged parts folded.
///
///       Dispatcher.Repository.addRepositories(
///         [
///           [0]: GitHub.Repository(
///             id: "id-marty-hoverboard",
///     −       stargazerCount: 7,
///     +       stargazerCount: 8,
///             forkCount: 0
///           ),
///           … (2 unchanged)
///         ]
///       )
struct ValueDiff {
    /// One line of a diff.
    enum Line: Equatable {
        case same(String)
        case removed(String)
        case added(String)

        /// The line with its marker: two spaces, `− ` or `+ `.
        var text: String {
            switch self {
            case .same(let text): "  " + text
            case .removed(let text): "\u{2212} " + text
            case .added(let text): "+ " + text
            }
        }
    }

    /// The lines, `nil` when the two values dump the same.
    let lines: [Line]

    /// Compares the dumps of `expected` and `actual`; `nil` when they dump the same.
    init?(expected: Any, actual: Any) {
        self.init(ValueDump(of: expected), ValueDump(of: actual))
    }

    /// Compares two dumps; `nil` when they are the same.
    init?(_ expected: ValueDump, _ actual: ValueDump) {
        guard expected != actual else {
            return nil
        }
        lines = Self.diff(expected, actual, labels: (nil, nil), indent: 0, commas: (false, false))
    }

    /// The diff as text, one marked line per line.
    var text: String {
        lines.map(\.text).joined(separator: "\n")
    }

    private static func diff(
        _ expected: ValueDump, _ actual: ValueDump, labels: (String?, String?), indent: Int, commas: (Bool, Bool)
    ) -> [Line] {
        let padding = String(repeating: "  ", count: indent)
        if expected == actual, labels.0 == labels.1 {
            return [.same(padding + (labels.1.map { "\($0): " } ?? "") + actual.folded + (commas.1 ? "," : ""))]
        }
        if case .compound(let expectedOpen, let expectedChildren, let expectedClose, let expectedKind) = expected,
            case .compound(let open, let children, let close, let kind) = actual,
            expectedOpen == open, expectedClose == close, expectedKind == kind, labels.0 == labels.1,
            expected.singleLine == nil, actual.singleLine == nil
        {
            // The same type or case: keep its first and last line, and compare its parts.
            return [.same(padding + (labels.1.map { "\($0): " } ?? "") + open)]
                + diffChildren(expectedChildren, children, kind: kind, indent: indent + 1)
                + [.same(padding + close + (commas.1 ? "," : ""))]
        }
        return expected.lines(label: labels.0, indent: indent, comma: commas.0).map(Line.removed)
            + actual.lines(label: labels.1, indent: indent, comma: commas.1).map(Line.added)
    }

    private static func diffChildren(
        _ expected: [ValueDump.Child], _ actual: [ValueDump.Child], kind: ValueDump.Kind, indent: Int
    ) -> [Line] {
        var lines: [Line] = []
        var unchanged = 0
        func flushUnchanged(before next: Int?) {
            guard unchanged > 0 else { return }
            let comma = next != nil ? "," : ""
            lines.append(.same(String(repeating: "  ", count: indent) + "… (\(unchanged) unchanged)" + comma))
            unchanged = 0
        }
        for step in alignment(expected.map(\.node), actual.map(\.node), kind: kind) {
            switch step {
            case .both(let old, let new):
                let (was, now) = (expected[old], actual[new])
                if kind == .elements, was.node == now.node {
                    // Folded into a count; a single one keeps its place.
                    unchanged += 1
                    continue
                }
                flushUnchanged(before: new)
                lines += diff(
                    was.node, now.node, labels: (was.label, now.label), indent: indent,
                    commas: (old < expected.count - 1, new < actual.count - 1))
            case .removed(let old):
                flushUnchanged(before: old)
                lines += expected[old].node.lines(
                    label: expected[old].label, indent: indent, comma: old < expected.count - 1
                ).map(Line.removed)
            case .inserted(let new):
                flushUnchanged(before: new)
                lines += actual[new].node.lines(
                    label: actual[new].label, indent: indent, comma: new < actual.count - 1
                ).map(Line.added)
            }
        }
        flushUnchanged(before: nil)
        return lines
    }

    /// A step of walking two lists of children together.
    private enum Step: Equatable {
        /// `expected[old]` and `actual[new]` sit at the same place (equal or not).
        case both(Int, Int)
        case removed(Int)
        case inserted(Int)
    }

    /// Fields pair by position. Elements pair where they are equal (a longest common
    /// subsequence); between two such anchors, what was removed and inserted pairs by
    /// position, so that one changed element shows as a change, not a removal and an insertion.
    private static func alignment(_ expected: [ValueDump], _ actual: [ValueDump], kind: ValueDump.Kind) -> [Step] {
        if kind == .fields, expected.count == actual.count {
            return expected.indices.map { .both($0, $0) }
        }
        let anchors = commonSubsequence(expected, actual)
        var steps: [Step] = []
        var (old, new) = (0, 0)
        for (anchorOld, anchorNew) in anchors + [(expected.count, actual.count)] {
            while old < anchorOld, new < anchorNew {
                steps.append(.both(old, new))
                old += 1
                new += 1
            }
            steps += (old..<anchorOld).map(Step.removed) + (new..<anchorNew).map(Step.inserted)
            if anchorOld < expected.count {
                steps.append(.both(anchorOld, anchorNew))
            }
            (old, new) = (anchorOld + 1, anchorNew + 1)
        }
        return steps
    }

    /// The index pairs of a longest common subsequence of equal dumps, in order. Lists too
    /// long to compare pair by pair in reasonable time get no anchors (positional pairing).
    private static func commonSubsequence(_ expected: [ValueDump], _ actual: [ValueDump]) -> [(Int, Int)] {
        let (rows, columns) = (expected.count, actual.count)
        guard rows > 0, columns > 0, rows * columns <= 1_000_000 else {
            return []
        }
        // lengths[i][j]: the length of the longest common subsequence of expected[i...] and actual[j...].
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
        for i in stride(from: rows - 1, through: 0, by: -1) {
            for j in stride(from: columns - 1, through: 0, by: -1) {
                lengths[i][j] =
                    expected[i] == actual[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var (i, j) = (0, 0)
        while i < rows, j < columns {
            if expected[i] == actual[j] {
                pairs.append((i, j))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}
