import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

/// `--replay FILE [--step N]`: plays a recorded session (`--record`) into the program's own
/// stores, with `DispatchFilePlayer`, and shows where it leaves them: the values the
/// session started from, then its steps up to step N (all by default).
@MainActor
struct Replay {
    let console: any Console

    /// Plays `path` through step `step` (all of it if `nil`) and shows the screens; returns
    /// the screens' navigator, made once the stores are where the replay leaves them (so that
    /// its screens do not report the replayed steps as they happen), or `nil` (said why, on
    /// standard error) if the recording cannot be played so far.
    func run(_ path: String, through step: UInt64?, makeNavigator: @MainActor () -> Navigator) -> Navigator? {
        let file = URL(fileURLWithPath: path)
        let player = DispatchFilePlayer(contentsOf: file, playing: SessionRecording.types)
        let last: DispatchFilePlayer.Step?
        do {
            if let step {
                last = try player.play(through: step)
            } else {
                var latest: DispatchFilePlayer.Step?
                while let next = try player.next() {
                    latest = next
                }
                last = latest
            }
        } catch {
            console.writeError("error: \(error)")
            return nil
        }
        if let last {
            let time = ISO8601DateFormatter().string(from: last.time)
            console.write(
                "Replayed \(file.lastPathComponent) to step \(last.sequence) (\(last.typeName), recorded \(time)), into "
                    + "this program's stores:")
        } else {
            console.write("Replayed \(file.lastPathComponent) to its start, into this program's stores:")
        }
        let navigator = makeNavigator()
        navigator.resume()
        for lines in [
            Screens.search(navigator.search, maxRows: 8),
            Screens.userRepositories(navigator.userRepositories, maxRows: 8),
            Screens.repository(navigator.repository), Screens.favorites(navigator.favorites),
        ] {
            lines.forEach(console.write)
        }
        return navigator
    }
}
