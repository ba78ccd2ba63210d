#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Flushes a file's data to the storage device itself; 0 on success, else -1 with `errno`
/// set, as `fsync`.
///
/// On Darwin `fsync` moves the data to the drive, which "may not physically write the data
/// to the platters for quite some time and it may be written in an out-of-order sequence";
/// "the F_FULLFSYNC fcntl asks the drive to flush all buffered data to permanent storage"
/// (Apple's fsync(2) man page). Some file systems (network and FAT volumes, say) refuse
/// `F_FULLFSYNC`; `fsync` is then the best there is. On Linux `fsync` already asks the
/// drive to flush its cache (fsync(2)).
func flushToStorage(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    if fcntl(descriptor, F_FULLFSYNC) == 0 {
        return 0
    }
    #endif
    return fsync(descriptor)
}
