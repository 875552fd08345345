import Foundation
import SQLiteDB

/// A store's schema as SQLite holds it — tables with their columns and `CREATE` text, indexes,
/// triggers — and its entities as `Z_PRIMARYKEY` and the metadata record them: what migration
/// compares with a model.
struct StoredSchema {
    struct Table {
        var name: String
        /// Columns in order, types in capitals.
        var columns: [(name: String, type: String)]
        var sql: String
        var columnNames: [String] { columns.map(\.name) }
        func type(of column: String) -> String? { columns.first { $0.name == column }?.type }
    }

    struct Index {
        var name: String
        var table: String
        var sql: String
        var columns: [String]
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
        for (type, name, table, sql) in master {
            switch type {
            case "table":
                guard !name.hasPrefix("sqlite_") else { continue }
                let columns = try connection.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(name)]) {
                    ($0.string(at: 0) ?? "", ($0.string(at: 1) ?? "").uppercased())
                }
                tables[name] = Table(name: name, columns: columns, sql: sql)
            case "index":
                let columns = try connection.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]) {
                    $0.string(at: 0) ?? ""
                }
                indexes.append(Index(name: name, table: table, sql: sql, columns: columns))
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
