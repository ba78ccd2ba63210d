import TestSupport

/// The documentation samples' `print`: it shadows Swift's in this target, so that what a
/// sample prints goes to `SampleOutput` (nowhere, unless a test reads it), never into the
/// test log.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    SampleOutput.print(items, separator: separator)
}
