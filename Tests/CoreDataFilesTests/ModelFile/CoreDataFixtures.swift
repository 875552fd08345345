import Foundation
import Testing

/// Locates the Core Data fixtures copied into the test bundle, and makes scratch folders.
enum CoreDataFixtures {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// `Fixtures/coredata/<path>` inside the test bundle.
    static func url(_ path: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw Missing(description: "the test bundle has no Fixtures folder")
        }
        let url = root.appendingPathComponent("coredata").appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(description: "no fixture at \(url.path)")
        }
        return url
    }

    /// `Fixtures/coredata-more/<path>` inside the test bundle: real models and stores from other
    /// projects, one folder per repository (`owner__repo`) with its licence.
    static func more(_ path: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw Missing(description: "the test bundle has no Fixtures folder")
        }
        let url = root.appendingPathComponent("coredata-more").appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(description: "no fixture at \(url.path)")
        }
        return url
    }

    /// Copies a store file (with its `-wal` and `-shm` when there are any) into `directory`.
    static func copyStore(_ path: String, to directory: URL) throws -> URL {
        let source = try more(path)
        let destination = directory.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: destination.path + suffix))
            }
        }
        return destination
    }

    /// Runs `body` with a fresh empty folder that is removed afterwards.
    static func withTemporaryDirectory<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("vacations-coredata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// Writes `text` to `directory/path`, creating folders on the way.
    @discardableResult
    static func write(_ text: String, to path: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A `<model>` document around `body`.
    static func model(_ body: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        \(body)
        </model>
        """.utf8)
    }
}
