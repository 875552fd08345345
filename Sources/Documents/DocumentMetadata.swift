import Foundation

/// What `DocumentMetadata.plist` records about a document: an XML property list that any
/// plist reader (Python's `plistlib` among them) can read.
///
/// ```xml
/// <dict>
///     <key>appVersion</key>     <string>1.0</string>
///     <key>created</key>        <date>2024-05-01T12:30:05Z</date>
///     <key>formatVersion</key>  <integer>1</integer>
///     <key>modelVersion</key>   <string>2</string>
///     <key>modified</key>       <date>2024-05-02T08:00:00Z</date>
/// </dict>
/// ```
/// Keys written by other tools (a `UIManagedDocument` writes its own) are kept when we rewrite
/// the file. Dates are whole seconds, as the XML format stores them.
public struct DocumentMetadata: Sendable, Equatable {
    /// The bundle layout version this code writes.
    public static let currentFormatVersion = 1

    var formatVersion: Int
    /// The model's `versionIdentifier` the store was last opened with for writing.
    package var modelVersion: String
    /// When the document was created.
    public var created: Date
    /// When a save last changed the store.
    public var modified: Date
    /// The version of the app that last wrote the document.
    package var appVersion: String

    /// Metadata with these values; dates are cut to whole seconds, as the file keeps them.
    public init(modelVersion: String, created: Date, modified: Date, appVersion: String,
                formatVersion: Int = DocumentMetadata.currentFormatVersion) {
        self.formatVersion = formatVersion
        self.modelVersion = modelVersion
        self.created = created.wholeSeconds
        self.modified = modified.wholeSeconds
        self.appVersion = appVersion
    }

    /// Reads the metadata at `path`; missing or foreign keys take `fallback`'s values, and a
    /// missing file, or one that is not a property list, gives `fallback` itself (bundles made
    /// elsewhere may have none).
    ///
    /// - Throws: `DocumentError` of kind `io` when the file is there but cannot be read.
    static func read(from path: String, fallback: DocumentMetadata) throws(DocumentError) -> DocumentMetadata {
        guard let data = try readData(path) else { return fallback }
        if let values = PlainPropertyList.values(data) {
            return read(plain: values, fallback: fallback)
        }
        return read(foundation: data, fallback: fallback)
    }

    /// The metadata from a file in the plain form, with what Foundation's reading gives: a
    /// boolean `formatVersion` counts as 1 or 0, as an `NSNumber` does.
    static func read(plain values: [String: PlainPropertyList.Value], fallback: DocumentMetadata) -> DocumentMetadata {
        func string(_ key: String) -> String? { if case .string(let value) = values[key] { value } else { nil } }
        func date(_ key: String) -> Date? { if case .date(let value) = values[key] { value } else { nil } }
        let formatVersion: Int? = switch values[Key.formatVersion] {
        case .integer(let value): Int(value)
        case .boolean(let value): value ? 1 : 0
        default: nil
        }
        return DocumentMetadata(
            modelVersion: string(Key.modelVersion) ?? fallback.modelVersion,
            created: date(Key.created) ?? fallback.created,
            modified: date(Key.modified) ?? fallback.modified,
            appVersion: string(Key.appVersion) ?? fallback.appVersion,
            formatVersion: formatVersion ?? fallback.formatVersion)
    }

    /// The metadata from a file read by `PropertyListSerialization` (any form it reads).
    static func read(foundation data: Data, fallback: DocumentMetadata) -> DocumentMetadata {
        guard let dictionary = dictionary(data) else { return fallback }
        return DocumentMetadata(
            modelVersion: dictionary[Key.modelVersion] as? String ?? fallback.modelVersion,
            created: dictionary[Key.created] as? Date ?? fallback.created,
            modified: dictionary[Key.modified] as? Date ?? fallback.modified,
            appVersion: dictionary[Key.appVersion] as? String ?? fallback.appVersion,
            formatVersion: (dictionary[Key.formatVersion] as? NSNumber)?.intValue ?? fallback.formatVersion)
    }

    /// Writes the metadata to `path` atomically as an XML property list, keeping other keys.
    func write(to path: String) throws(DocumentError) {
        // Keys other tools wrote are kept; a file that cannot be read fails the write rather
        // than lose them.
        var dictionary = try Self.readDictionary(path) ?? [:]
        dictionary[Key.formatVersion] = formatVersion
        dictionary[Key.modelVersion] = modelVersion
        dictionary[Key.created] = created
        dictionary[Key.modified] = modified
        dictionary[Key.appVersion] = appVersion
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
        } catch {
            throw .wrapping(error, operation: "encode metadata for", path: path)
        }
        try FileSystem.writeAtomically(data, to: path)
    }

    /// The file's dictionary; nil when there is no file or it is not a property-list dictionary.
    private static func readDictionary(_ path: String) throws(DocumentError) -> [String: Any]? {
        try readData(path).flatMap(dictionary)
    }

    /// The file's bytes; nil when there is no file.
    private static func readData(_ path: String) throws(DocumentError) -> Data? {
        guard FileSystem.kind(at: path) == .file else { return nil }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .wrapping(error, operation: "read", path: path)
        }
    }

    private static func dictionary(_ data: Data) -> [String: Any]? {
        // Not a property list: not metadata anyone can use; rewriting it loses nothing readable.
        (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
    }

    enum Key {
        static let formatVersion = "formatVersion"
        static let modelVersion = "modelVersion"
        static let created = "created"
        static let modified = "modified"
        static let appVersion = "appVersion"
    }
}

extension Date {
    /// This date without its fraction of a second (what an XML property list keeps).
    var wholeSeconds: Date { Date(timeIntervalSince1970: (timeIntervalSince1970).rounded(.down)) }
}
