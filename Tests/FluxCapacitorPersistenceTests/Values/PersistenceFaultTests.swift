import Dispatch
import FluxCapacitor
import FluxCapacitorPersistence
import FluxCapacitorTesting
import FluxTestFixtures
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A storage whose writes fail, and whose report waits until the test lets it go on: a
/// slow error handler, to see what `flush()` waits for.
final class SlowReportingStorage: PersistentStorage, @unchecked Sendable {
    // Sendable: the semaphores are thread-safe; `log` is a `Locked`.
    let writeStarted = DispatchSemaphore(value: 0)
    let mayReport = DispatchSemaphore(value: 0)
    let log = Locked<[String]>([])

    var coalescingInterval: Duration { .zero }
    func read(_ slot: String) throws -> Data? { nil }
    func setAside(_ slot: String) throws -> String { slot }
    func remove(_ slot: String) throws {}
    func write(_ data: Data, to slot: String) throws {
        writeStarted.signal()
        throw POSIXError(.ENOSPC)
    }
    func report(_ error: PersistenceError) {
        mayReport.wait()
        log.withLock { $0.append("reported \(error.kind)") }
    }
}

@Suite("Persisted values under faults", .isolatedDispatcher)
struct PersistenceFaultTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FluxCapacitorFaultTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func collectingStorage(_ directory: URL) -> (FileStorage, Locked<[PersistenceError]>) {
        let errors = Locked<[PersistenceError]>([])
        let storage = FileStorage(directory: directory, coalescingInterval: .seconds(3600)) { error in
            errors.withLock { $0.append(error) }
        }
        return (storage, errors)
    }

    // MARK: 0. A value that goes while its write reads it

    /// The background write reads the value holding the slot's write lock. When the variable
    /// goes on another thread at that moment, the write's read held the core's last
    /// reference: its deinit (which hands the last value over and flushes the slot, taking
    /// that lock) ran inside the write, and the queue deadlocked, and with it every later
    /// write of the process (seen once in CI). Many rounds of a variable let go of right
    /// after a set that wakes the writer; a hang fails after a minute instead of hanging.
    @Test func aVariableLetGoOfWhileItsWriteReadsItDoesNotDeadlockTheWriter() {
        let storage = InMemoryStorage(coalescingInterval: .zero)
        let rounds = 20_000
        let done = DispatchSemaphore(value: 0)
        let racer = Thread {
            for round in 1...rounds {
                var variable: Variable<Int>? = Variable(0, persistedAs: "raced", in: storage)
                variable?.value = round
                variable = nil
            }
            done.signal()
        }
        racer.start()
        #expect(done.wait(timeout: .now() + .seconds(60)) == .success, "the rounds deadlocked")
        storage.flush()
        #expect((try? storage.read("raced")).map { String(decoding: $0, as: UTF8.self) } == "\(rounds)")
    }

    /// The same on a thread that flushes: its write's read holds the core while the value
    /// is encoded; the variable goes on another thread meanwhile. The read's hold used to
    /// be let go of at the end of the write, inside the slot's write lock, and so could be
    /// the last (a review found it; a slow `encode(to:)` widens the window).
    @Test func aVariableLetGoOfWhileAFlushWritesItDoesNotDeadlockTheFlush() {
        let storage = InMemoryStorage(coalescingInterval: .seconds(3_600))
        let rounds = 1_000
        let done = DispatchSemaphore(value: 0)
        let flusher = Thread {
            for round in 1...rounds {
                let made = DispatchSemaphore(value: 0)
                let go = DispatchSemaphore(value: 0)
                let owner = Thread {
                    var variable: Variable<SlowlyEncoded>? = Variable(
                        SlowlyEncoded(value: 0), persistedAs: "raced", in: storage)
                    variable?.value = SlowlyEncoded(value: round)
                    made.signal()
                    go.wait()
                    usleep(UInt32(round % 4) * 60)
                    variable = nil
                }
                owner.start()
                made.wait()
                go.signal()
                storage.flush()
            }
            done.signal()
        }
        flusher.start()
        #expect(done.wait(timeout: .now() + .seconds(60)) == .success, "a flush deadlocked")
        storage.flush()
        #expect((try? storage.read("raced")).map { String(decoding: $0, as: UTF8.self) } == "\(rounds)")
    }

    // MARK: 1. What could not be read is never written over

    @Test func aSlotThatCannotBeReadIsLeftAsItIsAndNeverWrittenOver() {
        let storage = InMemoryStorage(coalescingInterval: .zero)
        storage.seed(Data(#"["mine"]"#.utf8), in: "favorites")
        storage.failReads(with: POSIXError(.EACCES))
        let variable = Variable(["default"], persistedAs: "favorites", in: storage)
        #expect(variable.value == ["default"])

        variable.value = ["new"]
        storage.flush()

        #expect(storage.contents(of: "favorites") == Data(#"["mine"]"#.utf8), "the user's data is kept")
        #expect(storage.writeCount(of: "favorites") == 0)
        #expect(storage.reportedErrors.map(\.kind) == [.unreadable])
        #expect(storage.reportedErrors.first?.description.contains("left it as it is") == true)
        #expect(variable.value == ["new"], "the value in memory keeps working")
    }

    @Test func aDirectoryWhereTheFileShouldBeIsReportedAndLeftAsItIs() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inTheWay = directory.appendingPathComponent("count.json")
        try FileManager.default.createDirectory(at: inTheWay, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: inTheWay.appendingPathComponent("inside"))
        let (storage, errors) = collectingStorage(directory)

        let variable = Variable(0, persistedAs: "count", in: storage)
        variable.value = 1
        storage.flush()

        let error = try #require(errors.value.first)
        #expect(error.kind == .unreadable)
        #expect(error.description.contains("reading \(inTheWay.path): Is a directory (EISDIR)"))
        #expect((error.underlyingError as? FileStorageError)?.code == .EISDIR)
        #expect(errors.value.count == 1)
        let kept = try String(contentsOf: inTheWay.appendingPathComponent("inside"), encoding: .utf8)
        #expect(kept == "keep me")
    }

    @Test func aFIFOWhereTheFileShouldBeNeitherHangsNorIsWrittenOver() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("count.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let (storage, errors) = collectingStorage(directory)

        let variable = Variable(5, persistedAs: "count", in: storage)
        variable.value = 6
        storage.flush()

        #expect(variable.value == 6)
        #expect(errors.value.map(\.kind) == [.unreadable])
        #expect(
            errors.value.first?.reason.contains("reading the non-regular file \(fifo.path): Invalid argument (EINVAL)")
                == true)
        var status = stat()
        #expect(lstat(fifo.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "left as it is")
    }

    // MARK: 4. flush() returns once every earlier change is written or reported

    @Test func flushReturnsOnlyAfterTheErrorOfAWriteABackgroundFlushTookIsReported() {
        let storage = SlowReportingStorage()
        let variable = Variable(0, persistedAs: "count", in: storage)
        variable.value = 1
        // The background write has taken the change; its report waits for the test.
        storage.writeStarted.wait()

        let flushed = DispatchSemaphore(value: 0)
        let flusher = Thread {
            storage.flush()
            storage.log.withLock { $0.append("flushed") }
            flushed.signal()
        }
        flusher.start()
        // Gives a flush that does not wait the time to return (and be caught); one that
        // waits is never caught, whatever the timing.
        let returnedBeforeTheReport = flushed.wait(timeout: .now() + .milliseconds(300)) == .success
        storage.mayReport.signal()
        if !returnedBeforeTheReport {
            flushed.wait()
        }

        #expect(!returnedBeforeTheReport)

        #expect(storage.log.value == ["reported writeFailed", "flushed"])
        withExtendedLifetime(variable) {}
    }

    // MARK: 4b. flush() sees a value whose observers have not run yet

    @Test func flushWritesAValueSetWhileAnotherThreadsRoundHasYetToDeliverIt() {
        let storage = InMemoryStorage(coalescingInterval: .seconds(3600))
        Persistence.withDefaultStorage(storage) {
            let store = PersistedCountStore.instantiate()
            let observerEntered = DispatchSemaphore(value: 0)
            let observerMayReturn = DispatchSemaphore(value: 0)
            let dust = store.count.observe(on: .current, ignoreFirst: true) { value in
                if value == 1 {
                    observerEntered.signal()
                    observerMayReturn.wait()
                }
            }
            defer { dust.clean() }

            // A set outside any dispatch.
            let setter = Thread { store.count.value = 1 }
            setter.start()
            observerEntered.wait()
            // Thread A's round is delivering 1. The reduce that sets 2 does not wait for it
            // (it holds the dispatcher): the value is handed to that round, and the
            // dispatch returns before its observers heard of it.
            PersistedCountAction().invoke(.set(2))
            storage.flush()

            #expect(storage.contents(of: "count") == Data("2".utf8))
            observerMayReturn.signal()
        }
    }

    // MARK: 4c. Any coalescing interval

    @Test(arguments: [
        Duration.seconds(10_000_000_000), .seconds(Int64.max), .nanoseconds(Int64.max), .seconds(-5),
        .nanoseconds(-1), .zero,
    ])
    func anyCoalescingIntervalWorks(_ interval: Duration) {
        let storage = InMemoryStorage(coalescingInterval: interval)
        let variable = Variable(0, persistedAs: "count", in: storage)
        variable.value = 7
        storage.flush()
        #expect(storage.contents(of: "count") == Data("7".utf8))
        #expect(storage.reportedErrors.isEmpty)
    }

    // MARK: 5. Errors name the file, the operation and the cause

    @Test func aDirectoryUnderARegularFileIsReportedAsNotADirectory() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        let (storage, errors) = collectingStorage(file.appendingPathComponent("inside"))

        let variable = Variable(0, persistedAs: "count", in: storage)
        variable.value = 1
        storage.flush()

        let error = try #require(errors.value.first)
        #expect(error.kind == .writeFailed)
        #expect(
            error.description
                == "FluxCapacitor: could not write persisted 'count' (making the directory "
                + "\(file.path): Not a directory (ENOTDIR)); the value in memory is unaffected.")
        #expect((error.underlyingError as? FileStorageError)?.code == .ENOTDIR)
        #expect(!error.description.contains("\n"))
    }

    // The names are spelled out: on Apple platforms `"\(code)"` of a POSIXErrorCode (an
    // imported C enum) is not its case's name.
    @Test(arguments: [
        (POSIXErrorCode.EROFS, "EROFS"), (.ENOSPC, "ENOSPC"), (.EACCES, "EACCES"), (.EISDIR, "EISDIR"),
        (.ENOTDIR, "ENOTDIR"), (.EDQUOT, "EDQUOT"), (.EAGAIN, "EAGAIN"),
    ])
    func aFileStorageErrorSaysTheOperationTheFileAndTheErrnoName(_ code: POSIXErrorCode, name: String) {
        let error = FileStorageError(operation: "renaming /d/.t.tmp to", path: "/d/favorites.json", code: code)
        #expect(
            error.description
                == "renaming /d/.t.tmp to /d/favorites.json: \(String(cString: strerror(code.rawValue))) (\(name))")
        #expect(error.underlyingError.code == code)
    }

    @Test func anErrnoWithoutANameInTheTableIsGivenByNumber() throws {
        let code = try #require(POSIXErrorCode(rawValue: EHOSTUNREACH))
        let error = FileStorageError(operation: "reading", path: "/net/favorites.json", code: code)
        #expect(error.description.hasSuffix("(errno \(EHOSTUNREACH))"))
    }

    @Test func aTypeMismatchSaysWhereAndWhatInWords() throws {
        let storage = InMemoryStorage()
        storage.seed(Data(#"{"a": 1}"#.utf8), in: "list")
        _ = Variable([String](), persistedAs: "list", in: storage)
        let error = try #require(storage.reportedErrors.first)
        #expect(error.reason.hasPrefix("at the top level: Expected to decode Array"))
        #expect(!error.description.contains("( is not"))
        #expect(error.underlyingError is DecodingError)
    }

    @Test func anUndecodableFileIsNamedInItsReport() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{ not JSON".utf8).write(to: directory.appendingPathComponent("count.json"))
        let (storage, errors) = collectingStorage(directory)

        _ = Variable(0, persistedAs: "count", in: storage)

        let error = try #require(errors.value.first)
        #expect(error.reason.hasPrefix("decoding \(directory.appendingPathComponent("count.json").path): "))
        #expect(!error.description.contains("\n"))
    }

    // MARK: 6. Links, stale temporaries, two writers

    @Test func aSymbolicLinkIsWrittenThroughAndStaysALink() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let real = directory.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try Data("[1]".utf8).write(to: real.appendingPathComponent("numbers.json"))
        let slots = directory.appendingPathComponent("slots")
        try FileManager.default.createDirectory(at: slots, withIntermediateDirectories: true)
        let link = slots.appendingPathComponent("numbers.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../real/numbers.json")
        let (storage, errors) = collectingStorage(slots)

        let variable = Variable([Int](), persistedAs: "numbers", in: storage)
        #expect(variable.value == [1])
        variable.value.append(2)
        storage.flush()

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "../real/numbers.json")
        let written = try Data(contentsOf: real.appendingPathComponent("numbers.json"))
        #expect(try JSONDecoder().decode([Int].self, from: written) == [1, 2])
        #expect(errors.value.isEmpty)
    }

    @Test func aStaleTemporaryFileIsRemovedAndOneBeingWrittenIsLeftAlone() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stale = directory.appendingPathComponent(".numbers.json.\(UUID().uuidString).tmp")
        let fresh = directory.appendingPathComponent(".numbers.json.\(UUID().uuidString).tmp")
        try Data("[4,5".utf8).write(to: stale)
        try Data("[6".utf8).write(to: fresh)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: stale.path)

        _ = Variable([Int](), persistedAs: "numbers", in: FileStorage(directory: directory))

        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
    }

    @Test func aFileAnotherWriterChangedIsKeptBeforeItIsReplaced() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two programs (two storages) restore the same file, then both change it.
        let (first, firstErrors) = collectingStorage(directory)
        let (second, secondErrors) = collectingStorage(directory)
        let mine = Variable([String](), persistedAs: "favorites", in: first)
        let theirs = Variable([String](), persistedAs: "favorites", in: second)

        theirs.value = ["theirs"]
        second.flush()
        mine.value = ["mine"]
        first.flush()

        let file = try Data(contentsOf: directory.appendingPathComponent("favorites.json"))
        #expect(try JSONDecoder().decode([String].self, from: file) == ["mine"], "the last writer wins")
        #expect(secondErrors.value.isEmpty)
        let notice = try #require(firstErrors.value.first)
        guard case .replacedChangedFile(let keptAs) = notice.kind else {
            Issue.record("expected a report of the replaced version, got \(notice)")
            return
        }
        let kept = try Data(contentsOf: directory.appendingPathComponent(keptAs))
        #expect(try JSONDecoder().decode([String].self, from: kept) == ["theirs"], "and the other is kept")
        #expect(notice.description.contains("kept the other version as \(keptAs)"))

        // Its own writes afterwards replace nothing new.
        mine.value = ["mine", "more"]
        first.flush()
        #expect(firstErrors.value.count == 1)
    }

    @Test func aDirectoryPutInTheFilesPlaceMidRunIsReportedAndNotCopied() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (storage, errors) = collectingStorage(directory)
        let variable = Variable(0, persistedAs: "count", in: storage)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("count.json/inside"), withIntermediateDirectories: true)

        variable.value = 1
        storage.flush()

        #expect(errors.value.map(\.kind) == [.writeFailed])
        #expect((errors.value.first?.underlyingError as? FileStorageError)?.code == .EISDIR)
        // Nothing copied; the write lock's hidden file stays beside the data.
        #expect(
            try Set(FileManager.default.contentsOfDirectory(atPath: directory.path)) == [
                "count.json", ".count.json.lock",
            ])
    }

    @Test func aWriteKeepsTheFilesPermissions() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("secret.json")
        try Data("1".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let storage = FileStorage(directory: directory, coalescingInterval: .zero)

        let variable = Variable(0, persistedAs: "secret", in: storage)
        variable.value = 2
        storage.flush()

        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == "2")
    }

    // MARK: 3. Termination signals

    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    @Test(arguments: [SIGTERM, SIGINT])
    func aTerminationSignalWritesThePendingChangeFirst(_ signal: Int32) async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("fluxcapacitor-termination-\(getpid())-\(signal)")
        try? FileManager.default.removeItem(at: directory)
        defer { try? FileManager.default.removeItem(at: directory) }

        await #expect(processExitsWith: .signal(signal)) { [signal] in
            let storage = FileStorage(
                directory: URL(fileURLWithPath: NSTemporaryDirectory())
                    .appendingPathComponent("fluxcapacitor-termination-\(getppid())-\(signal)"),
                coalescingInterval: .seconds(3600))
            storage.flushOnTermination()
            let variable = Variable(0, persistedAs: "count", in: storage)
            variable.value = 42
            kill(getpid(), signal)
            // Not ended by the signal: fail (exit 0) rather than hang.
            sleep(30)
            exit(0)
        }

        let file = try String(contentsOf: directory.appendingPathComponent("count.json"), encoding: .utf8)
        #expect(file == "42")
    }
    #endif
}

/// An `Int` whose encoding takes a while (200 µs), as a large value's does.
private struct SlowlyEncoded: Codable, Equatable, Sendable {
    var value: Int

    init(value: Int) { self.value = value }

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        usleep(200)
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
