import CSQLite

extension Connection {
    /// How a transaction takes its locks.
    package enum TransactionKind: String, Sendable {
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
    ///
    /// Inside a transaction begun with `beginTransaction()` that SQLite has rolled back by itself
    /// (after SQLITE_FULL or SQLITE_IOERR), it throws rather than run `body` in a transaction of
    /// its own: that work belongs to the one that failed.
    package func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try settleFailedRollback()
        try checkTransactionNotLost()
        if !isAutocommit { return try savepoint(body) }
        try beginTransaction(kind)
        let result: T
        do {
            result = try body()
        } catch {
            rollbackAfterFailure()
            throw error
        }
        try commitTransaction()
        return result
    }

    /// Starts a transaction (`BEGIN`), for a caller that commits or rolls back itself.
    ///
    /// - Throws: `SQLiteError`, also when an earlier transaction could not be rolled back and
    ///   still cannot.
    package func beginTransaction(_ kind: TransactionKind = .deferred) throws {
        try settleFailedRollback()
        try checkTransactionNotLost()
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        hasBegunTransaction = true
    }

    /// Commits the transaction begun with `beginTransaction()`; when the commit fails, rolls
    /// back what is left of it.
    ///
    /// - Throws: `SQLiteError` from COMMIT, or with `SQLITE_ABORT_ROLLBACK` when SQLite rolled
    ///   the transaction back by itself after an earlier error.
    package func commitTransaction() throws {
        try checkTransactionNotLost()
        hasBegunTransaction = false
        do {
            try rowChangeBox?.willCommit?()
            try execute("COMMIT TRANSACTION")
            rowChangeBox?.transactionEvent?(.committed)
        } catch {
            rollbackAfterFailure()
            throw error
        }
    }

    /// SQLite rolls a transaction back by itself after some errors (SQLITE_FULL, SQLITE_IOERR,
    /// a failed ROLLBACK TO): work that belonged to it must then fail, not run on its own.
    private func checkTransactionNotLost() throws {
        guard hasBegunTransaction, isAutocommit else { return }
        hasBegunTransaction = false
        throw SQLiteError(resultCode: SQLITE_ABORT, extendedCode: SQLiteError.abortRollback,
                          message: "the transaction was rolled back after an earlier error")
    }

    /// Rolls back the open transaction, if one is open, after `body` or a commit failed.
    ///
    /// Never throws: the caller is already throwing the error that started this. After some
    /// errors (SQLITE_FULL, SQLITE_IOERR…) SQLite has rolled back by itself; when the ROLLBACK
    /// fails and the transaction is still open, the connection remembers it, and the next
    /// transaction tries again first and fails rather than nest its work inside it.
    package func rollbackAfterFailure() {
        hasBegunTransaction = false
        rollBackOpenTransaction()
    }

    /// Rolls back whatever transaction is open, remembering a ROLLBACK that fails.
    private func rollBackOpenTransaction() {
        guard !isAutocommit else { return }
        do {
            try execute("ROLLBACK TRANSACTION")
        } catch let error as SQLiteError {
            if !isAutocommit { failedRollback = error }
        } catch {
            if !isAutocommit { failedRollback = SQLiteError(resultCode: SQLITE_ERROR, message: "\(error)", sql: "ROLLBACK TRANSACTION") }
        }
    }

    /// Retries a rollback that failed, so that no new work joins a transaction that failed.
    /// (SQLite 3.40 answers a ROLLBACK that meets an I/O error with success, leaving the hot
    /// journal for the next access to roll back; this covers a ROLLBACK that does report one.)
    private func settleFailedRollback() throws {
        guard let failure = failedRollback else { return }
        if !isAutocommit {
            do {
                try execute("ROLLBACK TRANSACTION")
            } catch {
                throw SQLiteError(resultCode: failure.resultCode, extendedCode: failure.extendedCode,
                                  message: "an earlier transaction could not be rolled back (\(failure.message)), and still cannot: \(error)",
                                  sql: "ROLLBACK TRANSACTION")
            }
        }
        failedRollback = nil
    }

    /// Runs `body` in a named savepoint nested inside the current transaction (or as one).
    ///
    /// When `body` throws, its changes are rolled back to the savepoint; if that fails, the
    /// whole transaction is rolled back rather than keep changes half made, and the commit
    /// that the caller may still try fails.
    ///
    /// With `nestsSavepoints` off, inside a transaction `body` runs without a savepoint of its
    /// own (observers still see it begin and end), and when it throws the whole transaction is
    /// rolled back at once: its owner's commit then fails.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        let name = "vacations_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        // A savepoint outside any transaction is one: its RELEASE commits.
        let commits = isAutocommit
        if !commits && !nestsSavepoints { return try withoutSavepoint(body) }
        try execute("SAVEPOINT \(name)")
        rowChangeBox?.transactionEvent?(.savepointBegan)
        do {
            let result = try body()
            try rowChangeBox?.willCommit?()
            try execute("RELEASE SAVEPOINT \(name)")
            rowChangeBox?.transactionEvent?(commits ? .committed : .savepointReleased)
            return result
        } catch {
            // SQLite may have rolled the whole transaction back already (SQLITE_FULL, SQLITE_IOERR…).
            if !isAutocommit {
                do {
                    try execute("ROLLBACK TO SAVEPOINT \(name)")
                    rowChangeBox?.transactionEvent?(.savepointRolledBack)
                    try execute("RELEASE SAVEPOINT \(name)")
                } catch {
                    // The transaction's owner still has to end it: its commit then fails.
                    rollBackOpenTransaction()
                }
            }
            throw error
        }
    }

    /// `savepoint(_:)`'s body inside an all-or-nothing transaction: the same events for
    /// observers (the operation log writes its records at a savepoint's release), no SQL.
    private func withoutSavepoint<T>(_ body: () throws -> T) throws -> T {
        rowChangeBox?.transactionEvent?(.savepointBegan)
        do {
            let result = try body()
            try rowChangeBox?.willCommit?()
            rowChangeBox?.transactionEvent?(.savepointReleased)
            return result
        } catch {
            rollBackOpenTransaction()
            throw error
        }
    }
}
