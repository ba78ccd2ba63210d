/// Whether this build of the library has its internal invariant checks compiled in: set
/// `FLUXCAPACITOR_INTERNAL_CHECKS=1` when building (see Internal/README.md). `package`, so
/// that a test can prove the flag reached the library.
package enum InternalChecks {
    /// Whether `_checkInvariants()` checks anything in this build.
    package static var areEnabled: Bool {
        #if FLUXCAPACITOR_INTERNAL_CHECKS
        true
        #else
        false
        #endif
    }
}
