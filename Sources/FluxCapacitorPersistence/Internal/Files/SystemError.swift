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
        "\(String(cString: strerror(code.rawValue))) (\(name(of: code.rawValue)))"
    }

    /// The constant's name of an `errno` value, `EROFS` say, from the platform's own
    /// constants (the numbers differ between Linux and Darwin); `errno N` for one not listed.
    /// Not `"\(code)"`: on Apple platforms `POSIXErrorCode` is an imported C enum, which
    /// prints as `POSIXErrorCode(rawValue: 30)`, not as its case's name.
    static func name(of code: Int32) -> String {
        names.first { $0.code == code }?.name ?? "errno \(code)"
    }

    /// The codes a file operation can give (POSIX's, and the common extensions of Linux
    /// and Darwin); where two names share a value (EAGAIN and EWOULDBLOCK, ENOTSUP and
    /// EOPNOTSUPP on Linux) the first is the one printed.
    private static let names: [(code: Int32, name: String)] = [
        (EPERM, "EPERM"), (ENOENT, "ENOENT"), (ESRCH, "ESRCH"), (EINTR, "EINTR"), (EIO, "EIO"),
        (ENXIO, "ENXIO"), (E2BIG, "E2BIG"), (ENOEXEC, "ENOEXEC"), (EBADF, "EBADF"),
        (ECHILD, "ECHILD"), (EDEADLK, "EDEADLK"), (ENOMEM, "ENOMEM"), (EACCES, "EACCES"),
        (EFAULT, "EFAULT"), (EBUSY, "EBUSY"), (EEXIST, "EEXIST"), (EXDEV, "EXDEV"),
        (ENODEV, "ENODEV"), (ENOTDIR, "ENOTDIR"), (EISDIR, "EISDIR"), (EINVAL, "EINVAL"),
        (ENFILE, "ENFILE"), (EMFILE, "EMFILE"), (ENOTTY, "ENOTTY"), (ETXTBSY, "ETXTBSY"),
        (EFBIG, "EFBIG"), (ENOSPC, "ENOSPC"), (ESPIPE, "ESPIPE"), (EROFS, "EROFS"),
        (EMLINK, "EMLINK"), (EPIPE, "EPIPE"), (EDOM, "EDOM"), (ERANGE, "ERANGE"),
        (EAGAIN, "EAGAIN"), (EINPROGRESS, "EINPROGRESS"), (EALREADY, "EALREADY"),
        (ENOTSUP, "ENOTSUP"), (EOPNOTSUPP, "EOPNOTSUPP"), (ELOOP, "ELOOP"),
        (ENAMETOOLONG, "ENAMETOOLONG"), (ENOTEMPTY, "ENOTEMPTY"), (EDQUOT, "EDQUOT"),
        (ESTALE, "ESTALE"), (ENOLCK, "ENOLCK"), (ENOSYS, "ENOSYS"), (EOVERFLOW, "EOVERFLOW"),
        (ECANCELED, "ECANCELED"), (EILSEQ, "EILSEQ"), (ETIMEDOUT, "ETIMEDOUT"),
    ]
}
