import FluxCapacitorPersistence
import FluxTestFixtures
import Foundation
import Observation
import TestSupport
import Testing

@testable import FluxCapacitor

/// A persisted variable's saving reads the value the library's way, not through the public
/// `.value`: it gives the variable no Observation bridge, and a tracking scope that only
/// sets the variable (a SwiftUI body that dispatches) is not told of later changes.
@Suite("Persistence reads take no part in Observation")
struct PersistenceReadsTests {
    @Test func savingAVariableReadsWithoutABridgeOrATrackedRead() throws {
        let storage = InMemoryStorage(coalescingInterval: .zero)
        let variable = Variable(0, persistedAs: "count", in: storage)
        let fires = Locked(0)
        withObservationTracking {
            variable.value = 1
            storage.flush()
        } onChange: {
            fires.withLock { $0 += 1 }
        }
        variable.value = 2
        storage.flush()
        variable.value = 3
        storage.flush()
        #expect(fires.value == 0)
        #expect(!variable.core.hasObservationBridge)
        let saved = try JSONDecoder().decode(Int.self, from: try #require(storage.contents(of: "count")))
        #expect(saved == 3)
    }
}
