import CSQLite

extension Connection {
    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes locks when first needed.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so that a later write cannot fail with SQLITE_BUSY.
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction, or in a savepoint when one is already open.
    ///
    /// Commits when `body` returns, rolls back when it throws, and rethrows.
    ///
    /// ```swift
    /// try connection.transaction(.immediate) {
    ///     try connection.execute("INSERT INTO t VALUES (1)")
    /// }
    /// ```
    /// - Throws: whatever `body` throws, or `SQLiteError` from BEGIN/COMMIT.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        if !isAutocommit { return try savepoint(body) }
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try execute("COMMIT TRANSACTION")
        } catch {
            rollbackQuietly()
            throw error
        }
        return result
    }

    /// Runs `body` in a named savepoint nested inside the current transaction (or as one).
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        let name = "vacations_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    private func rollbackQuietly() {
        // After some errors (SQLITE_FULL, SQLITE_IOERR…) SQLite has already rolled back.
        if !isAutocommit { try? execute("ROLLBACK TRANSACTION") }
    }
}
