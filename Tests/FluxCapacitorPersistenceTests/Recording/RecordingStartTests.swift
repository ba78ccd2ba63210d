import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

/// Issue 41: a recording starts where the session did, and a replay starts there or says
/// why it cannot.
@Suite("Where a recording starts")
struct RecordingStartTests {
    private static let shelf: [DispatchReplay.ReplayedType] = [.state(Dispatcher.Pantry.self, named: "Shelf")]

    /// Replays `file` into a dispatcher and an in-memory storage of their own; returns the
    /// shelf's items and the failures.
    private func replayShelf(_ file: URL) -> (items: [String], failures: [String]) {
        let failures = CollectedFailures()
        let items = Persistence.withDefaultStorage(InMemoryStorage(coalescingInterval: .zero)) {
            let dispatcher = Dispatcher()
            let store = Dispatcher.withCurrent(dispatcher) { PantryStore.instantiate() }
            DispatchReplay(contentsOf: file, decoding: Self.shelf, into: dispatcher, reportingTo: failures.reporter)
                .replayAll()
            return store.items.value
        }
        return (items, failures.messages)
    }

    @Test func aSessionStartedFromSavedValuesReplaysToWhatTheUserSaw() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let saved = InMemoryStorage(coalescingInterval: .zero)
        // An earlier launch saved two items.
        Persistence.withDefaultStorage(saved) {
            let dispatcher = Dispatcher()
            Dispatcher.withCurrent(dispatcher) {
                let store = PantryStore.instantiate()
                PantryAction().invoke(.add("hoverboard"))
                PantryAction().invoke(.add("almanac"))
                withExtendedLifetime(store) {}
            }
        }
        // This launch records from before its first store, which restores the two, and
        // takes one away: the user sees one.
        let seen: [String] = try Persistence.withDefaultStorage(saved) {
            let dispatcher = Dispatcher()
            let recorder = try DispatchFileRecorder(
                writingTo: file, recording: [.state(Dispatcher.Pantry.self, named: "Shelf")], dispatcher: dispatcher)
            defer { recorder.stop() }
            return Dispatcher.withCurrent(dispatcher) {
                let store = PantryStore.instantiate()
                PantryAction().invoke(.remove("hoverboard"))
                return store.items.value
            }
        }
        #expect(seen == ["almanac"])

        let replayed = replayShelf(file)
        #expect(replayed.failures.isEmpty)
        #expect(replayed.items == seen, "not [] (the stores' defaults), nor the replay's own storage's")
    }

    @Test(.isolatedDispatcher) func valuesSetBeforeRecordingStartedAreWhereTheReplayStarts() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let store = TallyStore.instantiate()
        TallyAction().invoke(.add(40))
        TallyAction().invoke(.note("before"))
        let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self)])
        TallyAction().invoke(.add(2))
        recorder.stop()

        let dispatcher = Dispatcher()
        let replayed = Dispatcher.withCurrent(dispatcher) { TallyStore.instantiate() }
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self)], into: dispatcher,
            reportingTo: failures.reporter)
        // The start, before any step: what the session started from.
        #expect(replay.replay(through: 0) == nil)
        #expect(replayed.total.value == 40)
        #expect(replayed.notes.value == ["before"])
        replay.replayAll()
        #expect(failures.messages.isEmpty)
        #expect(replayed.total.value == store.total.value)
        #expect(replayed.total.value == 42)
    }

    @Test func aStoreMadeWhileRecordingIsRestoredToWhatItStartedWith() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("session.jsonl")
        let saved = InMemoryStorage(coalescingInterval: .zero)
        Persistence.withDefaultStorage(saved) {
            Dispatcher.withCurrent(Dispatcher()) {
                let store = PantryStore.instantiate()
                PantryAction().invoke(.add("flux capacitor"))
                withExtendedLifetime(store) {}
            }
        }
        try Persistence.withDefaultStorage(saved) {
            let dispatcher = Dispatcher()
            let recorder = try DispatchFileRecorder(
                writingTo: file, recording: [.state(Dispatcher.Pantry.self, named: "Shelf")], dispatcher: dispatcher)
            Dispatcher.withCurrent(dispatcher) {
                // No store yet: dropped, and recorded so.
                PantryAction().invoke(.add("lost"))
                let store = PantryStore.instantiate()
                PantryAction().invoke(.add("sports almanac"))
                withExtendedLifetime(store) {}
            }
            recorder.stop()
        }
        let written = try lines(of: file)
        #expect(written.contains { $0.contains(#""dropped":true"#) && $0.contains("lost") })
        #expect(
            written.contains { $0.contains(#""values":{"_items":["flux capacitor"]}"#) && !$0.contains("checkpoint") })

        let replayed = replayShelf(file)
        #expect(replayed.failures.isEmpty)
        #expect(replayed.items == ["flux capacitor", "sports almanac"], "the dropped state is not dispatched again")
    }

    @Test func aRotatedRecordingReplaysToWhereTheSessionEnded() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("ring.jsonl")
        let dispatcher = Dispatcher()
        let recorded = Dispatcher.withCurrent(dispatcher) { TallyStore.instantiate() }
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Tally.self)], keepingAtMost: 10, dispatcher: dispatcher)
        Dispatcher.withCurrent(dispatcher) {
            for _ in 1...25 {
                TallyAction().invoke(.add(1))
                recorder.flush()
            }
        }
        recorder.stop()
        #expect(try sequences(of: file).first ?? 0 > 1, "the ring turned")
        #expect(recorded.total.value == 25)

        let replaying = Dispatcher()
        let store = Dispatcher.withCurrent(replaying) { TallyStore.instantiate() }
        let failures = CollectedFailures()
        DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self)], into: replaying,
            reportingTo: failures.reporter
        ).replayAll()
        #expect(failures.messages.isEmpty)
        #expect(store.total.value == 25, "not 6: the file's first kept step starts from a checkpoint")
    }

    @Test(.isolatedDispatcher) func aRecordingWithoutItsStartSaysTheStartIsMissing() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("cut.jsonl")
        let text = [
            RecordingText.header(), RecordingText.line(6, #"{"add":{"_0":2}}"#),
        ].map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: file)
        let store = TallyStore.instantiate()
        let failures = CollectedFailures()
        DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")],
            reportingTo: failures.reporter
        ).replayAll()
        #expect(store.total.value == 0, "never a silent replay from mid-session")
        #expect(
            failures.messages == [
                "cut.jsonl, line 2: the start is missing: the recording has no values of the 'Tally' store(s) before "
                    + "its first step, at line 2, so a replay would start from the stores' defaults, not from where the "
                    + "session did (the file was cut, or written by hand); record the session again; 0 state(s) before "
                    + "it were replayed"
            ])
    }

    @Test(.isolatedDispatcher) func aValueThatIsNotCodableIsComparedAndNamedWhenTheReplayCannotRestoreIt() throws {
        let folder = try TemporaryFolder()
        let file = folder.file("workshop.jsonl")
        let workshop = WorkshopStore.instantiate()
        workshop.gadget.value = Gadget(name: "time circuits")
        let recorder = try DispatchFileRecorder(
            writingTo: file, recording: [.state(Dispatcher.Workshop.self, named: "Workshop")])
        WorkshopAction().invoke(.count)
        recorder.stop()
        #expect(try lines(of: file)[1].contains(#""unrecorded":{"gadget":"Gadget(time circuits)"}"#))

        // A replay whose store has the same value: nothing to restore, it goes on.
        let same = Dispatcher()
        let sameStore = Dispatcher.withCurrent(same) { WorkshopStore.instantiate() }
        sameStore.gadget.value = Gadget(name: "time circuits")
        let sameFailures = CollectedFailures()
        let types: [DispatchReplay.ReplayedType] = [.state(Dispatcher.Workshop.self, named: "Workshop")]
        #expect(
            DispatchReplay(contentsOf: file, decoding: types, into: same, reportingTo: sameFailures.reporter)
                .replayAll() == 1)
        #expect(sameFailures.messages.isEmpty)
        #expect(sameStore.counted.value == 1)

        // A fresh one: the replay cannot set it, and says so.
        let fresh = Dispatcher()
        let failures = CollectedFailures()
        let replay = DispatchReplay(contentsOf: file, decoding: types, into: fresh, reportingTo: failures.reporter)
        #expect(replay.replayAll() == 0)
        #expect(
            failures.messages == [
                "workshop.jsonl, line 2: cannot restore WorkshopStore.gadget: its type, Gadget, is not Codable, so the "
                    + "recording has only its description, Gadget(time circuits), and the store has Gadget(default); 0 "
                    + "state(s) before it were replayed"
            ])
    }

    @Test(arguments: [
        (
            #"{"_totl":3,"_notes":[]}"#,
            "TallyStore.totl is in the recording, and the store has no Variable of that name"
        ),
        (#"{"_total":3}"#, "the recording has no value of TallyStore.notes (a property added since the recording?)"),
        (#"{"_total":"three","_notes":[]}"#, "TallyStore.total does not decode as Int"),
    ])
    func aStartTheReplayCannotRestoreIsNamed(values: String, expected: String) throws {
        let folder = try TemporaryFolder()
        let file = folder.file("start.jsonl")
        let start = #"{"seq":1,"time":"2026-11-26T05:36:16.120Z","type":"Tally","checkpoint":true,"values":"#
        let text = [
            RecordingText.header(), start + values + "}", RecordingText.line(1, #"{"add":{"_0":2}}"#),
        ]
        .map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: file)
        let failures = CollectedFailures()
        let replay = DispatchReplay(
            contentsOf: file, decoding: [.state(Dispatcher.Tally.self, named: "Tally")], into: Dispatcher(),
            reportingTo: failures.reporter)
        #expect(replay.replayAll() == 0)
        #expect(failures.messages.count == 1)
        #expect(failures.messages.first?.hasPrefix("start.jsonl, line 2: ") == true, "\(failures.messages)")
        #expect(failures.messages.first?.contains(expected) == true, "\(failures.messages)")
    }
}
