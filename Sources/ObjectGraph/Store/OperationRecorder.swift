import Foundation
import SQLiteDB

/// Records what each write to a store changes, so that an operation can be reverted exactly
/// (`StoreCoordinator.recordOperations(author:)`, `undoLatestOperation`).
///
/// SQLite's pre-update hook reports every row the store's connection changes in the model's
/// tables (entity and join tables; triggers' writes too). Updated and deleted rows are kept
/// with their old values; inserted rows only by key, in runs of consecutive keys, so that an
/// import of a million photos holds a handful of runs, not a million rows. What is recorded is
/// written to `UNDO_ROW` inside the same transaction: at each savepoint's release (every save
/// of a transaction of several) and just before COMMIT. A commit that would carry records not
/// written (a statement run outside any transaction) is refused and rolls back.
///
/// Not recorded: `Z_PRIMARYKEY` (undo never lowers `Z_MAX`: keys are never handed out twice,
/// as in Core Data), `Z_METADATA`, the search index (its triggers rewrite it from the rows undo
/// restores), the log's own tables.
final class OperationRecorder {
    /// A table whose rows are recorded.
    struct Table {
        let name: String
        /// The column that holds the entity number (`Z_ENT`), for entity tables.
        let entityColumn: Int?
        /// The INTEGER PRIMARY KEY column (`Z_PK`), which is the rowid.
        let keyColumn: Int?
    }

    /// One change kept until it is written: a run of inserted keys, or a row's old values.
    struct Record {
        enum Kind: Int64 { case inserted = 0, updated = 1, deleted = 2 }
        let kind: Kind
        let table: String
        let firstKey: Int64
        var lastKey: Int64
        let values: [SQLiteValue]
    }

    /// What an operation changed, object by object, for its counts.
    struct Tally {
        /// Runs of keys inserted, per table.
        var insertedRuns: [String: [ClosedRange<Int64>]] = [:]
        var inserted: [Int: Int] = [:]
        /// Rows updated or deleted that the operation did not insert: key → entity number.
        var updated: [String: [Int64: Int]] = [:]
        var deleted: [String: [Int64: Int]] = [:]

        func wasInserted(_ key: Int64, in table: String) -> Bool {
            insertedRuns[table]?.contains { $0.contains(key) } ?? false
        }

        mutating func noteInserted(_ key: Int64, in table: String, entity: Int?) {
            if let entity { inserted[entity, default: 0] += 1 }
            var runs = insertedRuns.removeValue(forKey: table) ?? []
            if let last = runs.last, last.upperBound &+ 1 == key {
                runs[runs.count - 1] = last.lowerBound...key
            } else {
                runs.append(key...key)
            }
            insertedRuns[table] = runs
        }

        mutating func noteUpdated(_ key: Int64, in table: String, entity: Int?) {
            guard let entity, !wasInserted(key, in: table) else { return }
            updated[table, default: [:]][key] = entity
        }

        mutating func noteDeleted(_ key: Int64, in table: String, entity: Int?) {
            guard let entity else { return }
            if wasInserted(key, in: table) {
                inserted[entity, default: 0] -= 1
                return
            }
            updated[table]?.removeValue(forKey: key)
            deleted[table, default: [:]][key] = entity
        }

        /// Entity number → count, for each of inserted, updated, deleted.
        var counts: (inserted: [Int: Int], updated: [Int: Int], deleted: [Int: Int]) {
            func grouped(_ keys: [String: [Int64: Int]]) -> [Int: Int] {
                var result: [Int: Int] = [:]
                for table in keys.values { for entity in table.values { result[entity, default: 0] += 1 } }
                return result
            }
            return (inserted.filter { $0.value > 0 }, grouped(updated), grouped(deleted))
        }
    }

    /// Everything a rollback may have to put back.
    struct State {
        /// The operation this recorder's records go to; nil until its first records are written.
        var operationID: Int64?
        var nextSequence: Int64 = 0
        var pending: [Record] = []
        /// Where each table's open run of inserts is in `pending` (none past an update or delete).
        var openRuns: [String: Int] = [:]
        var tally = Tally()
        /// Counts written by an earlier recorder of the same operation (a store opened again).
        var earlierCounts: [[String: Int]] = [[:], [:], [:]]
        /// Changes counted and not written yet, while rows are not kept (an undo's).
        var plainCounts: [[Int: Int]] = [[:], [:], [:]]
        var hasUnwrittenCounts = false
        /// The persistent-history transactions the operation wrote (`ATRANSACTION` keys), first
        /// and last; nil in a store without history, or before its first.
        var transactions: ClosedRange<Int64>?
    }

    let tables: [String: Table]
    /// Entity number → name, for the counts.
    let entityNames: [Int: String]
    var author: String
    /// The operation an undo reverts (written with the undo's own operation).
    var undoes: Int64?
    /// False while an undo runs: its changes are counted, not kept (an undo is not undone).
    var keepsRows = true
    /// Identifies this recorder's operation across transactions (and other recorders of this
    /// process that join it: `sessionKey`).
    var sessionKey: String
    /// True when `sessionKey` was made by `startOperation`, so that no operation of the log has it.
    private var sessionIsNew = false
    /// `RowChange.tableNumber` → the table recorded under that name (`.some(nil)`: a table not
    /// recorded); nil where the number was not seen yet.
    private var tablesByNumber: [Table??] = []
    let now: () -> Date
    var state = State()
    /// The state when the open transaction began, and at each open savepoint.
    private var committed = State()
    private var savepoints: [State] = []
    /// Set when a flush failed: the transaction must not commit without its records.
    private var flushFailure: Error?
    /// Whether the log's tables are known to be there (made, or found, by a flush whose
    /// transaction did not roll back): a flush then need not look for them again.
    private var hasTables = false

    init(tables: [Table], entityNames: [Int: String], author: String, sessionKey: String, now: @escaping () -> Date) {
        self.tables = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.entityNames = entityNames
        self.author = author
        self.sessionKey = sessionKey
        self.now = now
    }

    /// What commits next belongs to a new operation (or, with the session of the latest one,
    /// joins it). Without `session`, a new one is made here: no logged operation can hold it,
    /// so the first flush need not look for one to join.
    func startOperation(author: String, session: String? = nil, undoes: Int64? = nil) {
        self.author = author
        self.sessionKey = session ?? UUID().uuidString
        sessionIsNew = session == nil
        self.undoes = undoes
        state.operationID = nil
        state.nextSequence = 0
        state.tally = Tally()
        state.earlierCounts = [[:], [:], [:]]
        state.plainCounts = [[:], [:], [:]]
        state.hasUnwrittenCounts = false
        state.transactions = nil
    }

    // MARK: Recording (inside SQLite's hook: no use of the connection here)

    func record(_ change: borrowing RowChange) {
        guard let table = table(of: change) else {
            // The history transaction each commit writes: the operation's token is its last.
            if change.kind == .insert && change.table == "ATRANSACTION" {
                let key = change.newKey
                state.transactions = state.transactions.map { min($0.lowerBound, key)...max($0.upperBound, key) } ?? key...key
                state.hasUnwrittenCounts = true
            }
            return
        }
        guard keepsRows else {
            // An undo's changes: each row once, so plain counts are the objects'.
            guard let column = table.entityColumn else { return }
            let value = change.kind == .insert ? change.newValue(at: column) : change.oldValue(at: column)
            guard let entity = value.integerValue.map(Int.init) else { return }
            let index = change.kind == .insert ? 0 : change.kind == .update ? 1 : 2
            state.plainCounts[index][entity, default: 0] += 1
            state.hasUnwrittenCounts = true
            return
        }
        switch change.kind {
        case .insert:
            let entity = table.entityColumn.flatMap { change.newValue(at: $0).integerValue }.map(Int.init)
            state.tally.noteInserted(change.newKey, in: table.name, entity: entity)
            if let index = state.openRuns[table.name], state.pending[index].lastKey &+ 1 == change.newKey {
                state.pending[index].lastKey = change.newKey
            } else {
                state.openRuns[table.name] = state.pending.count
                state.pending.append(Record(kind: .inserted, table: table.name, firstKey: change.newKey, lastKey: change.newKey, values: []))
            }
        case .update, .delete:
            var values: [SQLiteValue] = []
            let count = change.columnCount
            values.reserveCapacity(count)
            for column in 0..<count {
                values.append(column == table.keyColumn ? .integer(change.oldKey) : change.oldValue(at: column))
            }
            let entity = table.entityColumn.flatMap { $0 < values.count ? values[$0].integerValue : nil }.map(Int.init)
            let kind: Record.Kind = change.kind == .update ? .updated : .deleted
            if kind == .updated {
                state.tally.noteUpdated(change.oldKey, in: table.name, entity: entity)
                if change.newKey != change.oldKey {
                    // A row moved to another key: undo deletes the new one, and puts the old back.
                    state.tally.noteInserted(change.newKey, in: table.name, entity: nil)
                    appendRecord(Record(kind: .inserted, table: table.name, firstKey: change.newKey, lastKey: change.newKey, values: []))
                    appendRecord(Record(kind: .deleted, table: table.name, firstKey: change.oldKey, lastKey: change.oldKey, values: values))
                    return
                }
            } else {
                state.tally.noteDeleted(change.oldKey, in: table.name, entity: entity)
            }
            appendRecord(Record(kind: kind, table: table.name, firstKey: change.oldKey, lastKey: change.oldKey, values: values))
        }
    }

    /// The recorded table `change` is in, nil for a table not recorded; found by the name's
    /// number after the first row of each table (hashing the name at every row cost more
    /// than the rest of noting an insert).
    private func table(of change: borrowing RowChange) -> Table? {
        let number = change.tableNumber
        guard number >= 0 else { return tables[change.table] }
        if number < tablesByNumber.count, let known = tablesByNumber[number] { return known }
        let table = tables[change.table]
        if number >= tablesByNumber.count { tablesByNumber += Array(repeating: nil, count: number + 1 - tablesByNumber.count) }
        tablesByNumber[number] = .some(table)
        return table
    }

    private func appendRecord(_ record: Record) {
        // Inserts on either side of an update or delete must be undone in their order to it.
        state.openRuns.removeAll(keepingCapacity: true)
        state.pending.append(record)
    }

    // MARK: Transactions

    func savepointBegan() { savepoints.append(state) }

    func savepointReleased() { _ = savepoints.popLast() }

    func savepointRolledBack() {
        if let saved = savepoints.popLast() { state = saved }
        hasTables = false
    }

    func transactionBegan() {
        committed = state
        savepoints.removeAll()
        flushFailure = nil
    }

    func transactionCommitted() {
        committed = state
        savepoints.removeAll()
    }

    func transactionRolledBack() {
        state = committed
        savepoints.removeAll()
        flushFailure = nil
        // The tables may have been made by the transaction that rolled back.
        hasTables = false
    }

    /// True when nothing recorded is left unwritten (asked by SQLite's commit hook).
    var mayCommit: Bool { state.pending.isEmpty && flushFailure == nil }

    // MARK: Writing the records

    /// Writes the pending records and the operation's counts into the open transaction.
    func flush(on connection: Connection) throws {
        guard !state.pending.isEmpty || state.hasUnwrittenCounts else { return }
        do {
            try createTables(on: connection)
            // The records are all in: the counts are known before any row is written, so that a
            // new operation's row goes in whole, where updating it afterwards took two statements more.
            let existing = try existingOperationID(on: connection)
            let counts = countTexts()
            let operation = try existing ?? insertOperation(on: connection, counts: counts, transactions: state.transactions)
            let insert = try connection.cachedStatement(
                "INSERT INTO UNDO_ROW (OPERATION, SEQUENCE, KIND, TABLE_NAME, FIRST_KEY, LAST_KEY, OLD_VALUES) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for record in state.pending {
                insert.bind(operation, at: 0)
                insert.bind(state.nextSequence, at: 1)
                insert.bind(record.kind.rawValue, at: 2)
                insert.bind(record.table, at: 3)
                insert.bind(record.firstKey, at: 4)
                insert.bind(record.lastKey, at: 5)
                if record.kind == .inserted { insert.bindNull(at: 6) } else { insert.bind(RowValueCoding.encode(record.values), at: 6) }
                try insert.run()
                state.nextSequence += 1
            }
            state.pending.removeAll()
            state.openRuns.removeAll()
            state.hasUnwrittenCounts = false
            guard existing != nil else { return }
            try connection.execute("UPDATE UNDO_OPERATION SET INSERTED = ?, UPDATED = ?, DELETED = ? WHERE ID = ?",
                                   counts.map(SQLiteValue.text) + [.integer(operation)])
            if let transactions = state.transactions {
                // A recorder that joined the operation (the store opened again) keeps its first.
                try connection.execute(
                    "UPDATE UNDO_OPERATION SET FIRST_TRANSACTION = min(coalesce(FIRST_TRANSACTION, ?1), ?1), "
                        + "LAST_TRANSACTION = max(coalesce(LAST_TRANSACTION, ?2), ?2) WHERE ID = ?3",
                    [.integer(transactions.lowerBound), .integer(transactions.upperBound), .integer(operation)])
            }
        } catch {
            flushFailure = error
            throw error
        }
    }

    /// The operation's ID, its row written first when needed.
    func ensureOperation(on connection: Connection) throws -> Int64 {
        try createTables(on: connection)
        return try operationID(on: connection)
    }

    private func createTables(on connection: Connection) throws {
        guard !hasTables else { return }
        try OperationLogSchema.create(on: connection)
        hasTables = true
    }

    /// The operation's ID: this recorder's, the latest operation when it is this session's
    /// (a command that opened the store again), or a new one.
    private func operationID(on connection: Connection) throws -> Int64 {
        if let id = try existingOperationID(on: connection) { return id }
        return try insertOperation(on: connection, counts: nil, transactions: nil)
    }

    /// This recorder's operation, or the latest of the log when it is this session's (a command
    /// that opened the store again, which then joins it); nil when a new one is needed.
    private func existingOperationID(on connection: Connection) throws -> Int64? {
        if let id = state.operationID { return id }
        guard !sessionIsNew, undoes == nil else { return nil }
        let latest = try connection.rows("SELECT ID, SESSION, INSERTED, UPDATED, DELETED FROM UNDO_OPERATION ORDER BY ID DESC LIMIT 1") { row in
            (row.int64(at: 0), row.value(at: 1).textValue, (2...4).map { column in row.value(at: column).textValue ?? "{}" })
        }.first
        guard let latest, latest.1 == sessionKey else { return nil }
        state.operationID = latest.0
        state.earlierCounts = latest.2.map(OperationLogSchema.parseCounts)
        state.nextSequence = (try connection.scalar("SELECT max(SEQUENCE) + 1 FROM UNDO_ROW WHERE OPERATION = ?",
                                                    [.integer(latest.0)])?.integerValue) ?? 0
        return latest.0
    }

    /// Writes a new operation's row (with its counts and transactions when they are known) and
    /// makes it this recorder's.
    private func insertOperation(on connection: Connection, counts: [String]?, transactions: ClosedRange<Int64>?) throws -> Int64 {
        let counts = counts ?? ["{}", "{}", "{}"]
        let insert = try connection.cachedStatement("""
            INSERT INTO UNDO_OPERATION (AUTHOR, DATE, SESSION, UNDOES, INSERTED, UPDATED, DELETED, FIRST_TRANSACTION, LAST_TRANSACTION) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insert.bind(author, at: 0)
        insert.bind(now().timeIntervalSince1970, at: 1)
        insert.bind(sessionKey, at: 2)
        if let undoes { insert.bind(undoes, at: 3) } else { insert.bindNull(at: 3) }
        for (index, text) in counts.enumerated() { insert.bind(text, at: 4 + index) }
        if let transactions {
            insert.bind(transactions.lowerBound, at: 7)
            insert.bind(transactions.upperBound, at: 8)
        } else {
            insert.bindNull(at: 7)
            insert.bindNull(at: 8)
        }
        try insert.run()
        let id = connection.lastInsertRowID
        state.operationID = id
        state.nextSequence = 0
        return id
    }

    /// The operation's counts as `UNDO_OPERATION` keeps them: inserted, updated, deleted.
    private func countTexts() -> [String] {
        let counts = state.tally.counts
        let plain = state.plainCounts
        return [counts.inserted.merging(plain[0], uniquingKeysWith: +), counts.updated.merging(plain[1], uniquingKeysWith: +),
                counts.deleted.merging(plain[2], uniquingKeysWith: +)].enumerated().map { index, byNumber in
            var byName = state.earlierCounts[index]
            for (number, count) in byNumber { byName[entityNames[number] ?? "\(number)", default: 0] += count }
            return OperationLogSchema.countsText(byName)
        }
    }
}
