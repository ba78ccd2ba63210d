#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input, output and error, when the program was started with some closed.
enum StandardDescriptors {
    /// Opens `/dev/null` on each of the three standard descriptors that is closed, so that
    /// no file the program opens later (the favorites) takes its number, and a line meant
    /// for the terminal never lands in it; a closed input then reads as empty. Returns
    /// `false` if standard output was closed: the program cannot do its job.
    static func reserveClosedOnes() -> Bool {
        var outputWasOpen = true
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            if descriptor == STDOUT_FILENO {
                outputWasOpen = false
            }
            // `open` takes the lowest free number, this one, since the lower ones are open.
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
        return outputWasOpen
    }
}
