import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// What a replay of `file` into a tally store of its own ends with, and its failures.
private func replayedTotal(_ file: URL) -> (total: Int, failures: [String]) {
    let dispatcher = Dispatcher()
    let store = Dispatcher.withCurrent(dispatcher) { TallyStore.instantiate() }
    let failures = CollectedFailures()
    DispatchReplay(
        contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")], into: dispatcher,
        reportingTo: failures.reporter
    ).replayAll()
    return (store.total.value, failures.messages)
}

/// Issue 40, item 6: a recorder recovers from what happens to its file, and refuses what
/// would lose a recording.
@Suite("A recorder recovers", .isolatedDispatcher)
struct RecordingRecoveryTests {
    @Test(arguments: [false, true])
    func aFileOrFolderDeletedWhileRecordingIsMadeAgainAndRecordingGoesOnWithOneReport(wholeFolder: Bool) throws {
        let folder = try TemporaryFolder()
        let sessions = folder.url.appendingPathComponent("sessions")
        let file = sessions.appendingPathComponent("session.jsonl")
        let store = TallyStore.instantiate()
        let errors = CollectedErrors()
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")], onError: errors.handler)
        TallyAction().invoke(.add(1))
        recorder.flush()
        try FileManager.default.removeItem(at: wholeFolder ? sessions : file)
        // Found gone at its next write: made again, from the next dispatch's checkpoint.
        TallyAction().invoke(.add(10))
        recorder.flush()
        for _ in 1...3 {
            TallyAction().invoke(.add(100))
            recorder.flush()
        }
        recorder.stop()

        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(try sequences(of: file) == [3, 4, 5])
        let replayed = replayedTotal(file)
        #expect(replayed.failures.isEmpty)
        #expect(replayed.total == store.total.value, "the new file starts from the stores' values then")
        #expect(store.total.value == 311)
        #expect(recorder.statistics.recorded == 4)
        #expect(recorder.statistics.notWritten == 1, "the one that found the file gone, before the checkpoint")
        #expect(errors.reasons.count == 1)
        #expect(
            errors.reasons.first?.hasPrefix("the file was gone (deleted, or its folder was) while recording") == true)
    }

    @Test func aFolderDeletedTwiceWhileRecordingStillRefusesASecondRecorder() throws {
        let folder = try TemporaryFolder()
        let sessions = folder.url.appendingPathComponent("sessions")
        let file = sessions.appendingPathComponent("session.jsonl")
        let store = TallyStore.instantiate()
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")],
            onError: CollectedErrors().handler)
        for _ in 1...2 {
            TallyAction().invoke(.add(1))
            recorder.flush()
            try FileManager.default.removeItem(at: sessions)
            // Found gone at the next write, and made again with its lock.
            TallyAction().invoke(.add(10))
            recorder.flush()
            TallyAction().invoke(.add(100))
            recorder.flush()
        }
        #expect(throws: DispatchRecordingError.self, "the remade file is still this recorder's") {
            _ = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")])
        }
        recorder.stop()
        withExtendedLifetime(store) {}
    }

    /// Two threads stop one recorder at once: neither returns before the file is closed and
    /// its lock let go of (the one that lost the race used to return at once).
    @Test func twoStopsAtOnceBothReturnWithTheFileLetGoOf() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let lockFile = folder.file(".session.jsonl.lock").path
        let stillLocked = Locked(0)
        for _ in 1...300 {
            let recorder = try DispatchFileRecorder(
                writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")])
            TallyAction().invoke(.add(1))
            let go = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<2 {
                done.enter()
                Thread {
                    go.wait()
                    recorder.stop()
                    // A shared lock: refused while the recorder's exclusive one is held.
                    let descriptor = open(lockFile, O_RDONLY)
                    if descriptor >= 0 {
                        if flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
                            stillLocked.withLock { $0 += 1 }
                        }
                        close(descriptor)
                    }
                    done.leave()
                }.start()
            }
            go.signal()
            go.signal()
            done.wait()
        }
        #expect(stillLocked.value == 0, "a stop() returned with the file still locked")
    }

    /// A recorder whose folder could not be made at first, and whose file another recorder
    /// took meanwhile, says that it stopped (it was not reported, after the folder's
    /// failure).
    @Test func aRecorderThatFindsItsFileTakenAtItsFirstWriteSaysSo() throws {
        let folder = try TemporaryFolder()
        let blocker = folder.file("sessions")
        try Data().write(to: blocker)
        let file = blocker.appendingPathComponent("session.jsonl")
        let errors = CollectedErrors()
        let first = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")], onError: errors.handler)
        // Its start written (or failed to be) before the folder can be made.
        first.flush()
        try FileManager.default.removeItem(at: blocker)
        let second = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")])
        TallyAction().invoke(.add(1))
        first.flush()
        #expect(
            errors.all.contains { "\($0)".contains("another recorder of this process is recording to this file") },
            "\(errors.all)")
        second.stop()
        first.stop()
    }

    @Test func aSecondRecorderOnTheFileIsRefusedInThisProcessAndTheFirstGoesOn() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let first = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        TallyAction().invoke(.add(1))
        // Another path to the same file.
        let again = URL(fileURLWithPath: folder.url.path + "/./session.jsonl")
        #expect {
            _ = try DispatchFileRecorder(writingTo: again, recording: [.state(Dispatcher.Tally.self)])
        } throws: { error in
            "\(error)"
                == "FluxCapacitor recorder, session.jsonl: another recorder of this process is recording to this file, "
                + "so this one does not start (two recorders on one file would interleave two sessions); stop the "
                + "other one first, or record to another file"
        }
        TallyAction().invoke(.add(2))
        first.stop()
        #expect(try sequences(of: file) == [1, 2])
        #expect(!FileManager.default.fileExists(atPath: folder.file("session.previous.jsonl").path))

        // Once the first is finished, another may record there.
        let next = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        next.stop()
        #expect(try sequences(of: folder.file("session.previous.jsonl")) == [1, 2])
    }

    @Test func leftoverTemporaryFilesOfInterruptedRewritesAreRemovedWhenRecordingStarts() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let leftovers = [".session.jsonl.\(UUID().uuidString).tmp", ".session.jsonl.\(UUID().uuidString).tmp"]
        let others = [".other.jsonl.\(UUID().uuidString).tmp", "session.jsonl.notes"]
        for name in leftovers + others {
            try Data("half a rewrite".utf8).write(to: folder.file(name))
        }
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        recorder.stop()
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))
        #expect(names.isDisjoint(with: leftovers))
        #expect(names.isSuperset(of: others), "only this recording's")
    }
}

// Child processes (`Process`): macOS and Linux.
#if os(Linux) || os(macOS)

@Suite("A recorder against other processes and a full disk")
struct RecordingAcrossProcessesTests {
    @Test(.isolatedDispatcher) func aRecorderOfAnotherProcessKeepsTheFileAndThisOneIsRefused() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let child = try RecordingChild(["hold", file.path])
        #expect(child.waitForLine("recording"))
        #expect {
            _ = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        } throws: { error in
            (error as? DispatchRecordingError)?.reason.hasPrefix(
                "a recorder of another process is recording to this file, so this one does not start") == true
        }
        let ended = child.finish()
        #expect(ended.status == 0)
        // Its file is whole, not moved aside by this process.
        #expect(
            try lines(of: file).first?.hasPrefix(#"{"format":"FluxCapacitor dispatch recording","version":2"#) == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("session.previous.jsonl").path))
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        recorder.stop()
    }

    /// A file limit of 64 KiB (`RLIMIT_FSIZE`, the child's own) fills up after about 900
    /// states of 5,000: the file keeps the newest, from a checkpoint, and replays to the
    /// session's end (the old recorder kept lines 1 to about 800 and dropped the rest).
    @Test(.isolatedDispatcher) func aFullDiskKeepsTheNewestLinesNotTheOldest() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let child = try RecordingChild(["full", file.path, "65536", "5000"])
        let ended = child.finish()
        #expect(ended.status == 0, "\(ended.errors)")
        #expect(ended.output.contains("done "))
        #expect(ended.errors.contains("the disk is full"), "reported: \(ended.errors)")

        let written = try lines(of: file)
        #expect(written.count > 100)
        #expect(written.dropFirst().first?.contains(#""checkpoint":true"#) == true, "it starts at a checkpoint")
        let sequences = try sequences(of: file)
        #expect(sequences.last == 5_000, "the newest lines are kept")
        #expect(sequences == Array((sequences.first ?? 0)...5_000))

        let replayed = replayedTotal(file)
        #expect(replayed.failures.isEmpty)
        #expect(replayed.total == 5_000)
    }

    /// A child dispatching one state a millisecond, killed with `SIGKILL` at moments spread
    /// over its first half second (as iOS ends an app): the file keeps all but the last few
    /// states it dispatched, and a kill in the first 100 ms still leaves a recording.
    @Test(arguments: [0, 3, 11, 29, 57, 98, 140, 230, 333, 470])
    func aChildKilledWhileDispatchingLosesAtMostFiveStates(afterMilliseconds delay: Int) throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let child = try RecordingChild(["kill", file.path])
        #expect(child.waitForLine("ready"))
        usleep(useconds_t(delay * 1_000))
        let ended = child.kill()
        #expect(ended.reason == .uncaughtSignal)

        #expect(FileManager.default.fileExists(atPath: file.path), "a file, even for a kill at once")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix(#"{"format":"FluxCapacitor dispatch recording","version":2"#))
        // The last line may be cut short by the kill.
        let whole = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let recorded = whole.compactMap { line in line.firstMatch(of: /"seq":(\d+),[^\n]*"state"/).map { Int($0.1)! } }
        #expect(recorded == Array(recorded.indices.map { $0 + 1 }), "consecutive from 1")
        let dispatched = ended.numbers.last ?? 0
        #expect(dispatched - (recorded.last ?? 0) <= 5, "dispatched \(dispatched), recorded \(recorded.last ?? 0)")
    }
}

#endif
