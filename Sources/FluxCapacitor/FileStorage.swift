public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``PersistentStorage`` of JSON files in a directory you choose: slot `favorites` is
/// `favorites.json`.
///
/// ```swift
/// let storage = FileStorage.applicationSupport(named: "repository-search")
/// let tests = FileStorage(directory: temporaryDirectory, coalescingInterval: .zero)
/// ```
///
/// A write goes to a temporary file beside the slot's, which is flushed to disk and then
/// renamed over it, so the file is always the old version or the new one, even if the
/// process dies mid-write. A file that cannot be decoded is renamed
/// `favorites.corrupt-<date>.json` and kept. The directory is made when first written to.
public final class FileStorage: PersistentStorage {
    /// Where the files are.
    ///
    /// ```swift
    /// print(storage.directory.path)
    /// ```
    public let directory: URL

    /// How long a value waits after a change before it is written.
    ///
    /// ```swift
    /// let forTests = FileStorage(directory: temporaryDirectory, coalescingInterval: .zero)
    /// ```
    public let coalescingInterval: Duration
    private let onError: @Sendable (PersistenceError) -> Void

    /// A storage in `directory`.
    ///
    /// ```swift
    /// let storage = FileStorage(directory: URL(fileURLWithPath: "/var/lib/my-service"))
    /// ```
    ///
    /// - Parameters:
    ///   - directory: Where the files go; made when first written to.
    ///   - coalescingInterval: How long a value waits after a change before it is written
    ///     (100 ms by default; `.zero` writes at once, still off the changing thread).
    ///   - onError: Hears what goes wrong; prints to standard error by default.
    public init(
        directory: URL,
        coalescingInterval: Duration = .milliseconds(100),
        onError: @escaping @Sendable (PersistenceError) -> Void = { error in
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    ) {
        self.directory = directory
        self.coalescingInterval = coalescingInterval
        self.onError = onError
    }

    /// A storage in the user's application-support directory, in a folder named `name`
    /// (`~/Library/Application Support/name` on Apple platforms, `$XDG_DATA_HOME/name` or
    /// `~/.local/share/name` on Linux).
    ///
    /// ```swift
    /// let storage = FileStorage.applicationSupport(named: "repository-search")
    /// ```
    public static func applicationSupport(
        named name: String,
        coalescingInterval: Duration = .milliseconds(100),
        onError: @escaping @Sendable (PersistenceError) -> Void = { error in
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    ) -> FileStorage {
        // Foundation always has an answer for the user domain; the home folder is a
        // last resort that survives reboots, unlike a temporary directory.
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser
        return FileStorage(
            directory: base.appendingPathComponent(name, isDirectory: true), coalescingInterval: coalescingInterval,
            onError: onError)
    }

    /// The file of `slot`.
    ///
    /// ```swift
    /// let file = storage.url(of: "favorites") // …/favorites.json
    /// ```
    public func url(of slot: String) -> URL {
        directory.appendingPathComponent("\(slot).json")
    }

    /// The contents of the slot's file, or `nil` if there is none.
    ///
    /// ```swift
    /// let data = try storage.read("favorites") // nil before the first write
    /// ```
    public func read(_ slot: String) throws -> Data? {
        let url = url(of: slot)
        guard FileManager.default.fileExists(atPath: url.path) else {
            return nil
        }
        return try Data(contentsOf: url)
    }

    /// Writes a temporary file, flushes it to disk, and renames it over the slot's file.
    ///
    /// ```swift
    /// try storage.write(Data("[]".utf8), to: "favorites")
    /// ```
    public func write(_ data: Data, to slot: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let target = url(of: slot)
        let temporary = directory.appendingPathComponent(".\(slot).json.\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    /// Renames the slot's file `slot.corrupt-<date>.json` and returns that name.
    ///
    /// ```swift
    /// let keptAs = try storage.setAside("favorites") // "favorites.corrupt-20261122T101500Z.json"
    /// ```
    public func setAside(_ slot: String) throws -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        let stamp = formatter.string(from: Date()).replacingOccurrences(of: ":", with: "")
        var name = "\(slot).corrupt-\(stamp).json"
        var counter = 1
        while FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            counter += 1
            name = "\(slot).corrupt-\(stamp)-\(counter).json"
        }
        try FileManager.default.moveItem(at: url(of: slot), to: directory.appendingPathComponent(name))
        return name
    }

    /// Deletes the slot's file, if any.
    ///
    /// ```swift
    /// try storage.remove("favorites")
    /// ```
    public func remove(_ slot: String) throws {
        let url = url(of: slot)
        if FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.removeItem(at: url)
        }
    }

    /// Hands `error` to the storage's error handler.
    ///
    /// ```swift
    /// storage.report(error) // calls `onError`
    /// ```
    public func report(_ error: PersistenceError) {
        onError(error)
    }
}
