import Foundation

enum MainThread {
    /// Whether the caller runs on the main thread.
    @inline(__always)
    static var isCurrent: Bool { Thread.isMainThread }
}
