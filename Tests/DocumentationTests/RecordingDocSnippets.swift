// The code samples of DispatchFileRecorder, DispatchFilePlayer and DispatchRecordingError
// (Sources/FluxCapacitorPersistence), DispatchReplay (Sources/FluxCapacitorTesting) and the
// article "Recording and Replaying", verbatim: DocumentationSampleTests checks that each
// sample appears here (or in another *Snippets.swift file). Edit the doc comment first,
// then copy the sample here. Samples that write to /tmp are compiled, not run.

import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import Foundation
import Testing

/// A recording of two favorites added, made once for the samples (in a dispatcher of its
/// own, so that no test hears it).
let recording: URL = {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString).jsonl")
    let dispatcher = Dispatcher()
    let store = Dispatcher.withCurrent(dispatcher) { FavoriteStore.instantiate() }
    let recorder = try! DispatchFileRecorder(
        writingTo: file, recording: [.state(Dispatcher.Favorite.self, named: "Favorite")], dispatcher: dispatcher)
    Dispatcher.withCurrent(dispatcher) {
        FavoriteAction().invoke(.add(fluxCapacitor))
        FavoriteAction().invoke(.add(GitHub.Repository(name: "hoverboard")))
    }
    recorder.stop()
    withExtendedLifetime(store) {}
    return file
}()

// MARK: - DispatchFileRecorder

func recorderSample() throws {
    let recorder = try DispatchFileRecorder(
        writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
        recording: [.state(Dispatcher.Favorite.self, named: "Favorite")],
        keepingAtMost: 5_000)
    // … the app runs …
    recorder.stop()  // or let it go: it stops when it goes away
}

func recordedTypesSample() -> [DispatchFileRecorder.RecordedType] {
    let types: [DispatchFileRecorder.RecordedType] = [
        .state(Dispatcher.Favorite.self, named: "Favorite")
    ]
    return types
}

func recorderStatisticsSample(recorder: DispatchFileRecorder) {
    let counts = recorder.statistics
    print("\(counts.recorded) recorded, \(counts.droppedWhileBehind) dropped")
}

func recorderInitSample() throws {
    let recorder = try DispatchFileRecorder(
        writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
        recording: [.state(Dispatcher.Favorite.self)])
    recorder.flush()
    recorder.stop()
}

// MARK: - DispatchRecordingError

func recordingErrorSample() throws {
    let recorder = try DispatchFileRecorder(
        writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
        recording: [.state(Dispatcher.Favorite.self, named: "Favorite")],
        onError: { error in print(error) })
    recorder.stop()
}

func recordingErrorInitSample() {
    let error = DispatchRecordingError(
        file: URL(fileURLWithPath: "/tmp/session.jsonl"), reason: "stopped")
    print(error)
}

// MARK: - DispatchFilePlayer

func playerSample() throws {
    let player = DispatchFilePlayer(
        contentsOf: URL(fileURLWithPath: "/tmp/session.jsonl"),
        playing: [.state(Dispatcher.Favorite.self, named: "Favorite")])
    try player.play(through: 12)  // the stores, as after step 12
}

func playerInitSample() throws {
    let player = DispatchFilePlayer(
        contentsOf: URL(fileURLWithPath: "/tmp/session.jsonl"),
        playing: [.state(Dispatcher.Favorite.self, named: "Favorite")],
        skipping: ["Analytics"])
    while let step = try player.next() {
        print(step.sequence, step.typeName)
    }
    let step = try player.play(through: 12)
    print(step?.sequence ?? 0)
    try player.playAll()
}

@Test(.isolatedDispatcher) func aPlayerPlaysTheRecordingIntoTheAppsStores() throws {
    let store = FavoriteStore.instantiate()
    let player = DispatchFilePlayer(
        contentsOf: recording, playing: [.state(Dispatcher.Favorite.self, named: "Favorite")])
    try player.play(through: 1)
    #expect(store.favorites.value.count == 1)
    try player.playAll()
    #expect(store.favorites.value.count == 2)
}

// MARK: - DispatchReplay

@Test(.isolatedDispatcher) func theRecordedSessionEndsWithTwoFavorites() {
    let store = FavoriteStore.instantiate()
    let replay = DispatchReplay(
        contentsOf: recording,
        decoding: [.state(Dispatcher.Favorite.self, named: "Favorite")]
    )
    replay.replayAll()
    #expect(store.favorites.value.count == 2)
}

@Test(.isolatedDispatcher) func stepByStepSample() {
    let store = FavoriteStore.instantiate()
    let replay = DispatchReplay(contentsOf: recording, decoding: replayedTypesSample())
    while let step = replay.next() {
        print(step.sequence, step.changes)
    }
    #expect(store.favorites.value.count == 2)
}

@Test(.isolatedDispatcher) func straightToAStepSample() {
    let replay = DispatchReplay(contentsOf: recording, decoding: replayedTypesSample())
    let step = replay.replay(through: 2)
    print(step?.values ?? "the start")
    replay.attachTimeline()
    #expect(step?.sequence == 2)
}

func replayedTypesSample() -> [DispatchReplay.ReplayedType] {
    let types: [DispatchReplay.ReplayedType] = [
        .state(Dispatcher.Favorite.self, named: "Favorite")
    ]
    return types
}

func replayInitSample() throws {
    let replay = DispatchReplay(
        contentsOf: recording,
        decoding: [.state(Dispatcher.Favorite.self)]
    )
    while let step = replay.next() {
        print(step.line, step.typeName)
    }
    try replay.writeTimeline(to: URL(fileURLWithPath: "/tmp/timeline.html"))
}
