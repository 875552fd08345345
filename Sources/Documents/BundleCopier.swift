import Foundation
import SQLiteDB

/// Copies a document bundle consistently, even while another process writes it: the store
/// through SQLite's online backup API (its pages byte for byte; the copy is checked to be
/// whole, not re-verified page by page: `vacation check` does that); then the metadata and the
/// additional content.
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
    /// - Throws: `DocumentError`: `corrupt` when the copy is not the store's size, `io`.
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
            let pages: Int64?
            do {
                // The first read starts the snapshot that every backup step then shares.
                _ = try source.scalar("SELECT count(*) FROM sqlite_master")
                pages = try source.scalar("PRAGMA page_count")?.integerValue
                try source.backup(to: copy, pagesPerStep: progress == nil ? -1 : pagesPerStep) { remaining, total in
                    progress?(CopyProgress(pagesCopied: total - remaining, totalPages: total))
                }
                try source.commitTransaction()
            } catch {
                source.rollbackAfterFailure()
                throw error
            }
            try copy.setJournalMode(.delete)
            // SQLite's backup copies the snapshot's pages byte for byte; what is checked here is
            // that the copy is whole: a database of the snapshot's size. A full integrity check
            // of the copy read every page again and cost seven times the copy at a million
            // photos; `vacation check` is the place for it.
            let copied = try copy.scalar("PRAGMA page_count")?.integerValue
            guard let pages, copied == pages else {
                throw DocumentError(.corrupt(detail: "the copy has \(copied ?? 0) pages where the store has \(pages ?? 0)"), subject)
            }
        } catch {
            throw DocumentBundle.storeError(error, subject: subject, operation: "copy the store of")
        }
    }
}
