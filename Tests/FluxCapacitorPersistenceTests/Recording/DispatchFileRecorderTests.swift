import Dispatch
import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

@testable import FluxCapacitorPersistence

@Suite("Recording dispatches to a file", .isolatedDispatcher)
struct DispatchFileRecorderTests {
    @Test func eachDispatchOfARecordedTypeIsOneJSONLineInOrderAfterTheStoresStartingValues() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let store = TallyStore.instantiate()
        TallyAction().invoke(.add(5))
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")], onError: { _ in })
        TallyAction().invoke(.add(2))
        TallyAction().invoke(.note("a \"quoted\"\nline"))
        TallyAction().invoke(.reset)
        recorder.stop()

        let written = try lines(of: file).map { line in
            line.replacingOccurrences(of: #""time":"[^"]*""#, with: #""time":"T""#, options: .regularExpression)
        }
        #expect(
            written == [
                #"{"format":"FluxCapacitor dispatch recording","version":2,"types":["Tally"]}"#,
                #"{"seq":1,"time":"T","type":"Tally","checkpoint":true,"values":{"_total":5,"_notes":[]}}"#,
                #"{"seq":1,"time":"T","type":"Tally","state":{"add":{"_0":2}}}"#,
                #"{"seq":2,"time":"T","type":"Tally","state":{"note":{"_0":"a \"quoted\"\nline"}}}"#,
                #"{"seq":3,"time":"T","type":"Tally","state":{"reset":{}}}"#,
            ])
        let time = try #require(
            try lines(of: file).last?.firstMatch(of: /"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/))
        #expect(!time.1.isEmpty)
        #expect(recorder.statistics.recorded == 3)
        #expect(store.total.value == 0)
    }

    @Test(arguments: [0, 951_782_400.5, 1_795_671_376.123, 4_107_542_399.999, -86_400.25])
    func theTimeIsWrittenInUTCToTheMillisecondAsISO8601Says(seconds: Double) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let milliseconds = (seconds * 1_000).rounded(.down) / 1_000
        #expect(RecordingFormat.timestamp(seconds) == formatter.string(from: Date(timeIntervalSince1970: milliseconds)))
        #expect(RecordingFormat.seconds(fromTimestamp: RecordingFormat.timestamp(seconds)) == milliseconds)
    }

    @Test func aBatchIsCutAtItsElementsWhateverTheirStringsHold() throws {
        let notes = [
            #"a "quoted", [bracketed] {braced} note"#, #"ends with a backslash \"#, #"\"#, #"\\","#, "",
            "[", "}", #"\"\"#, "line\nbreak, and é, 😀",
        ]
        let states: [Dispatcher.Tally] = notes.map { .note($0) } + [.add(1), .reset]
        let encoder = JSONEncoder()
        let batch = Array(try encoder.encode(states))
        let ranges = try #require(RecordingFormat.elements(ofArray: batch, expectedCount: states.count))
        #expect(ranges.map { Array(batch[$0]) } == (try states.map { Array(try encoder.encode($0)) }))
        #expect(RecordingFormat.elements(ofArray: Array("[]".utf8)) == [])
        #expect(RecordingFormat.elements(ofArray: Array(#"["unclosed]"#.utf8)) == nil)
        #expect(RecordingFormat.elements(ofArray: Array("{}".utf8)) == nil)
    }

    @Test func theDefaultNameIsSwiftsFullNameOfTheTypeWithTheModuleOfItsExtension() {
        let type = DispatchFileRecorder.RecordedType.state(Dispatcher.Tally.self)
        #expect(type.name == "(extension in FluxTestFixtures):FluxCapacitor.Dispatcher.Tally")
        #expect(type.name == String(reflecting: Dispatcher.Tally.self))
        #expect(DispatchReplay.ReplayedType.state(Dispatcher.Tally.self).name == type.name)
    }

    @Test func aRecordedSessionReplayedIntoFreshStoresEndsWithTheSameValues() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let recorded = TallyStore.instantiate()
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        for amount in 1...20 {
            TallyAction().invoke(.add(amount))
            if amount % 5 == 0 { TallyAction().invoke(.note("at \(amount)")) }
        }
        recorder.stop()

        let replayed = Dispatcher()
        let store = Dispatcher.withCurrent(replayed) { TallyStore.instantiate() }
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self)], into: replayed, reportingTo: failures.reporter)
        #expect(replay.replayAll() == 24)
        #expect(failures.messages.isEmpty)
        #expect(store.total.value == recorded.total.value)
        #expect(store.notes.value == recorded.notes.value)
        #expect(store.total.value == 210)
    }

    @Test func theFileKeepsAtMostTheLimitFromACheckpointAfterARewrite() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("ring.jsonl")
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self)], keepingAtMost: 10)
        for amount in 1...25 {
            TallyAction().invoke(.add(amount))
            // A batch of one at a time, as a slow stream of dispatches writes them.
            recorder.flush()
            #expect(try steps(of: file).count <= 10, "after dispatch \(amount)")
            #expect(try lines(of: file).dropFirst().first?.contains(#""checkpoint":true"#) == true)
        }
        recorder.stop()
        let sequences = try sequences(of: file)
        #expect(sequences == Array((26 - sequences.count)...25), "the newest, consecutive: \(sequences)")
        #expect((5...10).contains(sequences.count))
        #expect(recorder.statistics.recorded == 25)
    }

    @Test func aBigBatchPastTheLimitKeepsItsNewestFromACheckpoint() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("ring.jsonl")
        let gate = WriterGate()
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self), .state(Dispatcher.Held.self)],
            keepingAtMost: 10)
        for amount in 1...7 { TallyAction().invoke(.add(amount)) }
        recorder.flush()
        // The writer waits in the held state's encoding while 23 more come: one batch.
        HeldAction().invoke(.held(gate))
        gate.encoding.wait()
        for amount in 9...31 { TallyAction().invoke(.add(amount)) }
        gate.mayEncode.signal()
        recorder.stop()
        let sequences = try sequences(of: file)
        #expect(sequences.last == 31)
        #expect(sequences == Array((32 - sequences.count)...31))
        #expect((5...10).contains(sequences.count), "\(sequences)")
        #expect(try lines(of: file).dropFirst().first?.contains(#""checkpoint":true"#) == true)
    }

    @Test func aFileAlreadyThereIsKeptAsThePreviousRecording() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        try Data("the last session\n".utf8).write(to: file)
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        TallyAction().invoke(.add(1))
        recorder.stop()
        #expect(try lines(of: folder.file("session.previous.jsonl")) == ["the last session"])
        #expect(try steps(of: file).count == 1)
    }

    @Test func theFileIsReadableByItsOwnerOnly() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("private.jsonl")
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        TallyAction().invoke(.add(1))
        recorder.stop()
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func aTypeNotGivenIsCountedAndReportedOnceInTheRecordersWordsAndNotRecorded() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let errors = CollectedErrors()
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self)], onError: errors.handler)
        for _ in 1...3 { UnrecordedAction().invoke(.ping) }
        TallyAction().invoke(.add(1))
        recorder.stop()

        #expect(recorder.statistics.notRegistered == 3)
        #expect(recorder.statistics.recorded == 1)
        #expect(errors.all.count == 1)
        let error = try #require(errors.all.first)
        #expect(error.file == file)
        #expect(error.line == nil)
        #expect(
            error.description
                == "FluxCapacitor recorder, session.jsonl: a \(String(reflecting: Dispatcher.Unrecorded.self)) state "
                + "was dispatched, which is not one of the recorded types: its dispatches are counted "
                + "(statistics.notRegistered), not recorded (reported once)")
        #expect(!error.description.contains("persisted"))
        #expect(try steps(of: file).count == 1)
    }

    @Test func aStateWhoseEncodingThrowsIsCountedReportedOnceAndLeavesAGap() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let errors = CollectedErrors()
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")], onError: errors.handler)
        TallyAction().invoke(.add(1))
        TallyAction().invoke(.ratio(.nan))
        TallyAction().invoke(.ratio(.infinity))
        TallyAction().invoke(.add(2))
        recorder.stop()

        #expect(recorder.statistics.notEncodable == 2)
        #expect(recorder.statistics.recorded == 2)
        #expect(errors.reasons.count == 1)
        #expect(errors.reasons.first?.hasPrefix("a Tally state could not be encoded") == true)
        #expect(errors.all.first?.underlyingError is EncodingError)
        #expect(try sequences(of: file) == [1, 4])
    }

    @Test func aFirstStepThatCouldNotBeEncodedIsAGapTheReplayNames() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")],
            onError: CollectedErrors().handler)
        TallyAction().invoke(.ratio(.nan))
        TallyAction().invoke(.add(2))
        recorder.stop()
        #expect(try sequences(of: file) == [2])

        // The start is from before step 1: replaying step 2 on it would end where the app
        // never was.
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")], into: Dispatcher(),
            reportingTo: failures.reporter)
        #expect(replay.replayAll() == 0)
        #expect(failures.messages.count == 1)
        #expect(
            failures.messages.first?.contains("dispatches 1 to 1 were not recorded") == true, "\(failures.messages)")
    }

    @Test func aFileThatCannotBeWrittenIsReportedOnceAndTheAppGoesOn() throws {
        let folder = try TemporaryFolder()
        // A file where the recording's folder should be.
        let blocker = folder.file("not-a-folder")
        try Data().write(to: blocker)
        let errors = CollectedErrors()
        let store = TallyStore.instantiate()
        let recorder = try DispatchFileRecorder(
            writingTo: blocker.appendingPathComponent("session.jsonl"), recording: [.state(Dispatcher.Tally.self)],
            onError: errors.handler)
        TallyAction().invoke(.add(1))
        recorder.flush()
        TallyAction().invoke(.add(2))
        recorder.stop()

        #expect(store.total.value == 3)
        #expect(recorder.statistics.notWritten == 2)
        #expect(recorder.statistics.recorded == 0)
        // Reported when writing started failing, not again while it goes on failing.
        #expect(errors.all.count == 1)
        let error = try #require(errors.all.first)
        #expect((error.underlyingError as? FileStorageError)?.code == .ENOTDIR)
        #expect(error.description.contains("making the directory"))
    }

    @Test func aWriterThatFallsBehindDropsCountsAndReportsWithoutBlockingTheDispatch() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let gate = WriterGate()
        let errors = CollectedErrors()
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self), .state(Dispatcher.Held.self)],
            bufferCapacity: 4, onError: errors.handler)
        HeldAction().invoke(.held(gate))
        // Encoding the held state, the writer waits for the test, and falls behind.
        gate.encoding.wait()
        for amount in 1...10 {
            TallyAction().invoke(.add(amount))
        }
        let whileBehind = recorder.statistics
        gate.mayEncode.signal()
        recorder.flush()
        TallyAction().invoke(.add(11))
        recorder.stop()

        #expect(whileBehind.droppedWhileBehind == 6)
        #expect(whileBehind.waiting == 4)
        #expect(whileBehind.recorded == 0)
        let statistics = recorder.statistics
        #expect(statistics.recorded == 6)
        #expect(statistics.droppedWhileBehind == 6)
        #expect(errors.reasons.filter { $0.hasPrefix("the recorder fell behind: 6 dispatch(es)") }.count == 1)

        // The replay names the gap the drops left.
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self), .state(Dispatcher.Held.self)],
            into: Dispatcher(), reportingTo: failures.reporter)
        replay.replayAll()
        #expect(failures.messages.count == 1)
        #expect(failures.messages.first?.contains("were not recorded (the sequence jumps from") == true)
    }

    @Test func aRecorderThatGoesAwayFinishesAndWritesWhatItHeard() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        do {
            let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
            TallyAction().invoke(.add(1))
            withExtendedLifetime(recorder) {}
        }
        TallyAction().invoke(.add(2))
        #expect(try steps(of: file).count == 1)
    }

    @Test func stoppingTwiceDoesNothingMoreAndLaterDispatchesAreNotRecorded() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        TallyAction().invoke(.add(1))
        recorder.stop()
        TallyAction().invoke(.add(2))
        recorder.stop()
        recorder.flush()
        #expect(try steps(of: file).count == 1)
        #expect(
            recorder.statistics
                == {
                    var s = DispatchFileRecorder.Statistics(); s.recorded = 1; return s
                }())
    }

    @Test func dispatchesFromManyThreadsAreRecordedOnceEachInDispatchOrder() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("threads.jsonl")
        let dispatcher = Dispatcher.current
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self)], bufferCapacity: 100_000)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            Dispatcher.withCurrent(dispatcher) {
                for index in 0..<500 {
                    TallyAction().invoke(.add(thread * 1_000 + index))
                }
            }
        }
        recorder.stop()
        let written = try steps(of: file)
        #expect(try sequences(of: file) == Array(1...2_000))
        // Each thread's own dispatches in its order.
        let amounts = written.map { Int($0.firstMatch(of: /"_0":(\d+)/)!.1)! }
        for thread in 0..<4 {
            let own = amounts.filter { $0 / 1_000 == thread }
            #expect(own == Array((thread * 1_000)..<(thread * 1_000 + 500)))
        }
    }
}
