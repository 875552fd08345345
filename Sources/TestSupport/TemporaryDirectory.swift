import Foundation

/// A fresh directory under the system's temporary folder, removed when the value is released.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let store = directory.url.appendingPathComponent("store.sqlite")
/// ```
public final class TemporaryDirectory: @unchecked Sendable {
    // Immutable after init; removal happens once, in deinit.
    public let url: URL

    /// - Parameter inMemory: put it on `/dev/shm` (a memory file system) when there is one:
    ///   for tests that open thousands of short-lived stores, so that their syncs do not queue
    ///   behind a busy disk (the calls are made all the same).
    public init(prefix: String = "vacations-test", inMemory: Bool = false) throws {
        let memory = "/dev/shm"
        let base = inMemory && FileManager.default.isWritableFile(atPath: memory)
            ? URL(fileURLWithPath: memory, isDirectory: true)
            : URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func path(_ components: String...) -> URL {
        components.reduce(url) { $0.appendingPathComponent($1) }
    }

    deinit {
        // Tests may leave read-only folders behind; make them writable so that removal succeeds.
        if let enumerator = FileManager.default.enumerator(atPath: url.path) {
            for case let relative as String in enumerator {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755],
                                                       ofItemAtPath: url.appendingPathComponent(relative).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}
