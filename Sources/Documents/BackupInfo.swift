import Foundation

/// One backup of a document: a complete document bundle (store, metadata, additional content)
/// plus `BackupInfo.plist`, in a folder named for the moment it was taken, in UTC:
/// `2024-05-01T12-30-05Z` (then `…Z-2`, `…Z-3` for more in the same second). The name has no
/// spaces, colons or slashes, so it can be typed on a command line as it is listed.
///
/// ```swift
/// for backup in try library.backups(of: "Paris") { print(backup.name, backup.bytes) }
/// ```
public struct BackupInfo: Sendable, Equatable {
    static let infoFileName = "BackupInfo.plist"

    /// The folder's name, as commands take it.
    public var name: String
    /// The backup's folder.
    public var url: URL
    /// The document the backup belongs to.
    package var documentName: String
    /// When the backup was taken, as its `BackupInfo.plist` records it.
    public var created: Date
    /// Bytes taken by the whole backup folder.
    public var bytes: Int64
    /// The model version of the store when the backup was taken.
    package var modelVersion: String

    /// The backup seen as a document bundle.
    public var bundle: DocumentBundle { DocumentBundle(url: url) }

    /// Backups in the order they were taken (then by name, for those of the same second).
    static func chronologically(_ first: BackupInfo, _ second: BackupInfo) -> Bool {
        if first.created != second.created { return first.created < second.created }
        if first.sequence != second.sequence { return first.sequence < second.sequence }
        return first.name < second.name
    }

    /// The `-n` suffix of a name taken in the same second as another (1 without one).
    private var sequence: Int {
        guard let dash = name.lastIndex(of: "-"), name[..<dash].hasSuffix("Z"),
              let number = Int(name[name.index(after: dash)...]) else { return 1 }
        return number
    }

    /// The name for a backup taken at `date`: its second, as `BackupInfo.plist` records it.
    ///
    /// The second is cut down before formatting: `ISO8601DateFormatter` rounds a moment to the
    /// millisecond first, so 12:30:05.9996 came out as `12-30-06Z` while the info file recorded
    /// 12:30:05, and such a backup listed after a later `12-30-05Z-2`.
    static func name(for date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date.wholeSeconds).replacingOccurrences(of: ":", with: "-")
    }

    /// Reads the backup in the folder `path`, or nil when it is not a backup (no info file, or
    /// one that is not ours). `owner` names the document when the folder says which (the
    /// default backups folder does), since a document renamed since keeps its backups.
    ///
    /// - Throws: `DocumentError` of kind `io` when the info file is there but cannot be read:
    ///   a backup that cannot be read is not "no backup".
    static func read(at path: String, owner: String?) throws(DocumentError) -> BackupInfo? {
        let infoPath = path + "/" + infoFileName
        guard FileSystem.kind(at: path) == .directory, FileSystem.kind(at: infoPath) == .file else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: infoPath))
        } catch {
            throw .wrapping(error, operation: "read", path: infoPath)
        }
        // A file of that name that is not our property list is something else's: not a backup.
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
              let dictionary = plist as? [String: Any],
              let recordedName = dictionary[Key.documentName] as? String,
              let created = dictionary[Key.created] as? Date else { return nil }
        let url = URL(fileURLWithPath: path, isDirectory: true)
        return BackupInfo(name: url.lastPathComponent, url: url,
                          documentName: owner ?? DocumentName.composed(recordedName),
                          created: created, bytes: FileSystem.size(of: path),
                          modelVersion: dictionary[Key.modelVersion] as? String ?? "")
    }

    /// Writes `BackupInfo.plist` into the backup folder `path`.
    static func write(to path: String, documentName: String, created: Date, metadata: DocumentMetadata?) throws(DocumentError) {
        var dictionary: [String: Any] = [
            Key.formatVersion: DocumentMetadata.currentFormatVersion,
            Key.documentName: documentName,
            Key.created: created.wholeSeconds,
        ]
        if let metadata {
            dictionary[Key.modelVersion] = metadata.modelVersion
            dictionary[Key.appVersion] = metadata.appVersion
        }
        let infoPath = path + "/" + infoFileName
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
            try FileSystem.writeAtomically(data, to: infoPath)
        } catch {
            throw .wrapping(error, operation: "write", path: infoPath)
        }
    }

    private enum Key {
        static let formatVersion = "formatVersion"
        static let documentName = "documentName"
        static let created = "created"
        static let modelVersion = "modelVersion"
        static let appVersion = "appVersion"
    }
}
