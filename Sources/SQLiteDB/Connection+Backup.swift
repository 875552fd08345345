import CSQLite
import Foundation

extension Connection {
    /// Copies this whole database into `destination` with SQLite's online backup API.
    ///
    /// The copy is consistent even while other connections write: SQLite restarts the copy
    /// when the source changes under a partial step. With the default `pagesPerStep` of -1
    /// the copy is made in one step under one read transaction.
    ///
    /// ```swift
    /// let copy = try Connection(path: backupPath, configuration: .init(journalMode: .delete))
    /// try source.backup(to: copy)
    /// ```
    /// - Throws: `SQLiteError` when the copy fails, or stays locked out longer than either
    ///   connection's `busyTimeout`.
    public func backup(to destination: Connection, pagesPerStep: Int32 = -1,
                       progress: ((_ remaining: Int, _ total: Int) -> Void)? = nil) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(connection: destination.handle, code: sqlite3_errcode(destination.handle),
                              sql: "backup")
        }
        var code: Int32
        // A lock held by another connection is waited for as long as a statement would wait.
        let patience = max(configuration.busyTimeout, destination.configuration.busyTimeout)
        var waited = 0.0
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            progress?(Int(sqlite3_backup_remaining(backup)), Int(sqlite3_backup_pagecount(backup)))
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                if waited >= patience { break }
                usleep(20_000)
                waited += 0.02
            }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        if code != SQLITE_DONE { throw SQLiteError(connection: destination.handle, code: code, sql: "backup") }
        try check(finish, destination.handle, sql: "backup")
    }
}
