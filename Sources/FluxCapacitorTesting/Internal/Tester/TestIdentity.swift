import Testing

/// A test as a tester knows it: the one it was made in, or the one running where it fails.
enum TestIdentity: Sendable, Equatable {
    /// A Swift Testing test: its ID (as text) and the name failures show.
    case swiftTesting(id: String, name: String)
    /// An XCTest test, as ``XCTestTracking`` follows them.
    case xcTest(XCTestSlot)

    /// The test this task or thread runs in: Swift Testing's current test, else the XCTest
    /// test running (or, before XCTest said anything, the slot that stands for it); `nil`
    /// where no test is known to run.
    static var current: TestIdentity? {
        if let test = Test.current {
            return .swiftTesting(id: "\(test.id)", name: name(of: test))
        }
        return XCTestTracking.current.map { .xcTest($0) }
    }

    /// How messages name a Swift Testing test: the suite's type and the test's name,
    /// `DispatchTesterTests/receivesADispatch()`.
    static func name(of test: Test) -> String {
        (test.id.nameComponents.dropLast() + [test.displayName ?? test.name]).joined(separator: "/")
    }

    /// How messages name the test; `nil` when it turned out not to be a test (the XCTest
    /// slot of a time when none ran).
    func name(in timeline: XCTestTimeline) -> String? {
        switch self {
        case .swiftTesting(_, let name): name
        case .xcTest(let slot): timeline.name(of: slot)
        }
    }

    var isSwiftTesting: Bool {
        if case .swiftTesting = self { true } else { false }
    }
}

/// Where a tester was made: the test, the line and the state type, for the messages of
/// failures found outside that test and of a tester still alive when the run ends.
struct TesterOrigin: Sendable {
    /// The test it was made in; `nil`: outside any.
    let test: TestIdentity?
    let location: CallLocation
    /// `DispatchTester<Dispatcher.Counter>`.
    let testerName: String

    /// `Module/File.swift:12`.
    var place: String {
        "\(location.fileID):\(location.line)"
    }

    /// `in the test “A”` or `outside any test`.
    func madeIn(_ timeline: XCTestTimeline) -> String {
        test?.name(in: timeline).map { "in the test “\($0)”" } ?? "outside any test"
    }
}
