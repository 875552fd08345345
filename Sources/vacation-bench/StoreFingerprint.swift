import CSQLite
import Foundation

/// A store's whole content, hashed: how the bench knows that two sides did the same work.
///
/// Every table but SQLite's own and the store's identity (`Z_METADATA`, whose UUID and creation
/// differ by design, and `Z_MODELCACHE`) is read row by row, and every value of every column
/// but `Z_OPT` goes into the row's hash, with its storage class: integers, reals by their bits,
/// text and blobs byte for byte. Rows are combined in an order-independent way (a sum of mixed
/// row hashes), so that two stores holding the same rows under the same keys match whatever
/// order SQLite keeps them in. `Z_OPT` is left out because it counts saves, and the framework
/// saves an import in chunks where the baseline writes each row once. The schema (every table,
/// index and trigger with its SQL) is compared too.
///
/// A full-text index is compared by what it holds, not by how it is laid out: its rows (the
/// virtual table's columns, so its `_content` and `_docsize` tables too) and every term
/// instance (term, row, column, offset, through `fts5vocab`), but not its `_data` and `_idx`
/// tables, whose segments depend on how the rows were written (a row at a time, or one
/// `INSERT … SELECT`). The triggers that keep an index (named after it) are left out of the
/// schema: the baseline and the floor write the index by hand instead.
///
/// Once a store keeps an operation log (the toggle figure turns it on), the history the log
/// covers is compared too (`loggedHistory`): every operation, every row of it, and the history
/// transactions and changes from the log's first transaction on, with keys taken relative to
/// where the log begins (the imports before it wrote different numbers of transactions).
struct StoreFingerprint: Equatable, CustomStringConvertible {
    /// Columns whose values legitimately differ between the two sides.
    static let ignoredColumns: Set<String> = ["Z_OPT"]
    /// Columns of one table that legitimately differ (none now that history is left out).
    static let ignoredTableColumns: [String: Set<String>] = [:]
    /// Tables that are the store's identity rather than its content, and persistent history,
    /// which records how the rows were written rather than what they are: ours writes a
    /// transaction for the vacation's creation and a change per object per chunk saved, the
    /// baseline and the floor one transaction and a change per row they write
    /// (`BaselineHistory`) — comparable work, not the same rows.
    static let ignoredTables: Set<String> = ["Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]
    /// Rows of one table left out, as SQL conditions: the history's key counters.
    static let keptRows: [String: String] = ["Z_PRIMARYKEY": "Z_ENT < 16000"]
    /// The operation log's tables, compared by `loggedHistory` rather than row for row.
    static let logTables: Set<String> = ["UNDO_OPERATION", "UNDO_ROW"]

    struct Table: Equatable {
        var name: String
        var rows: Int
        var hash: UInt64
    }

    var schema: UInt64
    var tables: [Table]

    var description: String {
        "schema \(String(schema, radix: 16)); "
            + tables.map { "\($0.name): \($0.rows) rows \(String($0.hash, radix: 16))" }.joined(separator: ", ")
    }

    /// Reads the store at `path` (read-only; WAL content included).
    static func of(_ path: String) throws -> StoreFingerprint {
        let database = try RawDatabase(path: path, readOnly: true)
        var schemaHash = RowHasher()
        let schema = try database.prepare(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        // Tables come before triggers (ORDER BY type), so an index's name is known by the time
        // its triggers are read.
        var fullTextIndexes: [String] = []
        var tableNames: [String] = []
        while try schema.step() {
            let type = schema.string(0) ?? "", name = schema.string(1) ?? ""
            if type == "trigger" && fullTextIndexes.contains(where: { name.hasPrefix($0 + "_") }) { continue }
            for column in 0..<schema.columnCount { schemaHash.add(schema, column) }
            guard type == "table", !ignoredTables.contains(name), !logTables.contains(name) else { continue }
            if schema.string(3)?.range(of: "USING fts5", options: .caseInsensitive) != nil {
                fullTextIndexes.append(name)
            } else {
                tableNames.append(name)
            }
        }
        let layoutTables = Set(fullTextIndexes.flatMap { [$0 + "_data", $0 + "_idx"] })
        tableNames.removeAll { layoutTables.contains($0) }
        var tables: [Table] = []
        for name in fullTextIndexes {
            tables.append(try hash(select: "rowid, *", from: quoted(name), as: name, in: database))
            let vocabulary = "fingerprint_vocabulary_\(tables.count)"
            try database.execute("CREATE VIRTUAL TABLE temp.\(vocabulary) USING fts5vocab(main, \(quoted(name)), 'instance')")
            tables.append(try hash(select: "*", from: "temp.\(vocabulary)", as: name + " (terms)", in: database))
        }
        for name in tableNames {
            let condition = keptRows[name].map { " WHERE \($0)" } ?? ""
            tables.append(try hash(select: "*", from: quoted(name) + condition, as: name, in: database))
        }
        if try database.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('UNDO_OPERATION', 'UNDO_ROW')") == 2 {
            tables += try loggedHistory(in: database)
        }
        return StoreFingerprint(schema: schemaHash.finished, tables: tables)
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Every row of `SELECT columns FROM table`, hashed as `name`, but for the columns named in
    /// `ignoring` (and `Z_OPT`).
    static func hash(select columns: String, from table: String, as name: String, in database: RawDatabase,
                             ignoring: Set<String> = []) throws -> Table {
        let statement = try database.prepare("SELECT \(columns) FROM \(table)")
        let ignored = ignoredColumns.union(ignoredTableColumns[name] ?? []).union(ignoring)
        let kept = (0..<statement.columnCount).filter { column in
            !ignored.contains(sqlite3_column_name(statement.handle, column).map { String(cString: $0) } ?? "")
        }
        var table = Table(name: name, rows: 0, hash: 0)
        while try statement.step() {
            var row = RowHasher()
            for column in kept { row.add(statement, column) }
            table.rows += 1
            table.hash &+= row.finished
        }
        return table
    }

    /// Throws, naming the tables that differ, unless the two stores hold the same content.
    static func requireEqual(_ ours: String, _ other: String, figure: String, otherSide: String = "baseline") throws {
        let (left, right) = (try of(ours), try of(other))
        guard left != right else { return }
        var differences: [String] = []
        if left.schema != right.schema { differences.append("the schemas") }
        let rightTables = Dictionary(right.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for table in left.tables where rightTables[table.name] != table {
            let other = rightTables[table.name].map { "\($0.rows) rows" } ?? "no such table"
            differences.append("\(table.name) (ours \(table.rows) rows, \(otherSide) \(other))")
        }
        let leftNames = Set(left.tables.map(\.name))
        for table in right.tables where !leftNames.contains(table.name) { differences.append("\(table.name) (only the \(otherSide)'s)") }
        throw BenchError("\(figure): the stores differ from the \(otherSide)'s in \(differences.joined(separator: ", "))")
    }
}

/// FNV-1a over a row's values, each prefixed by its storage class (and text and blobs by their
/// length, so that adjacent values cannot run into each other), finished with a 64-bit mixer so
/// that summing rows spreads well.
struct RowHasher {
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    private mutating func add(byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    private mutating func add(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func add(_ statement: RawStatement, _ column: Int32) {
        let type = sqlite3_column_type(statement.handle, column)
        add(byte: UInt8(truncatingIfNeeded: type))
        switch type {
        case SQLITE_INTEGER:
            add(UInt64(bitPattern: sqlite3_column_int64(statement.handle, column)))
        case SQLITE_FLOAT:
            add(sqlite3_column_double(statement.handle, column).bitPattern)
        case SQLITE_TEXT, SQLITE_BLOB:
            let bytes = type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(statement.handle, column))
                : sqlite3_column_blob(statement.handle, column)
            let count = Int(sqlite3_column_bytes(statement.handle, column))
            add(UInt64(count))
            if let bytes {
                for byte in UnsafeRawBufferPointer(start: bytes, count: count) { add(byte: byte) }
            }
        default:
            break
        }
    }

    /// Adds an integer as `add(_:_:)` adds an integer column.
    mutating func add(integer: Int64) {
        add(byte: UInt8(truncatingIfNeeded: SQLITE_INTEGER))
        add(UInt64(bitPattern: integer))
    }

    /// Adds bytes as they are, after their count.
    mutating func add(bytes: UnsafeRawBufferPointer) {
        add(UInt64(bytes.count))
        for byte in bytes { add(byte: byte) }
    }

    /// Adds a string (or its absence) as `add(_:_:)` adds a text column.
    mutating func add(text: String?) {
        guard var text else {
            add(byte: UInt8(truncatingIfNeeded: SQLITE_NULL))
            return
        }
        add(byte: UInt8(truncatingIfNeeded: SQLITE_TEXT))
        text.withUTF8 { bytes in
            add(UInt64(bytes.count))
            for byte in bytes { add(byte: byte) }
        }
    }

    var finished: UInt64 {
        var value = state
        value ^= value >> 33
        value = value &* 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value = value &* 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }
}
