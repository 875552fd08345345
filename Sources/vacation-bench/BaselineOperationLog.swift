import CSQLite
import Foundation
import ObjectGraph

/// What `vacation toggle` writes beside the data, written by hand for the baseline's toggle:
/// the persistent history of the transaction (one `ATRANSACTION` row, its strings interned in
/// `ATRANSACTIONSTRING` as `BaselineHistory` interns them, one `ACHANGE` row per object
/// inserted, updated or deleted, keys from `Z_PRIMARYKEY` 16001–16003) and the operation log
/// (one `UNDO_OPERATION` row with its counts, one `UNDO_ROW` row per run of inserted keys and
/// per updated or deleted row, with its old values as `RowValueCoding` encodes them).
///
/// The toggler tells it each row as it writes it (`inserted`, `updated`, `deleted`, with the
/// old row in the statement that read it); `finish` writes the rows into the open transaction.
/// Runs of inserted keys follow the framework's recorder: consecutive keys of one table make
/// one run, and an update or delete ends every open run.
final class BaselineOperationLog {
    /// `UNDO_ROW.KIND`.
    private enum Kind: Int64 { case inserted = 0, updated = 1, deleted = 2 }

    private struct Record {
        let kind: Kind
        let table: String
        let firstKey: Int64
        var lastKey: Int64
        let values: [UInt8]
    }

    private struct Change {
        let entity: Int64
        let key: Int64
        let columns: [UInt8]?
    }

    private static let changeEntity: Int64 = 16001
    private static let transactionEntity: Int64 = 16002
    private static let stringEntity: Int64 = 16003
    /// Entity number → name, for the operation's counts.
    private static let entityNames: [Int64: String] = [2: "Photo", 3: "Place", 4: "Tag"]

    private let author: String
    private let now: Date
    /// The strings the framework interns for a save of a context named `contextName`: the
    /// bundle identifier (the process name, lacking a bundle), the context's name, the process.
    private let bundle: String
    private let process: String
    private let contextName: String
    private let reserveKeys, findString, insertString, insertTransaction, insertChange, insertOperation, insertRow: RawStatement

    private var records: [Record] = []
    private var openRuns: [String: Int] = [:]
    private var inserts: [Change] = []
    private var updates: [Change] = []
    private var deletes: [Change] = []
    /// Inserted, updated, deleted: entity number → objects.
    private var counts: [[Int64: Int]] = [[:], [:], [:]]

    init(database: RawDatabase, author: String, contextName: String, now: Date) throws {
        self.author = author
        self.contextName = contextName
        self.now = now
        process = ProcessInfo.processInfo.processName
        bundle = Bundle.main.bundleIdentifier ?? process
        reserveKeys = try database.prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX")
        findString = try database.prepare("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")
        insertString = try database.prepare("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 16003, NULL, ?)")
        insertTransaction = try database.prepare("""
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, 16002, NULL, NULL, ?, ?, ?, ?)
            """)
        insertChange = try database.prepare(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, 16001, NULL, ?, ?, ?, ?, ?)")
        insertOperation = try database.prepare("""
            INSERT INTO UNDO_OPERATION (AUTHOR, DATE, SESSION, INSERTED, UPDATED, DELETED, FIRST_TRANSACTION, LAST_TRANSACTION)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ID
            """)
        insertRow = try database.prepare(
            "INSERT INTO UNDO_ROW (OPERATION, SEQUENCE, KIND, TABLE_NAME, FIRST_KEY, LAST_KEY, OLD_VALUES) VALUES (?, ?, ?, ?, ?, ?, ?)")
    }

    /// Makes the operation log's tables in a store that lacks them (the framework's statements).
    static func createTables(in database: RawDatabase) throws {
        for statement in OperationLogSchema.statements { try database.execute(statement) }
    }

    // MARK: Rows as they are written

    /// Row `key` of `table` was inserted; `entity` for an entity table (nil for a join table,
    /// whose `key` is the rowid).
    func inserted(_ table: String, key: Int64, entity: Int64?) {
        if let entity {
            inserts.append(Change(entity: entity, key: key, columns: nil))
            counts[0][entity, default: 0] += 1
        }
        if let index = openRuns[table], records[index].lastKey &+ 1 == key {
            records[index].lastKey = key
        } else {
            openRuns[table] = records.count
            records.append(Record(kind: .inserted, table: table, firstKey: key, lastKey: key, values: []))
        }
    }

    /// Row `key` of `table` is about to be updated; `row` holds its values (every column, in
    /// the table's order, from `first` on); `columns` are the history's bit vector.
    func updated(_ table: String, key: Int64, entity: Int64, columns: [UInt8], row: RawStatement, first: Int32 = 0) {
        updates.append(Change(entity: entity, key: key, columns: columns))
        counts[1][entity, default: 0] += 1
        append(Record(kind: .updated, table: table, firstKey: key, lastKey: key, values: Self.encode(row, from: first)))
    }

    /// Row `key` of `table` is about to be deleted; `row` as for `updated`. `entity` is nil for
    /// a join table's row (`key` its rowid).
    func deleted(_ table: String, key: Int64, entity: Int64?, row: RawStatement, first: Int32 = 0) {
        deleted(table, key: key, entity: entity, values: Self.encode(row, from: first))
    }

    /// `deleted`, with the old values already encoded.
    func deleted(_ table: String, key: Int64, entity: Int64?, values: [UInt8]) {
        if let entity {
            deletes.append(Change(entity: entity, key: key, columns: nil))
            counts[2][entity, default: 0] += 1
        }
        append(Record(kind: .deleted, table: table, firstKey: key, lastKey: key, values: values))
    }

    private func append(_ record: Record) {
        openRuns.removeAll(keepingCapacity: true)
        records.append(record)
    }

    // MARK: Writing

    /// Writes the transaction's history and its operation into the open transaction, then
    /// forgets them for the next toggle.
    func finish() throws {
        defer {
            records.removeAll(keepingCapacity: true)
            openRuns.removeAll(keepingCapacity: true)
            inserts.removeAll(keepingCapacity: true)
            updates.removeAll(keepingCapacity: true)
            deletes.removeAll(keepingCapacity: true)
            counts = [[:], [:], [:]]
        }
        let transaction = try reserve(1, of: Self.transactionEntity)
        insertTransaction.bind(transaction, 0)
        insertTransaction.bind(try intern(bundle), 1)
        insertTransaction.bind(try intern(contextName), 2)
        insertTransaction.bind(try intern(process), 3)
        insertTransaction.bind(Date().timeIntervalSinceReferenceDate, 4)
        try insertTransaction.run()

        // In the framework's order: inserted, updated, deleted, each by entity and key.
        let order = { (left: Change, right: Change) in (left.entity, left.key) < (right.entity, right.key) }
        let changes = [(HistoryChangeType.insert, inserts.sorted(by: order)), (.update, updates.sorted(by: order)),
                       (.delete, deletes.sorted(by: order))]
        var key = try reserve(Int64(inserts.count + updates.count + deletes.count), of: Self.changeEntity)
            - Int64(inserts.count + updates.count + deletes.count) + 1
        for (type, list) in changes {
            for change in list {
                insertChange.bind(key, 0)
                insertChange.bind(type.rawValue, 1)
                insertChange.bind(change.entity, 2)
                insertChange.bind(change.key, 3)
                insertChange.bind(transaction, 4)
                if let columns = change.columns { bind(columns, to: insertChange, at: 5) } else { insertChange.bindNull(5) }
                try insertChange.run()
                key += 1
            }
        }

        insertOperation.bind(author, 0)
        insertOperation.bind(now.timeIntervalSince1970, 1)
        insertOperation.bind(UUID().uuidString, 2)
        for index in 0..<3 { insertOperation.bind(Self.countsText(counts[index]), Int32(3 + index)) }
        insertOperation.bind(transaction, 6)
        insertOperation.bind(transaction, 7)
        guard try insertOperation.step() else {
            insertOperation.reset()
            throw BenchError("toggle: the baseline's operation got no ID")
        }
        let operation = insertOperation.int64(0)
        insertOperation.reset()
        for (sequence, record) in records.enumerated() {
            insertRow.bind(operation, 0)
            insertRow.bind(Int64(sequence), 1)
            insertRow.bind(record.kind.rawValue, 2)
            insertRow.bind(record.table, 3)
            insertRow.bind(record.firstKey, 4)
            insertRow.bind(record.lastKey, 5)
            if record.kind == .inserted { insertRow.bindNull(6) } else { bind(record.values, to: insertRow, at: 6) }
            try insertRow.run()
        }
    }

    /// Raises `entity`'s `Z_MAX` by `count` and returns the new maximum.
    private func reserve(_ count: Int64, of entity: Int64) throws -> Int64 {
        reserveKeys.bind(count, 0)
        reserveKeys.bind(entity, 1)
        defer { reserveKeys.reset() }
        guard try reserveKeys.step() else { throw BenchError("toggle: the baseline's store lacks key counter \(entity)") }
        return reserveKeys.int64(0)
    }

    /// The key of `name` in `ATRANSACTIONSTRING`, added when missing.
    private func intern(_ name: String) throws -> Int64 {
        findString.bind(name, 0)
        let found = try findString.step() ? findString.int64(0) : nil
        findString.reset()
        if let found { return found }
        let key = try reserve(1, of: Self.stringEntity)
        insertString.bind(key, 0)
        insertString.bind(name, 1)
        try insertString.run()
        return key
    }

    private func bind(_ bytes: [UInt8], to statement: RawStatement, at index: Int32) {
        _ = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob(statement.handle, index + 1, buffer.baseAddress, Int32(buffer.count),
                              unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self))
        }
    }

    /// `{"Photo":1,"Tag":2}`: names in order, entities with no change left out (as the
    /// framework writes them; the names need no escaping).
    static func countsText(_ counts: [Int64: Int]) -> String {
        let members = counts.filter { $0.value != 0 }.map { (Self.entityNames[$0.key] ?? "\($0.key)", $0.value) }
            .sorted { $0.0 < $1.0 }.map { "\"\($0.0)\":\($0.1)" }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The columns of `row` from `first` on, as `RowValueCoding` encodes values: a tag byte
    /// (0 NULL, 1 integer, 2 real, 3 text, 4 blob), then 8 bytes little-endian for numbers, or
    /// a 4-byte little-endian length and the bytes for text and blobs.
    static func encode(_ row: RawStatement, from first: Int32 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        func append(_ number: UInt64, count: Int) {
            for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: number >> (8 * UInt64(index)))) }
        }
        let handle = row.handle
        for column in first..<row.columnCount {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER:
                bytes.append(1)
                append(UInt64(bitPattern: sqlite3_column_int64(handle, column)), count: 8)
            case SQLITE_FLOAT:
                bytes.append(2)
                append(sqlite3_column_double(handle, column).bitPattern, count: 8)
            case SQLITE_TEXT, SQLITE_BLOB:
                let isText = sqlite3_column_type(handle, column) == SQLITE_TEXT
                let start = isText ? UnsafeRawPointer(sqlite3_column_text(handle, column)) : sqlite3_column_blob(handle, column)
                let count = Int(sqlite3_column_bytes(handle, column))
                bytes.append(isText ? 3 : 4)
                append(UInt64(count), count: 4)
                if let start { bytes.append(contentsOf: UnsafeRawBufferPointer(start: start, count: count)) }
            default:
                bytes.append(0)
            }
        }
        return bytes
    }

    /// Integers alone, encoded as `encode` encodes a row of them (a join table's row).
    static func encode(integers: [Int64]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in integers {
            bytes.append(1)
            for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * UInt64(index)))) }
        }
        return bytes
    }
}
