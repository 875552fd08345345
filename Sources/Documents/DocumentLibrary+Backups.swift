import Foundation

// Backups: by default in `<library>/Backups/<document name>/<backup name>/`, never listed as
// documents; or in a folder the caller gives, directly (several documents' backups may share
// it: each backup records its document). Each is built under a hidden `.partial-…` name and
// renamed into view only when complete and verified.
extension DocumentLibrary {
    /// Backs up the document `name`: a consistent copy even while another process writes it.
    ///
    /// ```swift
    /// let backup = try library.backup("Paris", keeping: 5)
    /// print("backed up as \(backup.name)")
    /// ```
    /// - Parameters:
    ///   - folder: where to put the backup; nil for the library's own backups folder.
    ///   - keeping: when given, older backups beyond this many are removed afterwards.
    ///   - progress: called as the store is copied.
    /// - Throws: `DocumentError`: `invalidName`, `notFound`, `corrupt`, `unsafePath`, `io`.
    @discardableResult
    public func backup(_ name: String, to folder: URL? = nil, keeping: Int? = nil,
                       progress: ((CopyProgress) -> Void)? = nil) throws(DocumentError) -> BackupInfo {
        let location = try locate(name)
        let subject = DocumentError.Subject.document(location.name.rawValue)
        try location.bundle.checkStructure(subject: subject)
        let backups = try backupsFolder(for: location.name, in: folder, creating: true)
        StagingFolder.removeAbandoned(in: backups)
        // In whole seconds, as `BackupInfo.plist` records it, so that the folder's name and the
        // recorded moment are the same second (see `BackupInfo.name(for:)`).
        let created = Date().wholeSeconds
        let (staging, lock) = try StagingFolder.partialBackup.make(in: backups, subject: subject) { path throws(DocumentError) in
            try BundleCopier.copy(location.bundle, into: path, subject: subject, progress: progress)
            let metadata = try DocumentMetadata.read(from: location.bundle.metadataURL.path, fallback: DocumentMetadata(
                modelVersion: model.versionIdentifier, created: created, modified: created, appVersion: documentConfiguration.appVersion))
            try BackupInfo.write(to: path, documentName: location.name.rawValue, created: created, metadata: metadata)
        }
        defer { lock.release() }
        let finalPath: String
        do {
            finalPath = try renameIntoPlace(staging, folder: backups, baseName: BackupInfo.name(for: created))
        } catch {
            // The error that matters is being thrown; a hidden folder left behind is cleared later.
            try? FileSystem.removeTree(staging)
            throw error
        }
        guard let info = try BackupInfo.read(at: finalPath, owner: folder == nil ? location.name.rawValue : nil) else {
            throw DocumentError(.io(operation: "read back", detail: "the backup just written is unreadable"), .path(finalPath))
        }
        if let keeping { try pruneBackups(of: name, keeping: keeping, in: folder) }
        return info
    }

    /// The backups of the document `name` (which need not exist any more), oldest first.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `unsafePath`, `io` when the folder or a
    ///   backup's information cannot be read (never an empty or shortened list).
    public func backups(of name: String, in folder: URL? = nil) throws(DocumentError) -> [BackupInfo] {
        let documentName = try DocumentName(name)
        let path = try backupsFolder(for: documentName, in: folder, creating: false)
        var found: [BackupInfo] = []
        for entry in try FileSystem.entries(of: path) where !entry.hasPrefix(".") {
            if let info = try BackupInfo.read(at: path + "/" + entry, owner: folder == nil ? documentName.rawValue : nil),
               info.documentName == documentName.rawValue {
                found.append(info)
            }
        }
        return found.sorted(by: BackupInfo.chronologically)
    }

    /// Finds a backup from what a user typed: a path (anything with a `/`), or a name as
    /// `backups(of:)` lists it, looked for first among `document`'s backups, then among every
    /// document's in the library.
    ///
    /// ```swift
    /// let backup = try library.locateBackup("2024-05-01T12-30-05Z", of: "Paris")
    /// ```
    /// - Throws: `DocumentError`: `notFound`, `ambiguous` (several documents have a backup of
    ///   that name), `invalidName`, `io`.
    public func locateBackup(_ reference: String, of document: String? = nil) throws(DocumentError) -> BackupInfo {
        if reference.contains("/") {
            let path = URL(fileURLWithPath: reference).standardizedFileURL.path
            guard let info = try BackupInfo.read(at: path, owner: nil) else { throw DocumentError(.notFound, .backup(reference)) }
            return info
        }
        let backupName = try DocumentName(reference, subject: { .backup($0) }).rawValue
        let backupsRoot = root + "/" + Self.backupsFolderName
        if let document {
            let owner = try DocumentName(document).rawValue
            if let info = try BackupInfo.read(at: backupsRoot + "/" + owner + "/" + backupName, owner: owner) { return info }
        }
        var matches: [BackupInfo] = []
        for owner in try FileSystem.entries(of: backupsRoot).sorted() {
            if let info = try BackupInfo.read(at: backupsRoot + "/" + owner + "/" + backupName, owner: owner) { matches.append(info) }
        }
        guard let first = matches.first else { throw DocumentError(.notFound, .backup(backupName)) }
        guard matches.count == 1 else {
            throw DocumentError(.ambiguous(candidates: matches.map(\.documentName)), .backup(backupName))
        }
        return first
    }

    /// Restores `backup` as the document `name` (the backup's own document when nil). Over an
    /// existing document only with `replacing`, and then atomically: the two bundles swap
    /// places in one rename, so there is never a moment with neither; the old one is removed
    /// afterwards. Returns the restored document's name.
    ///
    /// ```swift
    /// try library.restore(library.locateBackup("2024-05-01T12-30-05Z"), as: "Paris (old)")
    /// ```
    /// - Throws: `DocumentError`: `alreadyExists` (without `replacing`), `busy`, `locked`,
    ///   `corrupt`, `invalidName`, `unsafePath`, `io`.
    @discardableResult
    public func restore(_ backup: BackupInfo, as name: String? = nil, replacing: Bool = false,
                        wait: Duration = .seconds(10), progress: ((CopyProgress) -> Void)? = nil) throws(DocumentError) -> String {
        let target = try locate(name ?? backup.documentName)
        let subject = DocumentError.Subject.document(target.name.rawValue)
        try backup.bundle.checkStructure(subject: .backup(backup.name))
        try checkInside(target.bundle.path, subject: subject)
        var exists = false
        do {
            try target.bundle.checkAbsent(subject: subject)
        } catch where error.kind == .alreadyExists && replacing {
            exists = true
        }
        StagingFolder.removeAbandoned(in: root)
        let (staging, lock) = try StagingFolder.creating.make(in: root, subject: subject) { path throws(DocumentError) in
            try BundleCopier.copy(backup.bundle, into: path, subject: .backup(backup.name), progress: progress)
        }
        defer { lock.release() }
        do {
            if exists {
                let originalLock = try DocumentLock.acquire(target.bundle.path, subject: subject, wait: wait)
                defer { originalLock.release() }
                try FileSystem.exchange(staging, target.bundle.path)
            } else {
                try FileSystem.renameWithoutReplacing(staging, to: target.bundle.path, subject: subject)
            }
        } catch {
            // The error that matters is being thrown; a hidden folder left behind is cleared later.
            try? FileSystem.removeTree(staging)
            throw error
        }
        // After an exchange the staging name holds the original, out of sight: remove it. The
        // restore is done; what fails to go here is hidden and cleared later.
        if exists { try? FileSystem.removeTree(staging) }
        return target.name.rawValue
    }

    /// Removes the oldest backups of the document `name`, keeping the `count` newest; returns
    /// those removed.
    ///
    /// - Throws: `DocumentError`: `invalidName`, `unsafePath`, `io`.
    @discardableResult
    public func pruneBackups(of name: String, keeping count: Int, in folder: URL? = nil) throws(DocumentError) -> [BackupInfo] {
        let all = try backups(of: name, in: folder)
        let doomed = Array(all.dropLast(max(0, count)))
        for backup in doomed {
            let parent = backup.url.deletingLastPathComponent().path
            let hidden = parent + "/" + StagingFolder.deleting.makeName()
            guard Foundation.rename(backup.url.path, hidden) == 0 else {
                throw .system("remove", backup.url.path, errno: errno)
            }
            // Out of sight already, and no longer listed: what fails to go is cleared later.
            try? FileSystem.removeTree(hidden)
        }
        return doomed
    }

    /// The folder of `name`'s backups: `folder` as given, or `<library>/Backups/<name>`, both
    /// refused when they are (or go through, inside the library) a symbolic link.
    func backupsFolder(for name: DocumentName, in folder: URL?, creating: Bool) throws(DocumentError) -> String {
        if let folder {
            let path = folder.standardizedFileURL.path
            if creating { try FileSystem.makeDirectories(path) }
            return FileSystem.realPath(path) ?? path
        }
        var path = root
        for component in [Self.backupsFolderName, name.rawValue] {
            path += "/" + component
            switch FileSystem.kind(at: path) {
            case .directory: continue
            case nil where creating: try FileSystem.makeDirectory(path)
            case nil: return path
            case .symbolicLink: throw DocumentError(.unsafePath(reason: "it is a symbolic link"), .path(path))
            case .file, .other: throw DocumentError(.io(operation: "use", detail: "it is not a folder"), .path(path))
            }
        }
        return path
    }

    /// Renames `staging` into `folder` as `baseName`, or as `baseName-n` after the highest `n`
    /// there already: names taken in one second then sort as they were taken, even after the
    /// oldest were pruned.
    private func renameIntoPlace(_ staging: String, folder: String, baseName: String) throws(DocumentError) -> String {
        let taken = try FileSystem.entries(of: folder).compactMap { entry -> Int? in
            if entry == baseName { return 1 }
            guard entry.hasPrefix(baseName + "-") else { return nil }
            return Int(entry.dropFirst(baseName.count + 1))
        }
        var sequence = (taken.max() ?? 0) + 1
        while true {
            let candidate = folder + "/" + (sequence == 1 ? baseName : "\(baseName)-\(sequence)")
            do {
                try FileSystem.renameWithoutReplacing(staging, to: candidate, subject: .backup(baseName))
                return candidate
            } catch where error.kind == .alreadyExists && sequence < 10_000 {
                sequence += 1   // another process took it a moment ago
            }
        }
    }
}
