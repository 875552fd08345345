import Foundation
import SQLiteDB

/// Reverts a logged operation inside one transaction (`StoreCoordinator.undoLatestOperation`).
///
/// Its records are applied newest first, each inverted: a run of inserted keys is deleted, an
/// updated row gets its old values back, a deleted row is inserted again with its old values and
/// key. Every row the operation touched is then as it was before it (the tables' triggers keep
/// the search index in step). `Z_PRIMARYKEY` is left alone: the keys the operation handed out
/// are not handed out again.
///
/// The undo is itself an operation (its author, `UNDOES` naming the one it reverted), logged
/// with counts but without rows: an undo is not undone in turn (a second undo reverts the
/// operation before), so it keeps nothing to revert itself, and the undo of a million-photo
/// import holds no million rows.
struct OperationUndo {
    let store: SQLiteStore
    let recorder: OperationRecorder

    /// The latest operation neither undone nor an undo, reverted; nil when there is none.
    func undoLatest(author: String) throws -> LoggedOperation? {
        let connection = store.connection
        // Inside another transaction, the undo would join its operation (and could not be
        // committed alone): it is an operation of its own.
        guard connection.isAutocommit else { throw StoreError("an undo cannot run inside another transaction") }
        guard try connection.tableExists("UNDO_OPERATION") else { return nil }
        let previousAuthor = recorder.author
        defer {
            // Whatever follows is an operation of its own, by the author the store had.
            recorder.startOperation(author: previousAuthor)
            recorder.keepsRows = true
        }
        return try connection.transaction(.immediate) { () throws -> LoggedOperation? in
            guard let target = try latestUndoable(on: connection) else { return nil }
            recorder.startOperation(author: author, undoes: target.id)
            recorder.keepsRows = false
            var changes = HistoryChanges()
            try revert(target.id, on: connection, collecting: store.history != nil, into: &changes)
            // The undo's own history transaction, as a save's: the objects it brought back,
            // wrote back and took away (later changes of an object win, as in `record`).
            try store.history?.record(inserted: changes.inserted, updated: changes.updated.map { ($0, changes.keys($0, in: store.model)) },
                                      deleted: changes.deleted, tombstones: [:], author: author, contextName: nil)
            let undo = try recorder.ensureOperation(on: connection)
            try recorder.flush(on: connection)
            try connection.execute("UPDATE UNDO_OPERATION SET UNDONE_BY = ? WHERE ID = ?", [.integer(undo), .integer(target.id)])
            return target
        }
    }

    private func latestUndoable(on connection: Connection) throws -> LoggedOperation? {
        let columns = OperationLogSchema.operationColumns(hasTransactions: try OperationLogSchema.hasTransactionColumns(on: connection))
        return try connection.rows("""
            SELECT \(columns) FROM UNDO_OPERATION
            WHERE UNDONE_BY IS NULL AND UNDOES IS NULL ORDER BY ID DESC LIMIT 1
            """) { row in
            LoggedOperation(row: row, storeUUID: store.uuid)
        }.first
    }

    /// A table's columns as the store has them now, and whether `rowid` is one of them.
    private struct TableShape {
        let columns: [String]
        let hasIntegerKey: Bool
    }

    private func shape(of table: String, on connection: Connection, cache: inout [String: TableShape]) throws -> TableShape {
        if let known = cache[table] { return known }
        let info = try connection.rows("SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
            ($0.value(at: 0).textValue ?? "", ($0.value(at: 1).textValue ?? "").uppercased(), $0.int(at: 2))
        }
        guard !info.isEmpty else { throw StoreError("the operation log names the table \(table), which the store does not have") }
        let keys = info.filter { $0.2 > 0 }
        let shape = TableShape(columns: info.map(\.0), hasIntegerKey: keys.count == 1 && keys[0].1 == "INTEGER")
        cache[table] = shape
        return shape
    }

    /// The objects an undo changed, for its history.
    struct HistoryChanges {
        var inserted: [ObjectID] = []
        var updated: [ObjectID] = []
        var deleted: [ObjectID] = []

        func keys(_ id: ObjectID, in model: ObjectModel) -> Set<String> {
            Set(model.entity(number: id.entityNumber)?.attributes.map(\.name) ?? [])
        }
    }

    private func revert(_ operation: Int64, on connection: Connection, collecting: Bool, into changes: inout HistoryChanges) throws {
        var shapes: [String: TableShape] = [:]
        let records = try connection.prepare("""
            SELECT KIND, TABLE_NAME, FIRST_KEY, LAST_KEY, OLD_VALUES FROM UNDO_ROW WHERE OPERATION = ? ORDER BY SEQUENCE DESC
            """)
        records.bind([.integer(operation)])
        // Join rows the operation inserted are deleted after the entity rows inserted beside
        // them (no update or delete between): a join row's search trigger rebuilds its object's
        // index row while the object is there, once per link, and does nothing once it is gone.
        // Among inserts the order does not matter to the rows.
        var deferredLinks: [(table: String, first: Int64, last: Int64)] = []
        func deleteDeferredLinks() throws {
            for run in deferredLinks {
                try connection.cachedStatement("DELETE FROM \(quoteIdentifier(run.table)) WHERE rowid BETWEEN ? AND ?")
                    .run([.integer(run.first), .integer(run.last)])
            }
            deferredLinks.removeAll()
        }
        try records.forEachRow { row in
            let table = row.value(at: 1).textValue ?? ""
            let shape = try shape(of: table, on: connection, cache: &shapes)
            let (first, last) = (row.int64(at: 2), row.int64(at: 3))
            let quoted = quoteIdentifier(table)
            let isEntityTable = recorder.tables[table]?.entityColumn != nil && shape.columns.count > 1
            let kind = row.int64(at: 0)
            if kind == OperationRecorder.Record.Kind.inserted.rawValue && recorder.tables[table]?.entityColumn == nil {
                deferredLinks.append((table, first, last))
                return
            }
            if kind != OperationRecorder.Record.Kind.inserted.rawValue { try deleteDeferredLinks() }
            switch kind {
            case OperationRecorder.Record.Kind.inserted.rawValue:
                if collecting && isEntityTable {
                    let ids = try connection.cachedStatement("SELECT Z_PK, Z_ENT FROM \(quoted) WHERE rowid BETWEEN ? AND ?")
                    ids.bind([.integer(first), .integer(last)])
                    try ids.forEachRow { changes.deleted.append(ObjectID(entityNumber: $0.int(at: 1), primaryKey: $0.int64(at: 0))) }
                }
                try connection.cachedStatement("DELETE FROM \(quoted) WHERE rowid BETWEEN ? AND ?").run([.integer(first), .integer(last)])
            case OperationRecorder.Record.Kind.updated.rawValue, OperationRecorder.Record.Kind.deleted.rawValue:
                guard case .blob(let data) = row.value(at: 4) else { throw StoreError("the operation log holds a row without its values") }
                let values = try RowValueCoding.decode(data)
                guard values.count == shape.columns.count else {
                    throw StoreError("the operation log's rows of \(table) do not match its columns (the store was migrated since)")
                }
                let columns = shape.columns.map(quoteIdentifier)
                let id = isEntityTable && collecting ? values[1].integerValue.map { ObjectID(entityNumber: Int($0), primaryKey: first) } : nil
                if kind == OperationRecorder.Record.Kind.updated.rawValue {
                    if let id { changes.updated.append(id) }
                    let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
                    try connection.cachedStatement("UPDATE \(quoted) SET \(assignments) WHERE rowid = ?").run(values + [.integer(first)])
                } else if shape.hasIntegerKey {
                    if let id { changes.inserted.append(id) }
                    let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
                    try connection.cachedStatement("INSERT INTO \(quoted) (\(columns.joined(separator: ", "))) VALUES (\(marks))").run(values)
                } else {
                    let marks = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
                    try connection.cachedStatement("INSERT INTO \(quoted) (rowid, \(columns.joined(separator: ", "))) VALUES (\(marks))")
                        .run([.integer(first)] + values)
                }
            default:
                throw StoreError("the operation log holds a record of an unknown kind")
            }
        }
        try deleteDeferredLinks()
    }
}
