// The code samples of DispatchFileRecorder (Sources/FluxCapacitorPersistence), DispatchReplay
// (Sources/FluxCapacitorTesting) and the article "Recording and Replaying", verbatim:
// DocumentationSampleTests checks that each sample appears here (or in another
// *Snippets.swift file). Edit the doc comment first, then copy the sample here.

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
    let recorder = DispatchFileRecorder(
        writingTo: file, recording: [.state(Dispatcher.Favorite.self, named: "Favorite")], dispatcher: dispatcher)
    Dispatcher.withCurrent(dispatcher) {
        FavoriteAction().invoke(.add(fluxCapacitor))
        FavoriteAction().invoke(.add(GitHub.Repository(name: "hoverboard")))
    }
    recorder.finish()
    return file
}()

// MARK: - DispatchFileRecorder

func recorderSample() {
    let recorder = DispatchFileRecorder(
        writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
        recording: [.state(Dispatcher.Favorite.self, named: "Favorite")],
        keepingAtMost: 5_000)
    // … the app runs …
    recorder.finish()  // or let it go: it finishes when it goes away
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

func recorderInitSample() {
    let recorder = DispatchFileRecorder(
        writingTo: URL(fileURLWithPath: "/tmp/session.jsonl"),
        recording: [.state(Dispatcher.Favorite.self)])
    recorder.flush()
    recorder.finish()
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
        #expect(store.favorites.value.count <= 2, "after line \(step.line)")
    }
    #expect(store.favorites.value.count == 2)
}

func replayedTypesSample() -> [DispatchReplay.ReplayedType] {
    let types: [DispatchReplay.ReplayedType] = [
        .state(Dispatcher.Favorite.self, named: "Favorite")
    ]
    return types
}

func replayInitSample() {
    let replay = DispatchReplay(
        contentsOf: recording,
        decoding: [.state(Dispatcher.Favorite.self)]
    )
    while let step = replay.next() {
        print(step.line, step.state)
    }
}
