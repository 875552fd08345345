import Foundation
import ObjectGraph
import SQLiteDB

/// The folder of one document, in `UIManagedDocument`'s layout:
///
/// ```
/// My Vacation.vacation/
///     StoreContent/persistentStore     SQLite store in Core Data's layout, WAL
///     DocumentMetadata.plist           XML property list (see DocumentMetadata)
///     AdditionalContent/               files the document owns (absent until the first one)
/// ```
///
/// ```swift
/// let bundle = DocumentBundle(url: libraryURL.appendingPathComponent("Paris.vacation"))
/// let store = bundle.storeURL
/// ```
public struct DocumentBundle: Sendable, Equatable {
    package static let storeFolderName = "StoreContent"
    package static let storeFileName = "persistentStore"
    static let metadataFileName = "DocumentMetadata.plist"
    static let additionalContentFolderName = "AdditionalContent"

    /// The bundle's folder, `<name>.<extension>`.
    public let url: URL

    /// `url.path`, made once: every open asks for the bundle's paths several times, and each
    /// `URL` path or appended component costs a URL parse on Linux.
    let path: String

    /// The bundle at `url`; nothing is read or created.
    public init(url: URL) {
        self.url = url
        path = url.path
    }

    /// The SQLite store: `StoreContent/persistentStore`.
    public var storeURL: URL {
        url.appendingPathComponent(Self.storeFolderName, isDirectory: true).appendingPathComponent(Self.storeFileName)
    }

    var metadataURL: URL { url.appendingPathComponent(Self.metadataFileName) }

    package var additionalContentURL: URL {
        url.appendingPathComponent(Self.additionalContentFolderName, isDirectory: true)
    }

    /// `storeURL.path`, `metadataURL.path` and `additionalContentURL.path`, joined as strings.
    var storePath: String { join(Self.storeFolderName + "/" + Self.storeFileName) }
    var metadataPath: String { join(Self.metadataFileName) }
    var additionalContentPath: String { join(Self.additionalContentFolderName) }

    private func join(_ relative: String) -> String { (path.hasSuffix("/") ? path : path + "/") + relative }

    /// Checks that the bundle is laid out as expected and that nothing on the way to the store
    /// is a symbolic link (SQLite would follow one, and write wherever it points).
    func checkStructure(subject: DocumentError.Subject) throws(DocumentError) {
        switch FileSystem.kind(at: path) {
        case .directory: break
        case nil: throw DocumentError(.notFound, subject)
        case .symbolicLink: throw DocumentError(.unsafePath(reason: "its bundle is a symbolic link"), subject)
        case .file, .other: throw DocumentError(.corrupt(detail: "its bundle is not a folder"), subject)
        }
        let storeFolder = join(Self.storeFolderName)
        let expectations: [(String, FileSystem.EntryKind, Bool)] = [
            (storeFolder, .directory, true),
            (storePath, .file, true),
            (storePath + "-wal", .file, false),
            (storePath + "-shm", .file, false),
            (metadataPath, .file, false),
            (additionalContentPath, .directory, false),
        ]
        for (entry, expected, required) in expectations {
            let found = FileSystem.kind(at: entry)
            if found == .symbolicLink {
                throw DocumentError(.unsafePath(reason: "\(relative(entry)) is a symbolic link"), subject)
            }
            if found == nil && !required { continue }
            guard found == expected else {
                let problem = found == nil ? "is missing" : "is not a \(expected == .file ? "file" : "folder")"
                throw DocumentError(.corrupt(detail: "\(relative(entry)) \(problem)"), subject)
            }
        }
    }

    /// Refuses a bundle path where something already is: `alreadyExists`, or `unsafePath` for
    /// a symbolic link.
    func checkAbsent(subject: DocumentError.Subject) throws(DocumentError) {
        switch FileSystem.kind(at: path) {
        case nil: return
        case .symbolicLink: throw DocumentError(.unsafePath(reason: "its bundle is a symbolic link"), subject)
        default: throw DocumentError(.alreadyExists, subject)
        }
    }

    private func relative(_ entry: String) -> String {
        entry.hasPrefix(path + "/") ? String(entry.dropFirst(path.count + 1)) : entry
    }

    /// Opens the bundle's store, mapping the store's errors to document errors.
    func openCoordinator(model: ObjectModel, readOnly: Bool, tracksHistory: Bool = false,
                         subject: DocumentError.Subject) throws(DocumentError) -> StoreCoordinator {
        do {
            return try StoreCoordinator(url: storeURL, model: model, readOnly: readOnly, tracksHistory: tracksHistory)
        } catch {
            throw Self.storeError(error, subject: subject)
        }
    }

    /// Writes a new bundle's contents into the empty folder `folder`: the store, created for
    /// `model`, and the metadata. The store is closed again before this returns, so that the
    /// folder can be renamed into place (SQLite remembers paths).
    static func populate(_ folder: String, model: ObjectModel, metadata: DocumentMetadata, tracksHistory: Bool = false,
                         subject: DocumentError.Subject) throws(DocumentError) {
        let bundle = DocumentBundle(url: URL(fileURLWithPath: folder, isDirectory: true))
        try FileSystem.makeDirectory(folder + "/" + storeFolderName)
        do {
            // Closing the only connection folds the WAL into the file and removes it.
            _ = try StoreCoordinator(url: bundle.storeURL, model: model, tracksHistory: tracksHistory)
        } catch {
            throw storeError(error, subject: subject)
        }
        try metadata.write(to: bundle.metadataURL.path)
    }

    /// A store error as a document error: migration problems, damage, or I/O.
    static func storeError(_ error: any Error, subject: DocumentError.Subject,
                           operation: String = "open the store of") -> DocumentError {
        switch error {
        case let error as DocumentError:
            return error
        case let error as MigrationError:
            return DocumentError(.migrationFailed(detail: error.description), subject)
        case let error as StoreError where error.message.contains("needs migrating"):
            return DocumentError(.migrationFailed(detail: error.message), subject)
        case let error as StoreError:
            return DocumentError(.corrupt(detail: error.message), subject)
        case let error as SQLiteError:
            switch error.resultCode {
            case 11, 26:  // SQLITE_CORRUPT, SQLITE_NOTADB
                return DocumentError(.corrupt(detail: "the store is not a valid SQLite database (\(error.message))"), subject)
            default:
                return DocumentError(.io(operation: operation, detail: error.description), subject)
            }
        default:
            return DocumentError(.io(operation: operation, detail: describe(error)), subject)
        }
    }
}
