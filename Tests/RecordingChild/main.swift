// A program the recorder's tests run as a child process, to kill it, to give it a full
// disk (a file size limit of its own), or to hold a recording while the test tries to
// start another one:
//
//     FluxCapacitorRecordingChild kill FILE          records one state per millisecond,
//                                                   printing each sequence number once
//                                                   dispatched, until it is killed
//     FluxCapacitorRecordingChild full FILE BYTES N  records N states with files limited to
//                                                   BYTES (RLIMIT_FSIZE), then prints "done"
//     FluxCapacitorRecordingChild hold FILE          records to FILE until its input ends
//
// Its state type is recorded as "Tally", and its store has the Variables of the tests'
// `TallyStore` (`_total`, `_notes`), so that the tests replay what it recorded.

import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Dispatcher {
    enum Tally: DispatchState, Codable, Sendable {
        typealias RelatedStoreType = TallyStore
        typealias RelatedActionType = TallyAction

        case add(Int)
    }
}

final class TallyStore: Storable {
    typealias DispatchStateType = Dispatcher.Tally

    private let _total = Variable(0)
    private let _notes = Variable<[String]>([])

    required init() {}

    func reduce(with state: Dispatcher.Tally) {
        switch state {
        case .add(let amount): _total.value += amount
        }
    }
}

struct TallyAction: Actionable {
    typealias DispatchStateType = Dispatcher.Tally
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: FluxCapacitorRecordingChild kill|full|hold FILE …\n".utf8))
    exit(2)
}
let file = URL(fileURLWithPath: arguments[1])
let store = TallyStore.instantiate()

switch arguments[0] {
case "kill":
    let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")])
    say("ready")
    var sequence = 0
    while true {
        TallyAction().invoke(.add(1))
        sequence += 1
        say("\(sequence)")
        usleep(1_000)
    }
    withExtendedLifetime(recorder) {}
case "full":
    guard arguments.count == 4, let bytes = rlim_t(arguments[2]), let count = Int(arguments[3]) else { exit(2) }
    // Past the limit a write fails with EFBIG, instead of the signal ending the process.
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: bytes, rlim_max: bytes)
    #if canImport(Glibc)
    setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
    #else
    setrlimit(RLIMIT_FSIZE, &limit)
    #endif
    let recorder = try DispatchFileRecorder(
        writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")], keepingAtMost: 1_000_000,
        onError: { error in FileHandle.standardError.write(Data("\(error)\n".utf8)) })
    for _ in 0..<count {
        TallyAction().invoke(.add(1))
        // A few states at a time, as an app dispatches them.
        usleep(100)
    }
    recorder.stop()
    say("done \(recorder.statistics.recorded)")
case "hold":
    let recorder = try DispatchFileRecorder(writingTo: file, recording: [.state(Dispatcher.Tally.self, named: "Tally")])
    say("recording")
    while readLine() != nil {}
    recorder.stop()
default:
    exit(2)
}
withExtendedLifetime(store) {}
