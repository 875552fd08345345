import Foundation
import ObjectGraph

/// A folder of documents (`<Name>.<extension>` bundles) and their backups.
///
/// Names follow ARCHITECTURE.md §3 (see `DocumentName`), and nothing is written outside the folder: a
/// bundle or folder that is a symbolic link is refused, never followed.
///
/// ```swift
/// let location = DocumentLibrary.location(option: nil, environment: ProcessInfo.processInfo.environment)
/// let library = try DocumentLibrary(url: location, model: model)
/// let document = try library.openOrCreate(named: "Paris", wait: .seconds(10))
/// for summary in try library.documents(counting: ["Photo"]) { print(summary.name, summary.counts["Photo"] ?? 0) }
/// ```
public struct DocumentLibrary: Sendable {
    /// The library folder, with symbolic links in its own path resolved.
    public let url: URL
    /// The model every document of the library is opened with (and migrated to).
    public let model: ObjectModel
    /// The bundles' extension, without the dot: `vacation`.
    let fileExtension: String
    /// The document used when none is named; created on first use.
    package private(set) var defaultDocumentName: String
    /// How documents opened through the library behave.
    package var documentConfiguration: ManagedDocument.Configuration

    /// The folder, inside the library, that holds each document's backups by default.
    static let backupsFolderName = "Backups"

    /// Opens the library at `url`, making the folder (and its parents) when missing.
    ///
    /// - Throws: `DocumentError`: `io` when the folder cannot be made or is not a folder,
    ///   `invalidName` for an unusable extension or default name.
    public init(url: URL, model: ObjectModel, fileExtension: String = "vacation",
                defaultDocumentName: String = "My Vacation",
                documentConfiguration: ManagedDocument.Configuration = ManagedDocument.Configuration()) throws(DocumentError) {
        let path = Self.standardizedPath(of: url)
        try FileSystem.makeDirectories(path)
        guard let resolved = FileSystem.realPath(path), FileSystem.kind(at: resolved) == .directory else {
            throw DocumentError(.io(operation: "use", detail: "it is not a folder"), .path(path))
        }
        if fileExtension.isEmpty || fileExtension.contains("/") || fileExtension.hasPrefix(".") || fileExtension.utf8.count > 40 {
            throw DocumentError(.invalidName(reason: "an extension must be 1 to 40 bytes, without \"/\" or a leading \".\""),
                                .path(fileExtension))
        }
        self.url = URL(fileURLWithPath: resolved, isDirectory: true)
        root = resolved
        self.model = model
        self.fileExtension = fileExtension
        self.defaultDocumentName = try DocumentName(defaultDocumentName).rawValue
        self.documentConfiguration = documentConfiguration
    }

    /// `url.path`, made once: the library's paths are joined as strings.
    let root: String

    /// This library with `name` as its default document: the folder as already resolved, not
    /// looked up again.
    ///
    /// - Throws: `DocumentError` of kind `invalidName`.
    package func withDefaultDocumentName(_ name: String) throws(DocumentError) -> DocumentLibrary {
        var library = self
        library.defaultDocumentName = try DocumentName(name).rawValue
        return library
    }

    // MARK: Names and bundles

    /// The bundle where the document `name` lives (or would live).
    ///
    /// A bundle whose name differs only in Unicode normalisation (one made on macOS, in NFD) is
    /// the same document, and is found.
    ///
    /// - Throws: `DocumentError` of kind `invalidName`.
    public func bundle(forDocumentNamed name: String) throws(DocumentError) -> DocumentBundle {
        try locate(name).bundle
    }

    /// True when a document named `name` exists (a bundle folder, not a symbolic link).
    package func documentExists(named name: String) throws(DocumentError) -> Bool {
        FileSystem.kind(at: try locate(name).bundle.path) == .directory
    }

    func locate(_ name: String) throws(DocumentError) -> (name: DocumentName, bundle: DocumentBundle) {
        let documentName = try DocumentName(name)
        let fileName = documentName.rawValue + "." + fileExtension
        var path = root + "/" + fileName
        if FileSystem.kind(at: path) == nil,
           let other = try FileSystem.entries(of: root).first(where: { DocumentName.composed($0) == fileName }) {
            path = root + "/" + other
        }
        return (documentName, DocumentBundle(url: URL(fileURLWithPath: path, isDirectory: true)))
    }

    /// Checks that the library folder is still where it was (a name has no `/`, so a bundle's
    /// parent is the library itself; this catches the library folder being swapped under us).
    func checkInside(_ path: String, subject: DocumentError.Subject) throws(DocumentError) {
        let parent = (path as NSString).deletingLastPathComponent
        guard let resolved = FileSystem.realPath(parent), FileSystem.isInside(resolved, root: root) else {
            throw DocumentError(.unsafePath(reason: "it would lie outside the library \(root)"), subject)
        }
    }

    // MARK: Opening

    /// The document instance for `name`, closed or open (the same instance every time).
    @MainActor
    public func document(named name: String) throws(DocumentError) -> ManagedDocument {
        let bundle = try locate(name).bundle
        // The bundle's folder is the library, resolved when it was opened: the registry's key
        // is known without resolving it again (`DocumentRegistry.key(for:)`).
        let folder = root + "/"
        var key: String?
        if root != "/", Self.isStandardPath(root), bundle.path.utf8.starts(with: folder.utf8) {
            key = folder + DocumentName.composed(String(Substring(bundle.path.utf8.dropFirst(folder.utf8.count))))
        }
        return ManagedDocument.document(at: bundle.url, registryKey: key, model: model, configuration: documentConfiguration)
    }

    /// Creates the document `name` and returns it open for writing.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `alreadyExists`, `unsafePath`, `io`.
    @MainActor
    package func create(named name: String) throws(DocumentError) -> ManagedDocument {
        let document = try document(named: name)
        try checkInside(document.bundle.path, subject: document.subject)
        StagingFolder.removeAbandoned(in: root)
        try document.save(for: .forCreating)
        return document
    }

    /// Opens the existing document `name`.
    ///
    /// - Throws: `DocumentError`: `notFound`, `busy` (another process writes it; waited
    ///   `wait`), `locked`, `corrupt`, `migrationFailed`, `unsafePath`, `io`.
    @MainActor
    public func open(named name: String, mode: ManagedDocument.OpenMode = .readWrite,
                     wait: Duration = .seconds(10)) throws(DocumentError) -> ManagedDocument {
        let document = try document(named: name)
        try checkInside(document.bundle.path, subject: document.subject)
        try document.open(mode: mode, wait: wait)
        return document
    }

    /// Opens the document `name` for writing, creating it when it does not exist.
    ///
    /// - Throws: as `open(named:mode:wait:)` and `create(named:)`.
    @MainActor
    public func openOrCreate(named name: String, wait: Duration = .seconds(10)) throws(DocumentError) -> ManagedDocument {
        let document = try document(named: name)
        if FileSystem.kind(at: document.bundle.path) == nil {
            do {
                return try create(named: name)
            } catch where error.kind == .alreadyExists {
                // Another process created it a moment ago: open theirs.
            }
        }
        return try open(named: name, mode: .readWrite, wait: wait)
    }

    /// Opens the default document, creating it on first use.
    ///
    /// - Throws: as `open(named:mode:wait:)`.
    @MainActor
    public func openDefault(mode: ManagedDocument.OpenMode = .readWrite, wait: Duration = .seconds(10)) throws(DocumentError) -> ManagedDocument {
        if mode == .readWrite { return try openOrCreate(named: defaultDocumentName, wait: wait) }
        if try !documentExists(named: defaultDocumentName) {
            try openOrCreate(named: defaultDocumentName, wait: wait).close()
        }
        return try open(named: defaultDocumentName, mode: mode, wait: wait)
    }

    // MARK: Renaming, duplicating, deleting

    /// Renames the document `name` to `newName`; its backups folder follows it.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `notFound`, `alreadyExists`, `busy`, `locked`
    ///   (open in this process), `unsafePath`, `io`.
    public func rename(_ name: String, to newName: String, wait: Duration = .seconds(10)) throws(DocumentError) {
        let source = try locate(name)
        let target = try locate(newName)
        guard source.bundle.path != target.bundle.path else { return }
        let subject = DocumentError.Subject.document(source.name.rawValue)
        try target.bundle.checkAbsent(subject: .document(target.name.rawValue))
        try checkInside(target.bundle.path, subject: .document(target.name.rawValue))
        let lock = try DocumentLock.acquire(source.bundle.path, subject: subject, wait: wait)
        defer { lock.release() }
        try FileSystem.renameWithoutReplacing(source.bundle.path, to: target.bundle.path,
                                              subject: .document(target.name.rawValue))
        let backups = root + "/" + Self.backupsFolderName + "/"
        if FileSystem.kind(at: backups + source.name.rawValue) == .directory {
            // Best effort: when the new name already has a backups folder, the old one stays.
            try? FileSystem.renameWithoutReplacing(backups + source.name.rawValue, to: backups + target.name.rawValue,
                                                   subject: subject)
        }
    }

    /// Copies the document `name` as a new document `newName`: a consistent copy even while
    /// another process writes the original (SQLite's backup API), with its additional content.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `notFound`, `alreadyExists`, `corrupt`,
    ///   `unsafePath`, `io`.
    public func duplicate(_ name: String, as newName: String,
                          progress: ((CopyProgress) -> Void)? = nil) throws(DocumentError) {
        let source = try locate(name)
        let target = try locate(newName)
        let targetSubject = DocumentError.Subject.document(target.name.rawValue)
        try source.bundle.checkStructure(subject: .document(source.name.rawValue))
        try target.bundle.checkAbsent(subject: targetSubject)
        try checkInside(target.bundle.path, subject: targetSubject)
        StagingFolder.removeAbandoned(in: root)
        let (staging, lock) = try StagingFolder.creating.make(in: root, subject: targetSubject) { folder throws(DocumentError) in
            try BundleCopier.copy(source.bundle, into: folder, subject: .document(source.name.rawValue), progress: progress)
            let copy = DocumentBundle(url: URL(fileURLWithPath: folder, isDirectory: true))
            let now = Date()
            var metadata = try DocumentMetadata.read(from: copy.metadataURL.path, fallback: DocumentMetadata(
                modelVersion: model.versionIdentifier, created: now, modified: now, appVersion: documentConfiguration.appVersion))
            metadata.created = now.wholeSeconds
            metadata.modified = now.wholeSeconds
            try metadata.write(to: copy.metadataURL.path)
        }
        defer { lock.release() }
        do {
            try FileSystem.renameWithoutReplacing(staging, to: target.bundle.path, subject: targetSubject)
        } catch {
            // The error that matters is being thrown; a hidden folder left behind is cleared later.
            try? FileSystem.removeTree(staging)
            throw error
        }
    }

    /// Deletes the document `name` (its backups stay, so it can be restored). The bundle
    /// disappears at once, by a rename, then is removed.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `notFound`, `busy`, `locked`, `unsafePath`, `io`.
    public func delete(_ name: String, wait: Duration = .seconds(10)) throws(DocumentError) {
        let location = try locate(name)
        let subject = DocumentError.Subject.document(location.name.rawValue)
        let lock = try DocumentLock.acquire(location.bundle.path, subject: subject, wait: wait)
        defer { lock.release() }
        let doomed = root + "/" + StagingFolder.deleting.makeName()
        guard Foundation.rename(location.bundle.path, doomed) == 0 else {
            throw .system("delete", location.bundle.path, errno: errno)
        }
        // What cannot be removed now is hidden, and removed as abandoned later.
        try? FileSystem.removeTree(doomed)
    }
}
