import Foundation

#if canImport(XCTest)
import XCTest
#endif

/// One XCTest test as testers know it: the test a tester was made in, or the one running
/// where it fails. Compared by identity: each test that starts gets its own.
final class XCTestSlot: Sendable {
    /// The test's name (`XCTestCase.name`); `nil` for the slot that stands for what ran when
    /// the tracking began, which ``XCTestTimeline`` names once XCTest tells.
    let name: String?

    init(name: String?) {
        self.name = name
    }
}

extension XCTestSlot: Equatable {
    static func == (lhs: XCTestSlot, rhs: XCTestSlot) -> Bool {
        lhs === rhs
    }
}

/// What XCTest runs, as its observation events tell it: a state machine, each event a
/// `mutating` function; ``XCTestTracking`` keeps it under a lock.
///
/// The tracking begins at the first tester, often in a test that already started, whose
/// start it did not see. Until the first event it is not known whether a test runs; the
/// `beginning` slot stands for whatever does. XCTest runs one test at a time, so the first
/// event settles it: a test finishing first ran since the beginning, a test starting first
/// means that none did.
struct XCTestTimeline {
    /// What ran when the tracking began.
    enum Beginning: Equatable {
        /// No event yet.
        case unknown
        /// The test that finished first.
        case test(named: String)
        /// A test started first: none ran.
        case noTest
    }

    /// The slot of what ran when the tracking began.
    let beginningSlot = XCTestSlot(name: nil)
    private(set) var beginning = Beginning.unknown
    /// The slot of the test running: `beginningSlot` until the first event, `nil` between
    /// tests.
    private(set) var current: XCTestSlot?
    /// Failures given to `XCTFail` before the first event, each with what to say instead if
    /// no test ran (XCTest drops a failure made outside a test).
    private(set) var unconfirmed: [String] = []

    init() {
        current = beginningSlot
    }

    /// Whether `slot` is the beginning's and it is not known yet whether a test ran then.
    func isUnsettled(_ slot: XCTestSlot) -> Bool {
        slot === beginningSlot && beginning == .unknown
    }

    /// The name of `slot`'s test; `nil` if it was no test (or it is not known yet).
    func name(of slot: XCTestSlot) -> String? {
        if let name = slot.name {
            return name
        }
        if case .test(let name) = beginning {
            return name
        }
        return nil
    }

    /// A test starts. Returns the unconfirmed failures' messages, which no test took: none
    /// ran when they were made.
    mutating func testWillStart(named name: String) -> [String] {
        var dropped: [String] = []
        if beginning == .unknown {
            beginning = .noTest
            dropped = unconfirmed
            unconfirmed = []
        }
        current = XCTestSlot(name: name)
        return dropped
    }

    /// A test finishes.
    mutating func testDidFinish(named name: String) {
        if beginning == .unknown {
            // It ran since the beginning and took the unconfirmed failures.
            beginning = .test(named: name)
            unconfirmed = []
        }
        current = nil
    }

    /// Keeps what to say about a failure given to `XCTFail` before the first event, in
    /// case no test took it.
    mutating func keepUnconfirmed(_ messageIfNoTest: String) {
        guard beginning == .unknown else {
            fatalError("XCTestTimeline: a failure kept unconfirmed after the first event.")
        }
        unconfirmed.append(messageIfNoTest)
    }

    /// At the end of the run: the unconfirmed failures, if no event ever came (no XCTest
    /// test ran, so none took them).
    mutating func takeUnconfirmed() -> [String] {
        defer { unconfirmed = [] }
        return unconfirmed
    }
}

/// Follows the XCTest tests of the process (from the first tester on) in an
/// ``XCTestTimeline``, through an `XCTestObservation` observer.
enum XCTestTracking {
    private static let lock = NSLock()
    // `lock` guards `timeline` and `isObserving`.
    nonisolated(unsafe) private static var timeline = XCTestTimeline()
    nonisolated(unsafe) private static var isObserving = false

    /// The slot of the XCTest test running (the beginning's until XCTest tells), `nil`
    /// between tests, and always `nil` where XCTest cannot be imported. The first call
    /// starts the tracking.
    static var current: XCTestSlot? {
        #if canImport(XCTest)
        let (slot, start) = lock.withLock {
            defer { isObserving = true }
            return (timeline.current, !isObserving)
        }
        if start {
            startObserving()
        }
        return slot
        #else
        return nil
        #endif
    }

    /// Runs `body` on the timeline, under the lock.
    static func withTimeline<Result>(_ body: (inout XCTestTimeline) -> Result) -> Result {
        lock.withLock { body(&timeline) }
    }

    /// `withTimeline`, for the exit hook: `nil` if the lock is not free by `deadline` (a
    /// thread that still runs holds it).
    static func withTimeline<Result>(before deadline: Date, _ body: (inout XCTestTimeline) -> Result) -> Result? {
        guard lock.lock(before: deadline) else {
            return nil
        }
        defer { lock.unlock() }
        return body(&timeline)
    }

    #if canImport(XCTest)
    /// Registers the observer, at once wherever it can, so that it misses no event between
    /// the first tester and the first event (which the beginning slot stands for).
    ///
    /// Apple's XCTest takes observers on the main thread only (it throws otherwise): from
    /// another thread the observer is registered on the main queue, which XCTest drains
    /// while it awaits an `async` test. Should that come only after the test ended, the
    /// beginning slot would be named after a later test. swift-corelibs-xctest takes them
    /// from any thread (it sends its events from the thread that runs the tests, at a
    /// test's start and end; a first tester made at that very moment on another thread is
    /// the one race left).
    private static func startObserving() {
        let register: @Sendable () -> Void = {
            XCTestObservationCenter.shared.addTestObserver(XCTestEvents())
        }
        #if canImport(Darwin)
        if Thread.isMainThread {
            register()
        } else {
            DispatchQueue.main.async(execute: register)
        }
        #else
        register()
        #endif
    }
    #endif
}

#if canImport(XCTest)
/// The observer that tells ``XCTestTracking`` when a test starts and finishes.
private final class XCTestEvents: NSObject, XCTestObservation {
    func testCaseWillStart(_ testCase: XCTestCase) {
        let name = testCase.name
        let dropped = XCTestTracking.withTimeline { $0.testWillStart(named: name) }
        for message in dropped {
            EscapedFailures.report(message)
        }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        let name = testCase.name
        XCTestTracking.withTimeline { $0.testDidFinish(named: name) }
    }
}
#endif
