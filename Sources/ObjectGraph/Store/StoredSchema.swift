import Foundation
import SQLiteDB

/// A store's schema as SQLite holds it — tables with their columns and `CREATE` text, indexes,
/// triggers — and its entities as `Z_PRIMARYKEY` and the metadata record them: what migration
/// compares with a model.
package struct StoredSchema {
    struct Table {
        var name: String
        /// Columns in order, types in capitals; empty for a table whose name is neither of
        /// Core Data's naming nor a history table (a plan never reads those: see `init`).
        var columns: [(name: String, type: String)]
        var sql: String
        var columnNames: [String] { columns.map(\.name) }
        func type(of column: String) -> String? { columns.first { $0.name == column }?.type }
    }

    /// An index; its columns are read only when a plan needs them (`columns(ofIndex:on:)`):
    /// every `pragma_index_info` query prepares a statement of its own inside SQLite, and a
    /// store with nothing to migrate never needs them.
    struct Index {
        var name: String
        var table: String
        var sql: String
    }

    struct Trigger {
        var name: String
        var table: String
        var sql: String
    }

    /// One row of `Z_PRIMARYKEY` for an entity of the model (not Core Data's own, 16000 and up).
    struct EntityRow: Equatable {
        var number: Int
        /// `Z_NAME`: Core Data leaves it as it was when an entity is renamed.
        var name: String
        /// The name the store's version hashes know the entity by, when it differs from `name`.
        var currentName: String?
        var parent: Int
        var maximumKey: Int64
    }

    /// Tables outside Core Data's `Z…` naming whose columns a plan reads (`planHistoryRenumbering`).
    static let historyTables: Set<String> = ["ACHANGE", "ANSCKRECORDMETADATA"]

    /// The column types `StoreSchema` writes.
    private static let writtenTypes: [[UInt8]] = ["INTEGER", "FLOAT", "DECIMAL", "TIMESTAMP", "VARCHAR", "BLOB"].map { Array($0.utf8) }
    private static let keyDefinitions: [[UInt8]] = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"].map { Array($0.utf8) }

    /// The columns of `table` read from its `CREATE TABLE` text when that text is exactly what
    /// `StoreSchema` writes for an entity's table or a join table (names of Core Data's naming,
    /// the types it writes: nothing SQLite could read otherwise); nil for any other text.
    /// Writing the columns found must give the same text again. Byte by byte: Swift's and
    /// Foundation's string splitting cost more than reading the columns from SQLite.
    package static func columnsWrittenByStoreSchema(table: String, sql: String) -> [(name: String, type: String)]? {
        let prefix = Array("CREATE TABLE \(table) ( ".utf8), suffix = Array(" )".utf8)
        let text = Array(sql.utf8)
        guard text.count > prefix.count + suffix.count, text.starts(with: prefix), text.suffix(suffix.count).elementsEqual(suffix) else {
            return nil
        }
        let body = text[prefix.count..<(text.count - suffix.count)]
        var parts: [ArraySlice<UInt8>] = []
        var start = body.startIndex
        var index = body.startIndex
        while index < body.endIndex - 1 {
            if body[index] == UInt8(ascii: ","), body[index + 1] == UInt8(ascii: " ") {
                parts.append(body[start..<index])
                start = index + 2
                index += 2
            } else {
                index += 1
            }
        }
        parts.append(body[start...])
        func column(_ part: ArraySlice<UInt8>) -> (name: String, type: String)? {
            guard let space = part.firstIndex(of: UInt8(ascii: " ")), space > part.startIndex,
                  part[part.startIndex] == UInt8(ascii: "Z"), part[..<space].allSatisfy(isNameByte) else { return nil }
            let type = part[(space + 1)...]
            guard writtenTypes.contains(where: { $0.elementsEqual(type) }) else { return nil }
            return (String(decoding: part[..<space], as: UTF8.self), String(decoding: type, as: UTF8.self))
        }
        var columns: [(name: String, type: String)] = []
        if parts.count >= 3, zip(parts, keyDefinitions).allSatisfy({ $0.elementsEqual($1) }) {
            for part in parts.dropFirst(3) {
                guard let found = column(part) else { return nil }
                columns.append(found)
            }
            guard StoreSchema.createTableSQL(table, columns: columns) == sql else { return nil }
            return [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")] + columns
        }
        // A join table: its key columns, its order columns, `PRIMARY KEY (<key>, <key>)`.
        guard parts.count >= 4 else { return nil }
        for part in parts.dropLast(2) {
            guard let found = column(part), found.type == "INTEGER" else { return nil }
            columns.append(found)
        }
        guard StoreSchema.createJoinTableSQL(table, sourceColumn: columns[0].name, destinationColumn: columns[1].name,
                                             orderColumns: columns.dropFirst(2).map(\.name)) == sql else { return nil }
        return columns
    }

    /// A byte of a name of Core Data's naming: capitals, digits, underscores.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }

    /// Core Data numbers its own entities (persistent history, CloudKit mirroring) from 16001.
    static let firstPrivateEntityNumber = 16000

    var tables: [String: Table] = [:]
    var indexes: [Index] = []
    var triggers: [Trigger] = []
    var entities: [EntityRow] = []

    /// The schema on `connection`; `versionHashes` are the store's `NSStoreModelVersionHashes`
    /// (they name renamed entities).
    init(connection: Connection, versionHashes: [String: Data]) throws {
        let master = try connection.rows(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid") {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "", $0.string(at: 2) ?? "", $0.string(at: 3) ?? "")
        }
        // Columns are read only for the tables a plan can look at: Core Data's (entities'
        // `Z<NAME>`, join tables `Z_<n><NAME>`, `Z_PRIMARYKEY`…) and the history tables that
        // record entity numbers. Other tables (search indexes and their shadow tables, an
        // app's own) keep no columns here: every `pragma_table_info` prepares a statement inside
        // SQLite, and reading them all was a tenth of opening a store. Tables whose text is
        // exactly what `StoreSchema` writes are read from that text.
        var columnsByTable: [String: [(name: String, type: String)]] = [:]
        for (type, name, _, sql) in master where type == "table" && (name.hasPrefix("Z") || Self.historyTables.contains(name)) {
            columnsByTable[name] = try Self.columnsWrittenByStoreSchema(table: name, sql: sql)
                ?? connection.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(name)]) {
                    ($0.string(at: 0) ?? "", ($0.string(at: 1) ?? "").uppercased())
                }
        }
        for (type, name, table, sql) in master {
            switch type {
            case "table":
                guard !name.hasPrefix("sqlite_") else { continue }
                tables[name] = Table(name: name, columns: columnsByTable[name] ?? [], sql: sql)
            case "index":
                indexes.append(Index(name: name, table: table, sql: sql))
            case "trigger":
                triggers.append(Trigger(name: name, table: table, sql: sql))
            default:
                continue
            }
        }
        guard tables["Z_PRIMARYKEY"] != nil else { return }
        entities = try connection.rows(
            "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < ? ORDER BY Z_ENT",
            [.integer(Int64(Self.firstPrivateEntityNumber))]) {
            EntityRow(number: $0.int(at: 0), name: $0.string(at: 1) ?? "", currentName: nil, parent: $0.int(at: 2),
                      maximumKey: $0.int64(at: 3))
        }
        let hashed = Set(versionHashes.keys)
        Self.pairRenamedEntities(&entities, hashedNames: hashed)
    }

    /// The columns of the index `name`, in order.
    static func columns(ofIndex name: String, on connection: Connection) throws -> [String] {
        try connection.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]) { $0.string(at: 0) ?? "" }
    }

    /// Core Data keeps a renamed entity's old `Z_NAME`, while the store's version hashes name it
    /// as the model does: when exactly one row's name is missing from the hashes and exactly one
    /// hashed name from the rows, they are the same entity.
    static func pairRenamedEntities(_ entities: inout [EntityRow], hashedNames: Set<String>) {
        let names = Set(entities.map(\.name))
        let unmatchedRows = entities.indices.filter { !hashedNames.contains(entities[$0].name) }
        let unmatchedNames = hashedNames.subtracting(names)
        guard unmatchedRows.count == 1, unmatchedNames.count == 1, let row = unmatchedRows.first else { return }
        entities[row].currentName = unmatchedNames.first
    }

    /// The row of the entity named `name` (its `Z_NAME` or the name its hash records).
    func entity(named name: String) -> EntityRow? {
        entities.first { $0.name == name } ?? entities.first { $0.currentName == name }
    }

    func entity(number: Int) -> EntityRow? { entities.first { $0.number == number } }

    /// The table of the hierarchy that entity `number` belongs to, by the names its root answers to.
    func tableCandidates(ofEntity number: Int) -> [String] {
        var root = entity(number: number)
        var seen: Set<Int> = []
        while let current = root, current.parent != 0, seen.insert(current.number).inserted, let parent = entity(number: current.parent) {
            root = parent
        }
        guard let root else { return [] }
        return [root.currentName, root.name].compactMap { $0 }.map { ColumnLayout.tableName($0) }
    }

    func indexes(on table: String) -> [Index] { indexes.filter { $0.table == table } }
    /// The triggers on `table` that a rewrite must make again: the search index's are left to
    /// `SearchIndexPlan`, which drops them before any table moves and remakes them after.
    func triggers(on table: String) -> [Trigger] {
        triggers.filter { $0.table == table && !SearchIndexPlan.isOurTrigger($0.name) }
    }
}

extension String {
    /// The name without trailing digits: `Z_24TAGS1` → `Z_24TAGS` (Core Data numbers clashing names).
    var withoutTrailingDigits: String {
        // SQL names are ASCII: trim their bytes (walking characters backwards cost more than
        // the rest of planning a store's join tables). Other text keeps the character walk.
        let bytes = utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(reversed().drop { $0.isASCII && $0.isNumber }.reversed()) }
        var end = bytes.endIndex
        while end > bytes.startIndex {
            let before = bytes.index(before: end)
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[before]) else { break }
            end = before
        }
        return String(self[..<end])
    }
}
