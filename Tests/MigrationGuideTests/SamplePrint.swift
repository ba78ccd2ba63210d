import TestSupport

/// The documentation samples' `print`: it shadows Swift's in this target, so that what a
/// sample prints goes to `SampleOutput` (nowhere, unless a test reads it), never into the
/// test log. (`nonisolated`: samples print from observers, on any thread, also where
/// code is on the main actor by default, as in an Xcode 26 app target.)
nonisolated func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    SampleOutput.print(items, separator: separator)
}
