/// The test the current task runs, as FluxCapacitorTesting's `.isolatedDispatcher` trait
/// binds it (`nil` elsewhere, and in tests without the trait): so that a message of
/// another product can name the fix that fits a test rather than an app (the warning of a
/// persisted value made with no storage, in FluxCapacitorPersistence).
///
/// A task-local, so it is what the test runs synchronously, its child tasks and `Task {}`
/// see, and nothing else; a `nil` says only that no test is known to run.
package enum RunningTest {
    /// The test's name, `Suite/test()`.
    @TaskLocal package static var name: String?
}
