import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

/// `counter DIRECTORY N`: adds N to the count kept in DIRECTORY and prints every value the
/// store shows, from the one it starts with.
@main
enum CounterCommand {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 2, let times = Int(arguments.last!) else {
            FileHandle.standardError.write(Data("usage: counter DIRECTORY N\n".utf8))
            exit(2)
        }
        let storage = FileStorage(directory: URL(fileURLWithPath: arguments.first!))
        Persistence.setDefaultStorage(storage)
        do {
            let store = CounterStore.instantiate()
            let dustBuster = DustBuster()
            store.count
                .observe { count in print("count: \(count)") }
                .cleaned(by: dustBuster)
            CounterAction().increment(times: times)
        }
        storage.flush()
    }
}
