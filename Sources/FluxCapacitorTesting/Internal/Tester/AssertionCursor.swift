/// How a ``DispatchTester`` and its tracked values walk a recording: each assertion takes
/// the next entries in order (waiting for them, up to a deadline), compares them with what
/// the test expected, and reports what differs, timed out or was left over.
///
/// `Entry` is what is recorded (a dispatch, a value); `subject(entry)` is what the test
/// compares and what messages show.
final class AssertionCursor<Entry> {
    private let buffer: RecordingBuffer<Entry>
    private let subject: (Entry) -> Any
    private let wording: Wording
    /// How many entries were asserted or skipped (or are `owed`, or `undecided`).
    private var position = 0
    /// What was skipped so far (non-exhaustive mode, ``skipAll(at:settings:)``).
    private(set) var skipped: [Entry] = []
    /// An entry that came right before the one an assertion expected, reported already as
    /// out of order with it: the next assertion takes it (exhaustive mode).
    private var owed: Int?
    /// An assertion whose entry was another one, with nothing recorded after that entry
    /// yet (exhaustive mode): the next step decides whether the two were swapped (then one
    /// issue says so) or it was another entry (a mismatch), and reports it at `location`.
    private var undecided: Undecided?

    private struct Undecided {
        /// The index of the entry that came where `expected` was asserted.
        let index: Int
        let expected: Any
        let matches: (Any) -> Bool
        let location: CallLocation
    }

    init(buffer: RecordingBuffer<Entry>, wording: Wording, subject: @escaping (Entry) -> Any) {
        self.buffer = buffer
        self.wording = wording
        self.subject = subject
    }

    /// Takes the next entry and checks that it is `expected` (exhaustive), or takes the
    /// entries up to the first one that is (not exhaustive), waiting for it up to
    /// `timeout`; reports what it finds. `awaited` says what was waited for in a timeout.
    func assertNext<Expected: Equatable>(
        is expected: Expected,
        awaited: String,
        timeout: Duration,
        settings: TesterSettings,
        at location: CallLocation,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        settings.lastAssertion = location
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var entries = buffer.entries
        while true {
            if let done = step(expected, in: entries, settings: settings, at: location) {
                return done
            }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                break
            }
            entries = await buffer.entries(moreThan: entries.count, until: deadline)
        }
        reportUndecided(in: entries, settings: settings)
        var message = "\(Task.isCancelled ? "Cancelled" : "Timed out after \(timeout)") waiting for \(awaited):\n"
        message += Self.indented(ValueDump(of: expected).lines)
        let pending = entries[min(position, entries.count)...].map(subject)
        if pending.isEmpty {
            message += "\n" + wording.nothingNew
        } else {
            message += "\nRecorded meanwhile, none of them the one awaited:\n" + Self.list(pending)
        }
        if skipped.contains(where: { (subject($0) as? Expected) == expected }) {
            message +=
                "\nIt came earlier, out of order, and was skipped by a receive(_:) that expected one recorded after it."
        }
        settings.fail(message, at: location)
    }

    /// One look at `entries`: `()` when the assertion is decided (and reported, or left
    /// `undecided`), `nil` when it must wait for more.
    private func step<Expected: Equatable>(
        _ expected: Expected, in entries: [Entry], settings: TesterSettings, at location: CallLocation
    ) -> Void? {
        let matches = { (entry: Entry) in (self.subject(entry) as? Expected) == expected }
        guard settings.exhaustivity == .on else {
            reportUndecided(in: entries, settings: settings)
            if let index = owed {
                // Made exhaustive no more since: asserted if it is the one, else skipped.
                owed = nil
                if matches(entries[index]) {
                    return ()
                }
                skip(entries[index...index], settings: settings, at: location)
            }
            guard let index = entries[min(position, entries.count)...].firstIndex(where: matches) else {
                return nil
            }
            skip(entries[position..<index], settings: settings, at: location)
            position = index + 1
            return ()
        }
        if let index = owed {
            owed = nil
            if !matches(entries[index]) {
                settings.fail(mismatch(expected: expected, actual: subject(entries[index])), at: location)
            }
            return ()
        }
        guard position < entries.count else {
            return nil
        }
        if let earlier = undecided {
            undecided = nil
            if matches(entries[earlier.index]), earlier.matches(subject(entries[position])) {
                // The two assertions' entries came the other way round.
                position += 1
                settings.fail(
                    outOfOrder(expected: earlier.expected, cameFirst: subject(entries[earlier.index])),
                    at: earlier.location)
                return ()
            }
            settings.fail(
                mismatch(expected: earlier.expected, actual: subject(entries[earlier.index])), at: earlier.location)
        }
        let next = entries[position]
        if matches(next) {
            position += 1
            return ()
        }
        guard position + 1 < entries.count else {
            // Nothing after it yet: the entry expected may be on its way, right behind.
            undecided = Undecided(
                index: position, expected: expected, matches: { ($0 as? Expected) == expected }, location: location)
            position += 1
            return ()
        }
        if matches(entries[position + 1]) {
            // The one expected came second: one issue for the pair, and the first one is
            // what the next assertion takes.
            settings.fail(outOfOrder(expected: expected, cameFirst: subject(next)), at: location)
            owed = position
            position += 2
            return ()
        }
        position += 1
        settings.fail(mismatch(expected: expected, actual: subject(next)), at: location)
        return ()
    }

    /// Reports an assertion left `undecided` as the mismatch it was, once nothing can make
    /// it a swap: at the end, at a timeout, at a skip.
    private func reportUndecided(in entries: [Entry], settings: TesterSettings) {
        guard let earlier = undecided else { return }
        undecided = nil
        settings.fail(
            mismatch(expected: earlier.expected, actual: subject(entries[earlier.index])), at: earlier.location)
    }

    /// The entries recorded and not asserted: the one `owed` first, then those after
    /// `position`.
    private func unasserted(in entries: [Entry]) -> [Entry] {
        (owed.map { [entries[$0]] } ?? []) + entries[min(position, entries.count)...]
    }

    /// Skips what was recorded and not asserted so far, listing it if the settings ask.
    func skipAll(settings: TesterSettings, at location: CallLocation) {
        settings.lastAssertion = location
        let entries = buffer.entries
        reportUndecided(in: entries, settings: settings)
        skip(ArraySlice(unasserted(in: entries)), settings: settings, at: location)
        owed = nil
        position = max(position, entries.count)
    }

    /// Fails for each entry left unasserted (exhaustive), or skips them (not exhaustive).
    func finish(settings: TesterSettings, at location: CallLocation) {
        let entries = buffer.entries
        reportUndecided(in: entries, settings: settings)
        let left = unasserted(in: entries)
        guard settings.exhaustivity == .on else {
            skipAll(settings: settings, at: location)
            return
        }
        owed = nil
        position = max(position, entries.count)
        guard !left.isEmpty else {
            return
        }
        let count = left.count == 1 ? "1 \(wording.one) was" : "\(left.count) \(wording.many) were"
        settings.fail(
            "\(count) not asserted:\n" + Self.list(left.map(subject))
                + "\nAssert \(left.count == 1 ? "it" : "each one") with receive(_:), or skip "
                + "\(left.count == 1 ? "it" : "them") with exhaustivity: .off.",
            at: location)
    }

    private func skip(_ entries: ArraySlice<Entry>, settings: TesterSettings, at location: CallLocation) {
        guard !entries.isEmpty else {
            return
        }
        skipped += entries
        if case .off(showSkipped: true) = settings.exhaustivity {
            let count = entries.count == 1 ? "1 \(wording.one)" : "\(entries.count) \(wording.many)"
            settings.reporter.note("Skipped \(count):\n" + Self.list(entries.map(subject)), at: location)
        }
    }

    private func mismatch<Expected>(expected: Expected, actual: Any) -> String {
        let what = wording.mismatch
        guard let diff = ValueDiff(expected: expected, actual: actual) else {
            // Equal dumps, unequal values: `==` looks at something the mirror does not show.
            return "\(what) that is not the one expected, though both print the same:\n"
                + Self.indented(ValueDump(of: actual).lines)
        }
        return "\(what) other than the one expected (− expected, + actual):\n" + diff.text
    }

    /// Two entries that came the other way round from how two assertions expect them.
    private func outOfOrder(expected: Any, cameFirst: Any) -> String {
        "Received \(wording.many) out of order: the one expected here came second.\nExpected here:\n"
            + Self.indented(ValueDump(of: expected).lines) + "\nCame first:\n"
            + Self.indented(ValueDump(of: cameFirst).lines)
            + "\nAssert them in the order they came, or change the order they come in."
    }

    /// One dump per item, indented.
    static func list(_ items: [Any]) -> String {
        items.map { indented(ValueDump(of: $0).lines) }.joined(separator: "\n")
    }

    static func indented(_ lines: [String]) -> String {
        lines.map { "  " + $0 }.joined(separator: "\n")
    }
}

/// How the messages of an ``AssertionCursor`` name what it walks.
struct Wording {
    /// One entry: `dispatch`, `change of favorites`.
    let one: String
    /// Several: `dispatches`, `changes of favorites`.
    let many: String
    /// How a mismatch starts: `Received a dispatch`, `favorites changed to a value`.
    let mismatch: String
    /// What a timeout says when nothing new came: `Nothing was dispatched after the last one asserted.`
    let nothingNew: String
}

/// What a tester and the values it tracks share: changing the tester's exhaustivity or
/// timeout changes theirs; their failures go to one reporter, with where the tester was made.
final class TesterSettings {
    var exhaustivity: Exhaustivity
    var timeout: Duration
    /// Where the test last asserted (a `receive`, a skip): where what is left unasserted
    /// is reported when the tester goes away, as the last line of the test to look at.
    var lastAssertion: CallLocation?
    let reporter: IssueReporter
    let origin: TesterOrigin

    init(exhaustivity: Exhaustivity, timeout: Duration, reporter: IssueReporter, origin: TesterOrigin) {
        self.exhaustivity = exhaustivity
        self.timeout = timeout
        self.reporter = reporter
        self.origin = origin
    }

    func fail(_ message: String, at location: CallLocation) {
        reporter.fail(message, at: location, origin: origin)
    }
}
