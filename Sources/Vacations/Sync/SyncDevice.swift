import Foundation

/// This library's device id for sync: a UUID kept in `<library>/SyncDevice` (one line), made on
/// first sync. Two libraries never share one unless a library folder is copied whole: then
/// give the copy its own by deleting its `SyncDevice` file before it first syncs.
package enum SyncDevice {
    package static let fileName = "SyncDevice"

    /// The id, made and kept when the library has none yet.
    ///
    /// - Throws: `SyncError` when the file cannot be read or made, or holds something else.
    package static func id(inLibrary library: URL) throws -> String {
        let file = library.appendingPathComponent(fileName)
        if let existing = try read(file) { return existing }
        let id = UUID().uuidString.lowercased()
        let temporary = library.appendingPathComponent(".\(fileName).\(id).tmp")
        do {
            try Data((id + "\n").utf8).write(to: temporary)
            defer { try? FileManager.default.removeItem(at: temporary) }  // Why `try?`: gone already once linked or not.
            // A hard link fails when the file exists: of two processes making it at once, one wins
            // and both use its id.
            try FileManager.default.linkItem(at: temporary, to: file)
        } catch {
            if let existing = try read(file) { return existing }
            throw SyncError(.io("cannot make \(file.path): \(error)"))
        }
        guard let made = try read(file) else { throw SyncError(.io("cannot read \(file.path) back")) }
        return made
    }

    private static func read(_ file: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw SyncError(.io("cannot read \(file.path): \(error)"))
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard SyncValidation.isDeviceID(text) else {
            throw SyncError(.io("\(file.path) does not hold a device id; delete it to make a new one"))
        }
        return text
    }
}

/// Why a sync failed as a whole (a bad change file is not one: it is reported and skipped).
package struct SyncError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The shared folder does not exist or is not a folder.
        case noFolder(String)
        case io(String)
        case store(String)
    }

    package var kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    package var description: String {
        switch kind {
        case .noFolder(let path): "No such folder: \(path)"
        case .io(let detail): detail
        case .store(let detail): detail
        }
    }
}
