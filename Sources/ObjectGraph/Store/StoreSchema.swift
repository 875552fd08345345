import Foundation
import SQLiteDB

/// An index as Core Data writes it into a store. Two kinds, as Apple's stores show them:
///
/// - *key* indexes, one per to-one key, indexed attribute, join table and hierarchy table's
///   `Z_ENT`: `CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)`;
/// - *declared* indexes, from the model's uniqueness constraints and fetch indexes, named by the
///   declaring entity as the model spells it, every column `COLLATE BINARY` with its order:
///   `CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)`,
///   `CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)`.
struct StoreIndex: Equatable {
    struct Column: Equatable {
        var name: String
        var isAscending = true
    }

    let name: String
    let table: String
    let columns: [Column]
    let isUnique: Bool
    /// Declared indexes spell a collation and an order for each column; key indexes do not.
    let isDeclared: Bool

    /// A key index `<TABLE>_<COLUMN>_INDEX` on `columns`, named after the first.
    static func key(table: String, columns: [String]) -> StoreIndex {
        StoreIndex(name: "\(table)_\(columns.first ?? "")_INDEX", table: table, columns: columns.map { Column(name: $0) },
                   isUnique: false, isDeclared: false)
    }

    /// The uniqueness constraint `attributes` of `entity`: `Z_<Entity>_UNIQUE_<attribute>_<attribute>…`.
    static func uniqueness(entity: String, table: String, attributes: [(name: String, column: String)]) -> StoreIndex {
        StoreIndex(name: "Z_\(entity)_UNIQUE_" + attributes.map(\.name).joined(separator: "_"), table: table,
                   columns: attributes.map { Column(name: $0.column) }, isUnique: true, isDeclared: true)
    }

    /// The fetch index `index` of `entity`: `Z_<Entity>_<name>`.
    static func fetchIndex(_ index: FetchIndex, entity: String, table: String) -> StoreIndex {
        StoreIndex(name: "Z_\(entity)_\(index.name)", table: table,
                   columns: index.elements.map { Column(name: $0.column, isAscending: $0.isAscending) },
                   isUnique: false, isDeclared: true)
    }

    /// The `CREATE INDEX` statement, spelled exactly as Core Data spells it.
    var sql: String {
        let list = columns.map { column in
            isDeclared ? "\(column.name) COLLATE BINARY \(column.isAscending ? "ASC" : "DESC")" : column.name
        }
        return "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(name) ON \(table) (\(list.joined(separator: ", ")))"
    }
}

/// The SQL that Core Data would write for a model: tables, indexes and bookkeeping tables.
struct StoreSchema {
    let model: ObjectModel

    func columns(ofTable table: String) -> [ObjectModel.Column] { model.columns(ofTable: table) }

    func createTableSQL(_ table: String) -> String {
        Self.createTableSQL(table, columns: columns(ofTable: table).map { ($0.name, $0.type) })
    }

    /// `CREATE TABLE T ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, <columns> )`.
    static func createTableSQL(_ table: String, columns: [(name: String, type: String)]) -> String {
        let definitions = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + columns.map { "\($0.name) \($0.type)" }
        return "CREATE TABLE \(table) ( \(definitions.joined(separator: ", ")) )"
    }

    func createJoinTableSQL(_ joinTable: ObjectModel.JoinTable) -> String {
        Self.createJoinTableSQL(joinTable.name, sourceColumn: joinTable.sourceColumn,
                                destinationColumn: joinTable.destinationColumn, orderColumns: [])
    }

    /// A join table: both key columns, then the order columns of ordered relationships.
    static func createJoinTableSQL(_ table: String, sourceColumn: String, destinationColumn: String,
                                   orderColumns: [String]) -> String {
        let definitions = [sourceColumn, destinationColumn].map { "\($0) INTEGER" } + orderColumns.map { "\($0) INTEGER" }
        return "CREATE TABLE \(table) ( \(definitions.joined(separator: ", ")), PRIMARY KEY (\(sourceColumn), \(destinationColumn)) )"
    }

    /// A table's indexes, in the order Core Data creates them: entity by entity, indexed
    /// attributes and to-one keys; the `Z_ENT` index of a table holding a hierarchy; then each
    /// entity's fetch indexes and the uniqueness constraints it introduces.
    func storeIndexes(ofTable table: String) -> [StoreIndex] {
        var result: [StoreIndex] = []
        let entities = model.entities.filter { $0.table == table }
        for entity in entities {
            for attribute in entity.attributes where attribute.declaringEntity == entity.number && attribute.declaration.isIndexed {
                guard let column = attribute.column else { continue }
                result.append(.key(table: table, columns: [column]))
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                guard case .foreignKey(let column, _) = relationship.storage else { continue }
                result.append(.key(table: table, columns: [column]))
            }
        }
        // A to-many without an inverse: its hidden key is indexed like a to-one's.
        for hidden in model.hiddenKeys where hidden.table == table {
            result.append(.key(table: table, columns: [hidden.column]))
        }
        if entities.count > 1 {
            result.append(.key(table: table, columns: ["Z_ENT"]))
        }
        for entity in entities {
            for index in entity.storedFetchIndexes {
                result.append(.fetchIndex(index, entity: entity.name, table: table))
            }
            // Constraints are declared once, by the entity that introduces them.
            let inherited = entity.parent.map { model[$0].uniquenessConstraints } ?? []
            for constraint in entity.uniquenessConstraints where !inherited.contains(constraint) {
                let attributes = constraint.map { entity.attributes[$0] }
                let columns = attributes.compactMap(\.column)
                guard columns.count == attributes.count else { continue }
                result.append(.uniqueness(entity: entity.name, table: table,
                                          attributes: zip(attributes, columns).map { ($0.name, $1) }))
            }
        }
        var seen: Set<String> = []
        return result.filter { seen.insert($0.name).inserted }
    }

    /// Index name → CREATE statement, for a table (see `storeIndexes(ofTable:)`).
    func indexes(ofTable table: String) -> [(name: String, sql: String)] {
        storeIndexes(ofTable: table).map { ($0.name, $0.sql) }
    }

    /// The index of a join table on its destination then source keys; none for a reflexive
    /// relationship's table, whose primary key serves both directions (as in Apple's stores).
    func joinTableIndex(_ joinTable: ObjectModel.JoinTable) -> (name: String, sql: String)? {
        guard joinTable.destinationColumn != ObjectModel.JoinTable.reflexiveColumn else { return nil }
        let index = StoreIndex.key(table: joinTable.name, columns: [joinTable.destinationColumn, joinTable.sourceColumn])
        return (index.name, index.sql)
    }

    var tables: [String] { model.rootEntities.map(\.table) }

    /// Every index the model's store has, by name: hierarchy tables' then join tables'.
    func allIndexes() -> [(name: String, sql: String)] {
        tables.flatMap { indexes(ofTable: $0) } + model.joinTables.compactMap { joinTableIndex($0) }
    }

    /// `Z_PRIMARYKEY` and `Z_METADATA`, as a new store gets them.
    var bookkeepingTables: [(name: String, sql: String)] {
        [
            ("Z_PRIMARYKEY", "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"),
            ("Z_METADATA", "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"),
        ]
    }

    /// Every statement that creates an empty store for the model.
    func creationStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            statements.append(createTableSQL(table))
        }
        for joinTable in model.joinTables {
            statements.append(createJoinTableSQL(joinTable))
        }
        statements += allIndexes().map(\.sql)
        statements += bookkeepingTables.map(\.sql)
        for index in model.searchIndexes { statements += SearchIndexSchema(index: index).creationStatements }
        return statements
    }
}
