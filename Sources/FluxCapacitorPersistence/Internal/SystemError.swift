#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The words for an `errno`: the system's message and the code's name, so that a report
/// reads `Read-only file system (EROFS)` and can be looked up.
enum SystemError {
    static func describe(_ code: POSIXErrorCode) -> String {
        "\(String(cString: strerror(code.rawValue))) (\(code))"
    }
}
