import FluxCapacitor
import FluxCapacitorPersistence
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitorTesting

@Suite("Replaying a recording, and what it does with bad input", .isolatedDispatcher)
struct DispatchReplayTests {
    private func recording(
        _ lines: [String], types: [String] = ["Tally"], startingAt first: Int = 1, in folder: TemporaryFolder
    ) throws -> URL {
        try RecordingText.recording(lines, types: types, startingAt: first, in: folder)
    }

    private func replay(_ file: URL, _ failures: CollectedFailures, named name: String = "Tally") -> DispatchReplay {
        DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: name)], reportingTo: failures.reporter)
    }

    @Test func stepByStepEachStateIsDispatchedBeforeTheStepIsReturned() throws {
        let folder = try TemporaryFolder()
        let file = try recording(
            [
                RecordingText.line(7, #"{"add":{"_0":2}}"#), RecordingText.line(8, #"{"note":{"_0":"hi"}}"#),
                RecordingText.line(9, #"{"add":{"_0":3}}"#),
            ],
            startingAt: 7, in: folder)
        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        let replay = replay(file, failures)
        var totals: [Int] = []
        while let step = replay.next() {
            totals.append(store.total.value)
            #expect(step.line == Int(step.sequence) - 4)
            #expect(step.typeName == "Tally")
            #expect(abs(step.time.timeIntervalSince1970 - 1_795_671_376.123) < 0.001)
        }
        #expect(totals == [2, 2, 5])
        #expect(store.notes.value == ["hi"])
        #expect(replay.replayedCount == 3)
        #expect(replay.failure == nil)
        #expect(failures.messages.isEmpty)
        #expect(replay.next() == nil)
    }

    @Test func aTruncatedLastLineFailsNamingItAfterReplayingTheLinesBefore() throws {
        let folder = try TemporaryFolder()
        let file = try recording(
            [RecordingText.line(1, #"{"add":{"_0":2}}"#), RecordingText.line(2, #"{"add":{"_0":3}}"#)], in: folder)
        // The app stopped while writing line 3.
        let whole = try Data(contentsOf: file)
        try (whole + Data(#"{"seq":3,"time":"2026-11-26T05:36:16.123Z","ty"#.utf8)).write(to: file)
        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 2)
        #expect(store.total.value == 5)
        #expect(
            failures.messages == [
                "\(file.lastPathComponent), line 5 is truncated: the file ends in the middle of it (the app stopped "
                    + "while writing it); 2 state(s) before it were replayed"
            ])
    }

    @Test func aFailureIsAnIssueOfTheTestAtTheCallThatATestCanExpect() throws {
        let folder = try TemporaryFolder()
        let file = try recording([RecordingText.line(1, #"{"add":{"_0":2}}"#)], in: folder)
        withKnownIssue {
            let replay = DispatchReplay(contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")])
            replay.replay(through: 5)
        } matching: { issue in
            issue.comments.first?.rawValue.contains("step 5 is past the end: the recording's last step is 1") == true
                && issue.sourceLocation?.fileID.hasSuffix("DispatchReplayTests.swift") == true
        }
    }

    @Test func aRecordedTypeNotGivenFailsAtTheHeaderNamingItAndHowToGiveOrSkipIt() throws {
        let folder = try TemporaryFolder()
        let file = try recording(
            [
                RecordingText.line(1, #"{"add":{"_0":2}}"#),
                RecordingText.line(2, #"{"ping":{}}"#, type: "MyApp.Dispatcher.Ping"),
            ],
            types: ["Tally", "MyApp.Dispatcher.Ping"], in: folder)
        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        let replay = replay(file, failures)
        replay.replayAll()
        #expect(store.total.value == 0)
        #expect(
            failures.messages == [
                "\(file.lastPathComponent), line 1: the recording has states of type 'MyApp.Dispatcher.Ping', which "
                    + "this replay was not given (it was given 'Tally'): give each, .state(YourState.self, named: "
                    + "\"MyApp.Dispatcher.Ping\"), or skip it on purpose, skipping: [\"MyApp.Dispatcher.Ping\"]; 0 "
                    + "state(s) before it were replayed"
            ])
        #expect(replay.failure == failures.messages.first)
    }

    @Test func aTypeSkippedOnPurposeIsReturnedMarkedAndNotDispatched() throws {
        let folder = try TemporaryFolder()
        let file = try recording(
            [
                RecordingText.line(1, #"{"add":{"_0":2}}"#), RecordingText.line(2, #"{"ping":{}}"#, type: "Ping"),
                RecordingText.line(3, #"{"add":{"_0":3}}"#),
            ],
            types: ["Tally", "Ping"], in: folder)
        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")], skipping: ["Ping"],
            reportingTo: failures.reporter)
        var skipped: [UInt64] = []
        while let step = replay.next() {
            if step.isSkipped {
                skipped.append(step.sequence)
                #expect(step.state == nil)
                #expect(step.typeName == "Ping")
                #expect(step.changes.isEmpty)
            }
        }
        #expect(failures.messages.isEmpty)
        #expect(skipped == [2])
        #expect(store.total.value == 5)
        #expect(replay.replayedCount == 2)
    }

    @Test func aChangedCaseFailsNamingTheLineAndShowingIt() throws {
        let folder = try TemporaryFolder()
        let file = try recording([RecordingText.line(1, #"{"increment":{"_0":2}}"#)], in: folder)
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 0)
        let message = try #require(failures.messages.first)
        #expect(message.contains("line 3: the Tally state does not decode (a case or a field renamed or changed"))
        #expect(message.contains("at state"))
        #expect(message.contains(#"the line: {"seq":1"#))
    }

    @Test func aChangedFieldTypeFailsNamingWhere() throws {
        let folder = try TemporaryFolder()
        let file = try recording([RecordingText.line(1, #"{"add":{"_0":"two"}}"#)], in: folder)
        let failures = CollectedFailures()
        replay(file, failures).replayAll()
        #expect(failures.messages.first?.contains("line 3: the Tally state does not decode") == true)
        #expect(failures.messages.first?.contains("at state.add._0") == true)
    }

    @Test func aFileThatIsNotJSONFailsAtItsFirstLine() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("notes.txt")
        try Data("Dear diary,\nnothing happened.\n".utf8).write(to: file)
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 0)
        #expect(
            failures.messages == [
                "notes.txt, line 1 is not the header of a FluxCapacitor recording, so the file is not one a "
                    + "DispatchFileRecorder wrote; it starts: Dear diary,; 0 state(s) before it were replayed"
            ])
    }

    @Test func aLineThatIsNotJSONFailsNamingIt() throws {
        let folder = try TemporaryFolder()
        let file = try recording([RecordingText.line(1, #"{"add":{"_0":2}}"#), "<html>oops</html>"], in: folder)
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 1)
        #expect(
            failures.messages.first?.contains("line 4 is not a recorded dispatch: not valid JSON") == true,
            "\(failures.messages)")
    }

    @Test func aGapInTheSequenceFailsNamingTheMissingDispatches() throws {
        let folder = try TemporaryFolder()
        let file = try recording(
            [RecordingText.line(1, #"{"add":{"_0":2}}"#), RecordingText.line(5, #"{"add":{"_0":3}}"#)], in: folder)
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 1)
        #expect(failures.messages.first?.contains("line 4: dispatches 2 to 4 were not recorded") == true)
    }

    @Test func aFirstStepMissingAfterTheStartFailsNamingIt() throws {
        // The start names step 1; the file's first step is 2 (step 1 did not encode).
        let folder = try TemporaryFolder()
        let file = try recording([RecordingText.line(2, #"{"add":{"_0":2}}"#)], in: folder)
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 0)
        #expect(
            failures.messages.first?.contains("line 3: dispatches 1 to 1 were not recorded") == true,
            "\(failures.messages)")
    }

    @Test func aSequenceAtItsLargestFailsInsteadOfOverflowing() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("largest.jsonl")
        let largest = UInt64.max
        let lines = [
            RecordingText.header(),
            #"{"seq":\#(largest),"time":"2026-11-26T05:36:16.120Z","type":"Tally","checkpoint":true,"#
                + #""values":{"_total":0,"_notes":[]}}"#,
            #"{"seq":\#(largest),"time":"2026-11-26T05:36:16.123Z","type":"Tally","state":{"add":{"_0":2}}}"#,
            RecordingText.line(1, #"{"add":{"_0":3}}"#),
        ]
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: file)
        let failures = CollectedFailures()
        #expect(replay(file, failures).replayAll() == 1)
        #expect(
            failures.messages.first?.contains("line 4: the sequence goes back from \(largest) to 1") == true,
            "\(failures.messages)")
    }

    @Test func anEmptyOrMissingFileFails() throws {
        let folder = try TemporaryFolder()
        let empty = folder.file("empty.jsonl")
        try Data().write(to: empty)
        let failures = CollectedFailures()
        replay(empty, failures).replayAll()
        replay(folder.file("missing.jsonl"), failures).replayAll()
        #expect(failures.messages.count == 2)
        #expect(failures.messages.first?.contains("line 1: the file is empty") == true)
        #expect(failures.messages.last?.contains("cannot open") == true)
    }

    @Test(arguments: [1, 3])
    func anotherVersionOfTheFormatIsRefusedSayingWhy(version: Int) throws {
        let folder = try TemporaryFolder()
        let file = folder.file("other.jsonl")
        try Data(
            (#"{"format":"FluxCapacitor dispatch recording","version":\#(version)}"# + "\n"
                + RecordingText.line(1, "{}") + "\n")
                .utf8
        ).write(to: file)
        let failures = CollectedFailures()
        replay(file, failures).replayAll()
        let expected =
            version == 1
            ? "line 1: version 1 of the format, which does not record the values the stores started from, so a "
                + "replay could end where the user never was; record the session again with this version (this "
                + "replay reads version 2)"
            : "line 1: version 3 of the format, which this version of FluxCapacitor does not read (this replay "
                + "reads version 2)"
        #expect(failures.messages == ["other.jsonl, \(expected); 0 state(s) before it were replayed"])
    }

    /// 100 MB of lines: stepping through its start reads a chunk at a time, not the file.
    @Test func aHundredMegabyteFileIsReadAsItIsReplayedInBoundedMemory() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("big.jsonl")
        var block = Data()
        var sequence = 0
        while block.count < 1 << 20 {
            sequence += 1
            block.append(contentsOf: (RecordingText.line(sequence, #"{"add":{"_0":1}}"#) + "\n").utf8)
        }
        var contents = Data((RecordingText.header() + "\n" + RecordingText.start(1) + "\n").utf8)
        contents.reserveCapacity(contents.count + 100 * block.count)
        for _ in 0..<100 {
            contents.append(block)
        }
        try contents.write(to: file)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        #expect(size > 100 << 20)

        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        let replay = replay(file, failures)
        for _ in 0..<5_000 {
            replay.next()
        }
        #expect(store.total.value == 5_000)
        #expect(failures.messages.isEmpty)
        #expect(replay.peakBufferedBytes < 1 << 20, "held \(replay.peakBufferedBytes) bytes")
    }

    /// 100 MB with no newline after the header: not read whole, a clear failure.
    @Test func aHundredMegabyteLineFailsAtTheLineLimitWithoutReadingItAll() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("one-line.jsonl")
        try (Data((RecordingText.header() + "\n").utf8) + Data(repeating: UInt8(ascii: "x"), count: 100 << 20)).write(
            to: file)

        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")], maximumLineLength: 1 << 20,
            reportingTo: failures.reporter)
        #expect(replay.replayAll() == 0)
        #expect(
            failures.messages.first?.contains(
                "line 2 is longer than 1048576 bytes, the longest a replay reads (maximumLineLength)") == true)
        #expect(replay.peakBufferedBytes < 4 << 20, "held \(replay.peakBufferedBytes) bytes")
    }
}
