import Foundation
import SQLiteDB

/// One operation of a store's operation log: every transaction one command committed.
public struct LoggedOperation: Sendable, Equatable {
    /// The operation's identifier in the log (`UNDO_OPERATION.ID`), increasing.
    public let id: Int64
    /// Who made it (`vacation import`, …; `StoreCoordinator.recordOperations(author:)`).
    public let author: String
    /// When its first transaction committed.
    public let date: Date
    /// Entity name → how many objects it inserted (entities with none left out).
    public let inserted: [String: Int]
    /// Entity name → how many objects it updated that it did not insert.
    public let updated: [String: Int]
    /// Entity name → how many objects it deleted that it did not insert.
    public let deleted: [String: Int]
    /// The undo that reverted it, if one did.
    public let undoneBy: Int64?
    /// For an undo: the operation it reverted.
    public let undoes: Int64?
    /// The persistent-history token of its last transaction; nil in a store without history.
    public let historyToken: HistoryToken?

    /// The operation's token as text (`vacation log --json`): its last transaction's history
    /// token (`HistoryToken.description`), or `op-` and its identifier in a store without history.
    public var token: String { historyToken?.description ?? "op-\(id)" }
}

extension StoreCoordinator {
    /// Starts recording every write to the store's model tables in the operation log (creating
    /// its tables when the store has none), as operations by `author`: every transaction
    /// committed through this coordinator from now on belongs to one operation, until
    /// `beginOperation(author:)` starts another. A later coordinator of this process that
    /// passes the same `session` joins the operation when it is still the latest (a command
    /// that opens its store twice).
    ///
    /// ```swift
    /// try coordinator.recordOperations(author: "vacation import")
    /// try context.save()                            // logged, revertible as a whole
    /// ```
    ///
    /// - Throws: `StoreError` for a read-only store; `SQLiteError` when the tables cannot be made.
    public func recordOperations(author: String, session: String = UUID().uuidString,
                                 now: @escaping @Sendable () -> Date = { Date() }) throws {
        guard !isReadOnly else { throw StoreError("the store is open read-only: it cannot log operations") }
        try withStore { store in
            if let recorder = store.operationRecorder {
                recorder.startOperation(author: author, session: session)
                return
            }
            try store.connection.transaction(.immediate) {
                try OperationLogSchema.create(on: store.connection)
                try OperationLogSchema.upgrade(on: store.connection)
            }
            let model = store.model
            var tables = store.schema.tables.map { name in
                OperationRecorder.Table(name: name, entityColumn: 1, keyColumn: 0)
            }
            tables += model.joinTables.map { OperationRecorder.Table(name: $0.name, entityColumn: nil, keyColumn: nil) }
            let names = Dictionary(model.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
            let recorder = OperationRecorder(tables: tables, entityNames: names, author: author, sessionKey: session, now: now)
            store.operationRecorder = recorder
            let connection = store.connection
            connection.observeRowChanges({ change in recorder.record(change) },
                                         willCommit: { [unowned connection] in try recorder.flush(on: connection) },
                                         mayCommit: {
                                             guard recorder.mayCommit else { return false }
                                             recorder.transactionCommitted()
                                             return true
                                         },
                                         transactionEvent: { event in
                                             switch event {
                                             case .savepointBegan: recorder.savepointBegan()
                                             case .savepointReleased: recorder.savepointReleased()
                                             case .savepointRolledBack: recorder.savepointRolledBack()
                                             case .committed: recorder.transactionCommitted()
                                             case .rolledBack: recorder.transactionRolledBack()
                                             }
                                         })
        }
    }

    /// Ends the current operation: what commits next is a new one, by `author`.
    ///
    /// - Throws: `StoreError` when the store does not log operations.
    public func beginOperation(author: String) throws {
        try withStore { store in
            guard let recorder = store.operationRecorder else {
                throw StoreError("the store does not log operations: call recordOperations(author:) first")
            }
            recorder.startOperation(author: author)
        }
    }

    /// True when this coordinator records operations.
    public var recordsOperations: Bool {
        withStore { $0.operationRecorder != nil }
    }

    /// The logged operations, newest first: those after the one holding `token` (not including
    /// it), at most `limit`. A store that never logged any has none.
    ///
    /// `token` is an operation's `token`, or any history token (`HistoryToken.description`, or a
    /// transaction's number alone) of a transaction an operation committed.
    ///
    /// - Throws: `StoreError` when no operation of the log holds `token` (its message says why,
    ///   without repeating the token).
    public func loggedOperations(since token: String? = nil, limit: Int? = nil) throws -> [LoggedOperation] {
        try withConnection { connection in
            guard try connection.tableExists("UNDO_OPERATION") else {
                if token != nil { throw StoreError("no operation of the log holds it") }
                return []
            }
            let hasTransactions = try OperationLogSchema.hasTransactionColumns(on: connection)
            var sql = "SELECT " + OperationLogSchema.operationColumns(hasTransactions: hasTransactions) + " FROM UNDO_OPERATION"
            var arguments: [SQLiteValue] = []
            if let token {
                sql += " WHERE ID > ?"
                arguments.append(.integer(try operationHolding(token, hasTransactions: hasTransactions, on: connection)))
            }
            sql += " ORDER BY ID DESC"
            if let limit {
                sql += " LIMIT ?"
                arguments.append(.integer(Int64(max(0, limit))))
            }
            let uuid = storeUUID
            return try connection.rows(sql, arguments) { row in
                LoggedOperation(row: row, storeUUID: uuid)
            }
        }
    }

    /// The identifier of the operation that holds `token` (see `loggedOperations(since:limit:)`).
    private func operationHolding(_ token: String, hasTransactions: Bool, on connection: Connection) throws -> Int64 {
        let unknown = StoreError("no operation of the log holds it")
        if token.hasPrefix("op-") {
            guard let id = Int64(token.dropFirst(3)), id > 0,
                  // The form names only operations that have no history token to show.
                  let found = try connection.scalar("SELECT ID FROM UNDO_OPERATION WHERE ID = ?"
                                                    + (hasTransactions ? " AND LAST_TRANSACTION IS NULL" : ""),
                                                    [.integer(id)])?.integerValue
            else { throw unknown }
            return found
        }
        let transaction: Int64
        if let history = HistoryToken(token) {
            guard history.storeUUID == storeUUID else {
                throw StoreError("it is a token of another store")
            }
            transaction = history.transactionNumber
        } else if let number = Int64(token), number > 0 {
            transaction = number
        } else {
            throw unknown
        }
        guard hasTransactions, let found = try connection.scalar(
            "SELECT ID FROM UNDO_OPERATION WHERE FIRST_TRANSACTION <= ?1 AND LAST_TRANSACTION >= ?1 ORDER BY ID LIMIT 1",
            [.integer(transaction)])?.integerValue else { throw unknown }
        return found
    }

    /// Reverts the latest operation that is neither undone nor an undo itself, in one
    /// transaction logged as an operation by `author`: every row it inserted is deleted, every
    /// row it updated or deleted is as it was (the search index follows through its triggers).
    /// Returns the operation reverted, nil (nothing changed) when there is none.
    ///
    /// Contexts on this coordinator hear of it as of any save: objects it deleted or changed are
    /// refreshed when they merge (`ChangeSet.invalidatesAll`).
    ///
    /// - Throws: `StoreError` when the store does not log operations, its log is damaged, or a
    ///   transaction is open (`performTransaction`); `SQLiteError` (nothing changed).
    @discardableResult
    public func undoLatestOperation(author: String) throws -> LoggedOperation? {
        let undone = try withStore { store -> LoggedOperation? in
            guard let recorder = store.operationRecorder else {
                throw StoreError("the store does not log operations: call recordOperations(author:) first")
            }
            return try OperationUndo(store: store, recorder: recorder).undoLatest(author: author)
        }
        guard let undone else { return nil }
        // Which objects it touched is not listed (an import's undo deletes a million): contexts
        // refresh what they hold, and should be reset when they may hold objects it deleted.
        var changeSet = ChangeSet()
        changeSet.author = author
        changeSet.isAbridged = true
        broadcast(changeSet, from: nil)
        return undone
    }
}

extension LoggedOperation {
    /// Reads `OperationLogSchema.operationColumns`.
    init(row: Statement, storeUUID: String) {
        self.init(
            id: row.int64(at: 0), author: row.value(at: 1).textValue ?? "",
            date: Date(timeIntervalSince1970: row.double(at: 2)),
            inserted: OperationLogSchema.parseCounts(row.value(at: 3).textValue ?? "{}"),
            updated: OperationLogSchema.parseCounts(row.value(at: 4).textValue ?? "{}"),
            deleted: OperationLogSchema.parseCounts(row.value(at: 5).textValue ?? "{}"),
            undoneBy: row.isNull(at: 6) ? nil : row.int64(at: 6), undoes: row.isNull(at: 7) ? nil : row.int64(at: 7),
            historyToken: row.isNull(at: 8) ? nil : HistoryToken(transactionNumber: row.int64(at: 8), storeUUID: storeUUID))
    }
}
