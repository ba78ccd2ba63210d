import FluxTestFixtures
import Foundation
import TestSupport
import Testing

// These tests run the Swift compiler in a child process (`Process`), which exists on macOS
// and Linux only.
#if os(macOS) || os(Linux)

/// Routing is checked by the compiler: these tests type-check small programs against the
/// FluxCapacitor module that this test binary was built with.
@Suite("Compile-time routing")
struct RoutingTests {
    private static let declarations = """
        import FluxCapacitor

        enum RepositoryState: DispatchState {
            typealias RelatedStoreType = RepositoryStore
            typealias RelatedActionType = RepositoryAction
            case removeAll
        }
        final class RepositoryStore: Storable {
            typealias DispatchStateType = RepositoryState
            required init() {}
            func reduce(with state: RepositoryState) {}
        }
        struct RepositoryAction: Actionable {
            typealias DispatchStateType = RepositoryState
        }

        enum UserState: DispatchState {
            typealias RelatedStoreType = UserStore
            typealias RelatedActionType = UserAction
            case removeAll
        }
        final class UserStore: Storable {
            typealias DispatchStateType = UserState
            required init() {}
            func reduce(with state: UserState) {}
        }
        struct UserAction: Actionable {
            typealias DispatchStateType = UserState
        }

        """

    @Test func matchingDeclarationsCompile() throws {
        let result = try typeCheck(Self.declarations + "RepositoryAction().invoke(.removeAll)\n")
        #expect(result.succeeded, "\(result.errors)")
    }

    @Test func aStoreThatReducesAnotherStoresStateDoesNotCompile() throws {
        let result = try typeCheck(
            Self.declarations + """
                final class StrayStore: Storable {
                    typealias DispatchStateType = RepositoryState
                    required init() {}
                    func reduce(with state: RepositoryState) {}
                }
                """)
        #expect(!result.succeeded)
        #expect(
            result.errors.contains("'Storable' requires the types 'StrayStore' and 'RepositoryState.RelatedStoreType'"))
    }

    @Test func aStateWhoseStoreReducesAnotherStateDoesNotCompile() throws {
        let result = try typeCheck(
            Self.declarations + """
                enum StrayState: DispatchState {
                    typealias RelatedStoreType = RepositoryStore
                    typealias RelatedActionType = RepositoryAction
                    case nothing
                }
                """)
        #expect(!result.succeeded)
        #expect(result.errors.contains("'DispatchState' requires the types 'StrayState' and"))
    }

    @Test func anActionCannotInvokeAnotherActionsState() throws {
        let result = try typeCheck(Self.declarations + "RepositoryAction().invoke(UserState.removeAll)\n")
        #expect(!result.succeeded)
        #expect(result.errors.contains("cannot convert value of type 'UserState'"))
    }

    // MARK: Running the compiler

    private struct Result {
        let succeeded: Bool
        let errors: String
    }

    private func typeCheck(_ source: String) throws -> Result {
        let build = try #require(Self.buildDirectory(), "no FluxCapacitor.swiftmodule beside the test binary")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("FluxCapacitorRoutingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)

        let moduleMap = build.appendingPathComponent("CFluxCapacitorShims.build/module.modulemap")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swiftc", "-typecheck", "-swift-version", "6",
            "-I", build.appendingPathComponent("Modules").path,
            "-Xcc", "-fmodule-map-file=\(moduleMap.path)",
            file.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(succeeded: process.terminationStatus == 0, errors: String(decoding: output, as: UTF8.self))
    }

    /// The build directory: the first ancestor of the test binary with
    /// `Modules/FluxCapacitor.swiftmodule` in it.
    private static func buildDirectory() -> URL? {
        buildFolder(holding: "Modules/FluxCapacitor.swiftmodule")
    }
}

#endif
