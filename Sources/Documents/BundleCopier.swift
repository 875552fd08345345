import Foundation
import SQLiteDB

/// Copies a document bundle consistently, even while another process writes it: the store
/// through SQLite's online backup API, then checked with `PRAGMA integrity_check`; then the
/// metadata and the additional content.
///
/// The whole store copy runs inside one read transaction on the source, so every step sees the
/// same snapshot: writes that another process makes meanwhile go to the WAL, neither show in
/// the copy nor restart it. (Additional content is copied file by file, after the store, and is
/// not part of that snapshot.)
///
/// The copy is left in rollback-journal mode, one self-contained file: reading it (a backup
/// being listed or restored) leaves no `-wal` or `-shm` behind, and a document switches it back
/// to WAL when it is next opened for writing.
///
/// ```swift
/// try BundleCopier.copy(source, into: stagingFolder, subject: .document("Paris"), progress: nil)
/// ```
enum BundleCopier {
    /// Pages per backup step when someone watches the progress.
    static let pagesPerStep: Int32 = 64

    /// Copies `source` into the empty folder `destination`.
    ///
    /// - Throws: `DocumentError`: `corrupt` when the copy fails its integrity check, `io`.
    static func copy(_ source: DocumentBundle, into destination: String, subject: DocumentError.Subject,
                     progress: ((CopyProgress) -> Void)?) throws(DocumentError) {
        let target = DocumentBundle(url: URL(fileURLWithPath: destination, isDirectory: true))
        try FileSystem.makeDirectory(destination + "/" + DocumentBundle.storeFolderName)
        try copyStore(from: source.storePath, to: target.storePath, subject: subject, progress: progress)
        if FileSystem.kind(at: source.metadataURL.path) == .file {
            try FileSystem.copyTree(from: source.metadataURL.path, to: target.metadataURL.path)
        }
        if FileSystem.kind(at: source.additionalContentURL.path) == .directory {
            try FileSystem.copyTree(from: source.additionalContentURL.path, to: target.additionalContentURL.path)
        }
    }

    private static func copyStore(from sourcePath: String, to targetPath: String, subject: DocumentError.Subject,
                                  progress: ((CopyProgress) -> Void)?) throws(DocumentError) {
        do {
            let source = try Connection(path: sourcePath, configuration: .init(
                readOnly: true, create: false, journalMode: nil, busyTimeout: 10, synchronous: nil))
            let copy = try Connection(path: targetPath, configuration: .init(
                readOnly: false, create: true, journalMode: nil, busyTimeout: 10, synchronous: nil))
            try source.beginTransaction(.deferred)
            do {
                // The first read starts the snapshot that every backup step then shares.
                _ = try source.scalar("SELECT count(*) FROM sqlite_master")
                try source.backup(to: copy, pagesPerStep: progress == nil ? -1 : pagesPerStep) { remaining, total in
                    progress?(CopyProgress(pagesCopied: total - remaining, totalPages: total))
                }
                try source.commitTransaction()
            } catch {
                source.rollbackAfterFailure()
                throw error
            }
            try copy.setJournalMode(.delete)
            let messages = try copy.integrityCheck()
            guard messages == ["ok"] else {
                throw DocumentError(.corrupt(detail: "the copy failed its integrity check: "
                                             + messages.prefix(3).joined(separator: "; ")), subject)
            }
        } catch {
            throw DocumentBundle.storeError(error, subject: subject, operation: "copy the store of")
        }
    }
}
