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

    public init(prefix: String = "vacations-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
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
