import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line, 64 KiB at a time, so that a file of any size takes memory for
/// one line (at most `maximumLength` bytes) and one chunk.
final class LineReader {
    /// One line, or why there is none.
    enum Line {
        /// A whole line, without its newline.
        case line(Data)
        /// The file ends in bytes with no newline after them: a line cut short.
        case truncated
        /// A line longer than `maximumLength`; the rest of the file is not read.
        case tooLong
        /// The file could not be opened or read.
        case failed(String)
    }

    let path: String
    let maximumLength: Int
    private var descriptor: Int32 = -1
    private var isOpened = false
    private var isAtEnd = false
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// What a read fills, then copied to the end of `buffer`.
    private var chunk: [UInt8] = []
    /// The most bytes `buffer` ever held, for the tests of memory.
    private(set) var peakBufferedBytes = 0
    private static let chunkSize = 65_536

    init(path: String, maximumLength: Int) {
        self.path = path
        self.maximumLength = maximumLength
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
        }
    }

    /// The next line; `nil` at the end of the file.
    func next() -> Line? {
        if !isOpened {
            isOpened = true
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                isAtEnd = true
                return .failed("cannot open \(path): \(String(cString: strerror(errno)))")
            }
        }
        var searched = start
        while true {
            if let newline = Self.firstNewline(in: buffer, from: searched) {
                let line = buffer.withUnsafeBufferPointer { Data(UnsafeBufferPointer(rebasing: $0[start..<newline])) }
                start = newline + 1
                return .line(line)
            }
            searched = buffer.count
            if buffer.count - start > maximumLength {
                isAtEnd = true
                buffer = []
                start = 0
                return .tooLong
            }
            guard !isAtEnd else {
                guard start < buffer.count else { return nil }
                start = buffer.count
                return .truncated
            }
            // Drop what was read already, then read a chunk.
            if start > 0 {
                buffer.removeSubrange(0..<start)
                searched -= start
                start = 0
            }
            if chunk.isEmpty {
                chunk = [UInt8](repeating: 0, count: Self.chunkSize)
            }
            let read = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, Self.chunkSize) }
            if read < 0 {
                if errno == EINTR { continue }
                isAtEnd = true
                return .failed("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: chunk[..<read])
            peakBufferedBytes = max(peakBufferedBytes, buffer.capacity)
            if read == 0 {
                isAtEnd = true
            }
        }
    }

    /// Where the first newline at or after `offset` is in `bytes` (`memchr`).
    private static func firstNewline(in bytes: [UInt8], from offset: Int) -> Int? {
        guard offset < bytes.count else { return nil }
        return bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!
            return memchr(base + offset, 0x0A, buffer.count - offset).map { UnsafeRawPointer($0) - base }
        }
    }
}
