import Foundation
import ObjectGraph
import SQLiteDB

/// What a Core Data store holds, read from SQLite's catalog and Core Data's bookkeeping
/// tables alone, without a model: entities from `Z_PRIMARYKEY`, tables, columns, indexes.
///
/// ```swift
/// let catalog = try StoreCatalog(connection: connection)
/// catalog.entries.map(\.name)      // ["Account", "AccountGroup", …]
/// ```
struct StoreCatalog {
    /// One row of `Z_PRIMARYKEY`.
    struct Entry: Equatable {
        var number: Int
        var name: String
        /// `Z_SUPER`: the parent's number, 0 for a root.
        var parent: Int
        var maximumKey: Int64
    }

    struct Column: Equatable {
        var name: String
        /// The declared type in capitals (`INTEGER`, `VARCHAR`, …).
        var type: String
    }

    struct Index: Equatable {
        var name: String
        var table: String
        var columns: [String]
        var isUnique: Bool
    }

    let entries: [Entry]
    /// Every table by name, its columns in declaration order.
    let tables: [String: [Column]]
    /// Indexes declared with `CREATE INDEX`, by name.
    let indexes: [String: Index]

    /// Reads the catalog.
    ///
    /// - Throws: `StoreError` when the database has no `Z_PRIMARYKEY` or `Z_METADATA` table,
    ///   `SQLiteError` when it cannot be read.
    init(connection: Connection) throws {
        let tableNames = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
        guard tableNames.contains("Z_PRIMARYKEY"), tableNames.contains("Z_METADATA") else {
            throw StoreError("\(connection.path) is not a Core Data store (no Z_PRIMARYKEY and Z_METADATA tables)")
        }
        entries = try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
            Entry(number: $0.int(at: 0), name: $0.string(at: 1) ?? "", parent: $0.int(at: 2), maximumKey: $0.int64(at: 3))
        }
        var tables: [String: [Column]] = [:]
        for name in tableNames {
            tables[name] = try connection.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(name)]) {
                Column(name: $0.string(at: 0) ?? "", type: ($0.string(at: 1) ?? "").uppercased())
            }
        }
        self.tables = tables
        var indexes: [String: Index] = [:]
        let declared = try connection.rows(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
        }
        for (name, table) in declared {
            let columns = try connection.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]) {
                $0.string(at: 0) ?? ""
            }
            let isUnique = try connection.scalar("SELECT \"unique\" FROM pragma_index_list(?) WHERE name = ?",
                                                 [.text(table), .text(name)])?.integerValue == 1
            indexes[name] = Index(name: name, table: table, columns: columns, isUnique: isUnique)
        }
        self.indexes = indexes
    }

    /// The table Core Data keeps a root entity's hierarchy in.
    static func tableName(ofRoot name: String) -> String { ColumnLayout.tableName(name) }

    /// The single-column index Core Data makes for an indexed attribute or a to-one key.
    func hasColumnIndex(table: String, column: String) -> Bool {
        guard let index = indexes["\(table)_\(column)_INDEX"] else { return false }
        return index.table == table && index.columns == [column] && !index.isUnique
    }
}
