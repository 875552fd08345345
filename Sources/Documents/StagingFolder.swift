import Foundation

/// Hidden folders where work happens before it is renamed into view: a document being created,
/// deleted or replaced, a backup being written. Their owner holds the bundle lock on them while
/// it works, so a folder nobody locks is left over from a process that died.
enum StagingFolder: String, CaseIterable {
    case creating = ".creating-"
    case deleting = ".deleting-"
    case replaced = ".replaced-"
    case partialBackup = ".partial-"

    func makeName() -> String { rawValue + UUID().uuidString }

    /// Makes a staging folder of this kind in `parent`, locks it, and fills it with `fill`; on
    /// failure the folder is removed. The caller renames it into place, then releases the lock.
    ///
    /// ```swift
    /// let (staging, lock) = try StagingFolder.creating.make(in: library, subject: subject) { try populate($0) }
    /// defer { lock.release() }
    /// try FileSystem.renameWithoutReplacing(staging, to: bundlePath, subject: subject)
    /// ```
    func make(in parent: String, subject: DocumentError.Subject,
              fill: (String) throws(DocumentError) -> Void) throws(DocumentError) -> (path: String, lock: DocumentLock) {
        let path = parent + "/" + makeName()
        try FileSystem.makeDirectory(path)
        var lock: DocumentLock?
        do {
            let acquired = try DocumentLock.acquire(path, subject: subject, wait: .zero)
            lock = acquired
            try fill(path)
            return (path, acquired)
        } catch {
            lock?.release()
            // The error that matters is being thrown; a hidden folder left behind is cleared later.
            try? FileSystem.removeTree(path)
            throw error
        }
    }

    /// How old a staging folder must be before it counts as abandoned; it covers the moment
    /// between making a folder and locking it.
    static let abandonmentAge: TimeInterval = 60

    /// Removes, from `folder`, staging folders that no process holds and that are older than
    /// `abandonmentAge`.
    static func removeAbandoned(in folder: String, now: Date = Date()) {
        for entry in FileSystem.entriesIfReadable(of: folder) where allCases.contains(where: { entry.hasPrefix($0.rawValue) }) {
            let path = folder + "/" + entry
            guard FileSystem.kind(at: path) == .directory,
                  let modified = FileSystem.modificationDate(at: path),
                  now.timeIntervalSince(modified) > abandonmentAge,
                  let lock = DocumentLock.acquireIfFree(path) else { continue }
            // Housekeeping: a folder that cannot be removed now is tried again next time.
            try? FileSystem.removeTree(path)
            lock.release()
        }
    }
}
