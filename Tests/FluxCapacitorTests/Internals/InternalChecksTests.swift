import FluxTestFixtures
import Foundation
import Testing

@testable import FluxCapacitor

@Suite("Internal checks")
struct InternalChecksTests {
    @Test("the checks are compiled in exactly when FLUXCAPACITOR_INTERNAL_CHECKS=1 is set")
    func flagReachesTheLibrary() {
        let requested = ProcessInfo.processInfo.environment["FLUXCAPACITOR_INTERNAL_CHECKS"] == "1"
        #expect(
            InternalChecks.areEnabled == requested,
            """
            FLUXCAPACITOR_INTERNAL_CHECKS is \(requested ? "" : "not ")set to 1 for this test run, \
            but the library was built \(InternalChecks.areEnabled ? "with" : "without") its checks: \
            build and test with the same setting.
            """)
    }
}

@Suite("Observer slab checks")
struct ObserverSlabCheckTests {
    @Test func aSmallSlabIsCheckedWhole() {
        for count in [0, 1, 63, 64] {
            #expect(ObserverSlab.slotsToCheck(count: count, live: count) == [0..<count])
        }
    }

    /// So that checking stays O(1) per event: cleaning 20,000 observers with the checks on
    /// costs per observer what cleaning 5,000 does.
    @Test(arguments: [65, 100, 5_000, 20_000, 1_000_000])
    func aLargeSlabIsCheckedAtBothEndsAndOneMovingWindowOfAtMost64Slots(count: Int) {
        var windows: Set<Int> = []
        for live in [1, 2, 3, count / 2, count - 1, count] {
            let ranges = ObserverSlab.slotsToCheck(count: count, live: live)
            #expect(ranges.map(\.count).reduce(0, +) <= ObserverSlab.wholeCheckLimit)
            #expect(ranges.first?.lowerBound == 0)
            #expect(ranges.last?.upperBound == count)
            #expect(ranges.allSatisfy { $0.lowerBound >= 0 && $0.upperBound <= count })
            windows.insert(ranges[1].lowerBound)
        }
        #expect(windows.count > 1, "the middle window moves with the live count")
    }
}

@Suite("Store table")
struct StoreTableTests {
    @Test("the store table finds every type it holds, across growth, and no other")
    func storeTableFindsEveryKey() {
        // Objects stand in for store types: a key is an address either way.
        let objects = (0..<200).map { _ in NSObject() }
        var table = StoreTable()
        var buckets: [Int] = []
        for object in objects {
            #expect(table.bucket(of: ObjectIdentifier(object)) == nil)
            buckets.append(table.insert(ObjectIdentifier(object)))
        }
        #expect(table.count == objects.count)
        // The last insert grew nothing after it, so its bucket is still where it was put.
        #expect(table.bucket(of: ObjectIdentifier(objects.last!)) == buckets.last)
        let found = objects.map { table.bucket(of: ObjectIdentifier($0)) }
        #expect(found.allSatisfy { $0 != nil })
        #expect(Set(found.compactMap { $0 }).count == objects.count, "one bucket per type")
        #expect(table.buckets.count == objects.count)
        let stranger = NSObject()
        #expect(table.bucket(of: ObjectIdentifier(stranger)) == nil)
        let store = Probe()
        let bucket = table.bucket(of: ObjectIdentifier(objects[0]))!
        #expect(table.exchangeWord(StoreWord(registering: store), in: bucket) == .none)
        #expect(table.word(in: bucket).liveStore() === store)
        #expect(table.word(in: bucket).registers(store))
        #expect(!table.word(in: bucket).registers(Probe()))
        table.exchangeWord(.none, in: bucket).letGo()
        #expect(table.word(in: bucket).liveStore() == nil)
        table._checkInvariants()
    }

    private final class Probe {}

    @Test("a table that grows while stores are registered keeps every store and the retired flag")
    func growthKeepsEveryRegistrationAndTheRetiredFlag() {
        // Each store is also its own key (a key is an address either way).
        let stores = (0..<100).map { _ in Probe() }
        var table = StoreTable()
        table.hasRetired = true
        for store in stores {
            let bucket = table.insert(ObjectIdentifier(store))
            _ = table.exchangeWord(StoreWord(registering: store), in: bucket)
        }
        #expect(table.capacity >= 2 * stores.count, "the table grew")
        #expect(table.hasRetired)
        #expect(stores.allSatisfy { table.word(in: table.bucket(of: ObjectIdentifier($0))!).liveStore() === $0 })
        table.hasRetired = false
        #expect(!table.hasRetired)
        table._checkInvariants()
    }

    @Test("a registration loads its store while the store lives, and nothing once it is gone")
    func registrationFollowsTheStoreLife() {
        var store: Probe? = Probe()
        let word = StoreWord(registering: store!)
        weak let watcher = store
        #expect(word.liveStore() === store)
        store = nil
        // The registration keeps the store's memory, never its life.
        #expect(watcher == nil)
        #expect(word.liveStore() == nil)
        word.letGo()
    }
}

@Suite("Lock order")
struct LockOrderTests {
    #if os(macOS) || os(Linux)  // exit tests: not on iOS, tvOS, watchOS, visionOS
    /// Built with the checks (CI's ThreadSanitizer run), a lock taken while a lock of a higher
    /// rank is held stops the program, naming both; without them, nothing is checked and
    /// nothing is paid.
    @Test func aLockTakenOutOfOrderStopsNamingBothLocksWhenTheChecksAreOn() async {
        guard InternalChecks.areEnabled else {
            let buster = Lock.make(.dustBuster)
            let dispatcher = Lock.make(.dispatcher)
            buster.lock()
            dispatcher.lock()
            #expect(dispatcher.isHeldByCurrentThread && buster.isHeldByCurrentThread)
            dispatcher.unlock()
            buster.unlock()
            return
        }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let buster = Lock.make(.dustBuster)
            let dispatcher = Lock.make(.dispatcher)
            buster.lock()
            dispatcher.lock()
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("a dispatcher's mutex (rank 1) taken while holding a DustBuster's lock (rank 7)"))
    }

    /// Locks taken in their order, and two dispatchers' mutexes nested (a dispatch that
    /// dispatches to another dispatcher), pass the checks.
    @Test func locksTakenInOrderAndNestedDispatchersPassTheChecks() async {
        await #expect(processExitsWith: .success) {
            let locks = [
                Lock.make(.dispatcher), Lock.make(.dispatcher), Lock.make(.inFlightTasks), Lock.make(.registry),
                Lock.make(.dustBuster),
            ]
            for lock in locks { lock.lock() }
            for lock in locks.reversed() { lock.unlock() }
            // And a value core's lock, then a striped mutex, then a buster's, as a clean of a
            // dust held by a buster takes them (one after the other, never nested the other
            // way).
            let core = CoreLock.make()
            core.withLock {}
            StripedLocks.mutex(for: core).withLock { Lock.make(.dustBuster).withLock {} }
        }
    }
    #endif
}
