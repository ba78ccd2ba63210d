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
    /// How many entries were asserted or skipped.
    private var position = 0
    /// What was skipped so far (non-exhaustive mode, ``skipAll(at:settings:)``).
    private(set) var skipped: [Entry] = []

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
        var message = "\(Task.isCancelled ? "Cancelled" : "Timed out after \(timeout)") waiting for \(awaited):\n"
        message += Self.indented(ValueDump(of: expected).lines)
        let pending = entries[min(position, entries.count)...].map(subject)
        if pending.isEmpty {
            message += "\n" + wording.nothingNew
        } else {
            message += "\nRecorded meanwhile, none of them the one awaited:\n" + Self.list(pending)
        }
        settings.fail(message, at: location)
    }

    /// One look at `entries`: `()` when the assertion is decided (and reported), `nil` when
    /// it must wait for more.
    private func step<Expected: Equatable>(
        _ expected: Expected, in entries: [Entry], settings: TesterSettings, at location: CallLocation
    ) -> Void? {
        guard position < entries.count else {
            return nil
        }
        if settings.exhaustivity == .on {
            let next = entries[position]
            position += 1
            if let actual = subject(next) as? Expected, actual == expected {
                return ()
            }
            settings.fail(mismatch(expected: expected, actual: subject(next)), at: location)
            return ()
        }
        guard let index = entries[position...].firstIndex(where: { (subject($0) as? Expected) == expected }) else {
            return nil
        }
        skip(entries[position..<index], settings: settings, at: location)
        position = index + 1
        return ()
    }

    /// Skips what was recorded and not asserted so far, listing it if the settings ask.
    func skipAll(settings: TesterSettings, at location: CallLocation) {
        let entries = buffer.entries
        skip(entries[min(position, entries.count)...], settings: settings, at: location)
        position = max(position, entries.count)
    }

    /// Fails for each entry left unasserted (exhaustive), or skips them (not exhaustive).
    func finish(settings: TesterSettings, at location: CallLocation) {
        let entries = buffer.entries
        let left = entries[min(position, entries.count)...]
        guard settings.exhaustivity == .on else {
            skipAll(settings: settings, at: location)
            return
        }
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
