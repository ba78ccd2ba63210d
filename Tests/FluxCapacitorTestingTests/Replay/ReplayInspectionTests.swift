import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Issue 41: each step of a replay, readable, and a page of them all.
@Suite("Looking into a replay", .isolatedDispatcher)
struct ReplayInspectionTests {
    private static let types: [DispatchReplay.ReplayedType] = [.state(Dispatcher.Tally.self, named: "Tally")]

    /// A recording of a tally: 40 before recording, then add 2, a note, add 3.
    private func recording(in folder: TemporaryFolder) throws -> URL {
        let file = folder.file("tally.jsonl")
        let dispatcher = Dispatcher()
        let store = Dispatcher.withCurrent(dispatcher) { TallyStore.instantiate() }
        Dispatcher.withCurrent(dispatcher) { TallyAction().invoke(.add(40)) }
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")], dispatcher: dispatcher)
        Dispatcher.withCurrent(dispatcher) {
            TallyAction().invoke(.add(2))
            TallyAction().invoke(.note("great scott"))
            TallyAction().invoke(.add(3))
        }
        recorder.stop()
        withExtendedLifetime(store) {}
        return file
    }

    @Test func eachStepShowsTheValuesAfterItAndADiffFromTheStepBefore() throws {
        let folder = try TemporaryFolder()
        let replay = DispatchReplay(contentsOf: try recording(in: folder), decoding: Self.types)
        let first = try #require(replay.next())
        #expect(first.sequence == 1)
        #expect(
            first.values == """
                TallyStore(
                  total: 42,
                  notes: []
                )
                """)
        #expect(
            first.changes == """
                  TallyStore(
                \u{2212}   total: 40,
                +   total: 42,
                    notes: []
                  )
                """)
        let second = try #require(replay.next())
        #expect(
            second.changes == """
                  TallyStore(
                    total: 42,
                \u{2212}   notes: []
                +   notes: [
                +     [0]: "great scott"
                +   ]
                  )
                """)
    }

    @Test func aStepThatChangesNothingSaysSoWithAnEmptyDiff() throws {
        let folder = try TemporaryFolder()
        let file = try RecordingText.recording(
            [RecordingText.line(1, #"{"ratio":{"_0":1}}"#)], in: folder)
        let replay = DispatchReplay(contentsOf: file, decoding: Self.types)
        let step = try #require(replay.next())
        #expect(step.changes.isEmpty)
        #expect(step.values.contains("total: 0"))
    }

    @Test func replayingThroughAStepLeavesTheStoresAsAfterItAndShowsIt() throws {
        let folder = try TemporaryFolder()
        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: try recording(in: folder), decoding: Self.types, reportingTo: failures.reporter)
        let step = try #require(replay.replay(through: 2))
        #expect(step.sequence == 2)
        #expect(store.total.value == 42)
        #expect(store.notes.value == ["great scott"])
        #expect(step.changes.contains(#"+     [0]: "great scott""#))
        // Again: the same step; then on.
        #expect(replay.replay(through: 2)?.sequence == 2)
        #expect(replay.replay(through: 3)?.changes.contains("+   total: 45,") == true)
        #expect(failures.messages.isEmpty)
    }

    @Test(arguments: [(9, "step 9 is past the end: the recording's last step is 3")])
    func aStepNotInTheRecordingFailsSayingWhichAreThere(step: Int, expected: String) throws {
        let folder = try TemporaryFolder()
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: try recording(in: folder), decoding: Self.types, into: Dispatcher(),
            reportingTo: failures.reporter)
        #expect(replay.replay(through: UInt64(step)) == nil)
        #expect(failures.messages == ["tally.jsonl, \(expected); 3 state(s) before it were replayed"])
    }

    @Test func aStepReplayedAlreadyOrBeforeTheStartOfARotatedRecordingFails() throws {
        let folder = try TemporaryFolder()
        let file = try RecordingText.recording(
            [RecordingText.line(7, #"{"add":{"_0":1}}"#), RecordingText.line(8, #"{"add":{"_0":1}}"#)],
            startingAt: 7, in: folder)
        let failures = CollectedFailures()
        let early = DispatchReplay(
            contentsOf: file, decoding: Self.types, into: Dispatcher(), reportingTo: failures.reporter)
        #expect(early.replay(through: 3) == nil)
        let start = DispatchReplay(
            contentsOf: file, decoding: Self.types, into: Dispatcher(), reportingTo: failures.reporter)
        #expect(start.replay(through: 6) == nil, "the step before the first is the start")
        #expect(start.replay(through: 8)?.sequence == 8)
        #expect(start.replay(through: 7) == nil)
        let messages: [String] = failures.messages.map { message in
            message.components(separatedBy: ", ").dropFirst().joined(separator: ", ")
        }
        let rotatedOut: String =
            "step 3 is not in the recording: it keeps the steps from 7 on (the recorder's ring let go of the "
            + "earlier ones); step 6 is its start; 0 state(s) before it were replayed"
        let playedAlready: String =
            "step 7 was played already: the player is at step 8 (a player goes forward only; make a new one to "
            + "go back); 2 state(s) before it were replayed"
        #expect(messages == [rotatedOut, playedAlready])
    }

    @Test func theTimelineIsOneSelfContainedPageOfEveryStepWithItsValuesAndChanges() throws {
        let folder = try TemporaryFolder()
        let file = try recording(in: folder)
        let replay = DispatchReplay(contentsOf: file, decoding: Self.types)
        replay.next()
        let page = folder.file("timeline.html")
        try replay.writeTimeline(to: page)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for remote in ["<script src", "<link", "http://", "https://", "@import"] {
            #expect(!html.contains(remote), "self-contained: \(remote)")
        }
        // The whole recording, from its start, whatever the replay has done.
        #expect(html.contains(#""steps":[[1,"#))
        #expect(html.contains(#""types":["Tally"]"#))
        #expect(html.contains(#""variableLabels":["total","notes"]"#))
        #expect(html.contains("Dispatcher.Tally.note(\\\"great scott\\\")"))
        let removedLine = "\u{2212}   total: 40,"
        #expect(html.contains(removedLine))
        // The test's replay goes on where it was.
        #expect(replay.next()?.sequence == 2)
    }

    @Test func aRecordingThatStopsHalfwayShowsTheStepsBeforeAndWhy() throws {
        let folder = try TemporaryFolder()
        let file = try RecordingText.recording(
            [RecordingText.line(1, #"{"add":{"_0":1}}"#), "<script>alert(1)</script>"], in: folder)
        let page = folder.file("timeline.html")
        try DispatchReplay(contentsOf: file, decoding: Self.types).writeTimeline(to: page)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains(#""steps":[[1,"#))
        #expect(html.contains(#""failure":"\#(file.lastPathComponent), line 4 is not a recorded dispatch"#))
        #expect(!html.contains("<script>alert"), "the recording's text cannot end the page's script")
    }

    @Test func aTimelineIsAttachedToTheTestAndItsFileReturned() throws {
        let folder = try TemporaryFolder()
        let replay = DispatchReplay(contentsOf: try recording(in: folder), decoding: Self.types)
        let url = try #require(replay.attachTimeline(named: "tally-timeline.html"))
        #expect(url.lastPathComponent == "tally-timeline.html")
        #expect(try String(contentsOf: url, encoding: .utf8).contains(#""steps":[[1,"#))
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    /// 100,000 steps: a page of a few megabytes whose data the page reads once and whose
    /// rows it draws only on screen (the browser check, Scripts/check-timeline, opens one).
    @Test func aHundredThousandStepRecordingMakesAPage() throws {
        let folder = try TemporaryFolder()
        let file = try Self.hundredThousandSteps(in: folder)
        // Attached: `Scripts/check-timeline` opens it in a browser.
        let page = try #require(
            DispatchReplay(contentsOf: file, decoding: Self.types, into: Dispatcher())
                .attachTimeline(named: "hundred-thousand-steps.html"))
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains(#"[100000,"#))
        #expect(!html.contains(#""failure":"f"#))
        #expect(html.utf8.count < 40 << 20, "\(html.utf8.count) bytes")
    }

    /// A recording of 100,000 steps of a tally (adds and now and then a note).
    static func hundredThousandSteps(in folder: TemporaryFolder) throws -> URL {
        let file = folder.file("hundred-thousand.jsonl")
        var text = RecordingText.header() + "\n" + RecordingText.start(1) + "\n"
        text.reserveCapacity(10 << 20)
        for sequence in 1...100_000 {
            let state = sequence % 1_000 == 0 ? #"{"note":{"_0":"at \#(sequence)"}}"# : #"{"add":{"_0":1}}"#
            text += RecordingText.line(sequence, state) + "\n"
        }
        try Data(text.utf8).write(to: file)
        return file
    }
}
