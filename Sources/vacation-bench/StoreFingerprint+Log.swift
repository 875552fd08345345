import CSQLite
import Foundation

extension StoreFingerprint {
    /// The operation log and the history it covers, as tables of the fingerprint:
    ///
    /// - `UNDO_OPERATION`: every column but `SESSION` (a random identifier of the process that
    ///   wrote the operation); `FIRST_TRANSACTION` and `LAST_TRANSACTION` counted from the
    ///   log's first transaction.
    /// - `UNDO_ROW`: every column but `SEQUENCE` (the framework writes a save's updates and
    ///   deletes in the order its context holds them, which is a hash order: two runs of the
    ///   framework itself differ there); `OLD_VALUES` value by value with `Z_OPT`'s left out, as
    ///   everywhere; for a join table's rows, whose keys are SQLite rowids (not content: the
    ///   fingerprint leaves them out of the join tables too), the length of the run instead of
    ///   its keys.
    /// - `ATRANSACTION (logged)`: the transactions from the log's first on, every column but
    ///   `ZTIMESTAMP` (the clock at commit), strings by their text, keys counted from the first.
    /// - `ACHANGE (logged)`: their changes, every column, keys counted from the first of them.
    /// - `Z_PRIMARYKEY (history)`: the change and transaction counters, counted alike.
    static func loggedHistory(in database: RawDatabase) throws -> [Table] {
        var tables: [Table] = []
        let keepsHistory = try database.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('ACHANGE', 'ATRANSACTION')") == 2
        let base = try database.integer("SELECT coalesce(min(FIRST_TRANSACTION), 0) FROM UNDO_OPERATION")
        tables.append(try hash(
            select: "ID, AUTHOR, DATE, INSERTED, UPDATED, DELETED, UNDONE_BY, UNDOES, FIRST_TRANSACTION - \(base), LAST_TRANSACTION - \(base)",
            from: "UNDO_OPERATION", as: "UNDO_OPERATION", in: database))
        tables.append(try hashRows(in: database))
        guard keepsHistory else { return tables }
        let firstChange = try database.integer("SELECT coalesce(min(Z_PK), 0) FROM ACHANGE WHERE ZTRANSACTIONID >= \(base)")
        let string = { (column: String) in "(SELECT ZNAME FROM ATRANSACTIONSTRING s WHERE s.Z_PK = t.\(column))" }
        tables.append(try hash(
            select: "Z_PK - \(base), Z_ENT, \(string("ZAUTHORTS")), \(string("ZBUNDLEIDTS")), \(string("ZCONTEXTNAMETS")), "
                + "\(string("ZPROCESSIDTS")), ZAUTHOR, ZBUNDLEID, ZCONTEXTNAME, ZPROCESSID, ZQUERYGEN",
            from: "ATRANSACTION t WHERE Z_PK >= \(base)", as: "ATRANSACTION (logged)", in: database))
        tables.append(try hash(
            select: "Z_PK - \(firstChange) AS CHANGE_OFFSET, ZTRANSACTIONID - \(base) AS TRANSACTION_OFFSET, *",
            from: "ACHANGE WHERE ZTRANSACTIONID >= \(base)", as: "ACHANGE (logged)", in: database, ignoring: ["Z_PK", "ZTRANSACTIONID"]))
        tables.append(try hash(
            select: "Z_ENT, Z_MAX - CASE Z_ENT WHEN 16001 THEN \(firstChange) ELSE \(base) END",
            from: "Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002)", as: "Z_PRIMARYKEY (history)", in: database))
        return tables
    }

    /// `UNDO_ROW`, as `loggedHistory` describes.
    private static func hashRows(in database: RawDatabase) throws -> Table {
        // Per table the log names: where `Z_OPT` is in its rows, and whether its keys are rowids.
        var layouts: [String: (version: Int?, isJoinTable: Bool)] = [:]
        let columns = try database.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid")
        func layout(of table: String) throws -> (version: Int?, isJoinTable: Bool) {
            if let known = layouts[table] { return known }
            columns.bind(table, 0)
            var names: [String] = []
            while try columns.step() { names.append(columns.string(0) ?? "") }
            columns.reset()
            let found = (version: names.firstIndex(of: "Z_OPT"), isJoinTable: !names.contains("Z_PK"))
            layouts[table] = found
            return found
        }
        let rows = try database.prepare("SELECT OPERATION, KIND, TABLE_NAME, FIRST_KEY, LAST_KEY, OLD_VALUES FROM UNDO_ROW")
        var table = Table(name: "UNDO_ROW", rows: 0, hash: 0)
        while try rows.step() {
            var row = RowHasher()
            for column in Int32(0)..<3 { row.add(rows, column) }
            let shape = try layout(of: rows.string(2) ?? "")
            if shape.isJoinTable {
                row.add(integer: rows.int64(4) &- rows.int64(3))
            } else {
                row.add(rows, 3)
                row.add(rows, 4)
            }
            if rows.isNull(5) {
                row.add(rows, 5)
            } else if let blob = sqlite3_column_blob(rows.handle, 5) {
                let bytes = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(rows.handle, 5)))
                if let values = valueRanges(bytes) {
                    for (index, range) in values.enumerated() where index != shape.version {
                        row.add(bytes: UnsafeRawBufferPointer(rebasing: bytes[range]))
                    }
                } else {
                    // Not `RowValueCoding`'s: compared byte for byte, and any difference shows.
                    row.add(bytes: bytes)
                }
            }
            table.rows += 1
            table.hash &+= row.finished
        }
        return table
    }

    /// Where each value of a `RowValueCoding` blob lies (its tag byte included); nil when the
    /// blob is not one it wrote.
    static func valueRanges(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var position = 0
        while position < bytes.count {
            let start = position
            switch bytes[position] {
            case 0: position += 1
            case 1, 2: position += 9
            case 3, 4:
                guard position + 5 <= bytes.count else { return nil }
                var length = 0
                for index in 0..<4 { length |= Int(bytes[position + 1 + index]) << (8 * index) }
                position += 5 + length
            default: return nil
            }
            guard position <= bytes.count else { return nil }
            ranges.append(start..<position)
        }
        return ranges
    }

    /// Throws unless each store logged `operations` operations, each in one history transaction
    /// of its own (nothing else committed after the log began) with its changes and its rows:
    /// what keeps the comparison of logs from passing when neither side writes one.
    static func requireLoggedToggles(_ ours: String, _ other: String, operations: Int, otherSide: String = "baseline") throws {
        for (side, path) in [("ours", ours), (otherSide, other)] {
            let database = try RawDatabase(path: path, readOnly: true)
            let logged = try database.integer("SELECT count(*) FROM UNDO_OPERATION")
            let base = try database.integer("SELECT coalesce(min(FIRST_TRANSACTION), 0) FROM UNDO_OPERATION")
            let transactions = try database.integer("SELECT count(*) FROM ATRANSACTION WHERE Z_PK >= \(base)")
            let incomplete = try database.integer("""
                SELECT count(*) FROM UNDO_OPERATION o WHERE FIRST_TRANSACTION IS NULL OR FIRST_TRANSACTION != LAST_TRANSACTION
                    OR NOT EXISTS (SELECT 1 FROM ATRANSACTION t WHERE t.Z_PK = o.FIRST_TRANSACTION)
                    OR NOT EXISTS (SELECT 1 FROM ACHANGE c WHERE c.ZTRANSACTIONID = o.FIRST_TRANSACTION)
                    OR NOT EXISTS (SELECT 1 FROM UNDO_ROW r WHERE r.OPERATION = o.ID)
                """)
            guard logged == operations, transactions == operations, incomplete == 0 else {
                throw BenchError("toggle: \(side) logged \(logged) operations in \(transactions) history transactions, "
                                 + "\(incomplete) of them without their own transaction, changes or rows; expected \(operations)")
            }
        }
    }
}
