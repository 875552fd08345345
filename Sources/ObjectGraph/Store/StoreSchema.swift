import Foundation
import SQLiteDB

/// The SQL that Core Data would write for a model: tables, indexes and bookkeeping tables.
struct StoreSchema {
    let model: ObjectModel

    func columns(ofTable table: String) -> [ObjectModel.Column] { model.columns(ofTable: table) }

    func createTableSQL(_ table: String) -> String {
        let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            + self.columns(ofTable: table).map { "\($0.name) \($0.type)" }
        return "CREATE TABLE \(table) ( \(columns.joined(separator: ", ")) )"
    }

    func createJoinTableSQL(_ joinTable: ObjectModel.JoinTable) -> String {
        "CREATE TABLE \(joinTable.name) ( \(joinTable.sourceColumn) INTEGER, \(joinTable.destinationColumn) INTEGER, "
            + "PRIMARY KEY (\(joinTable.sourceColumn), \(joinTable.destinationColumn)) )"
    }

    /// Index name → CREATE statement, for a table's to-one keys, indexed attributes, `Z_ENT`
    /// of hierarchies and uniqueness constraints.
    func indexes(ofTable table: String) -> [(name: String, sql: String)] {
        var result: [(String, String)] = []
        let entities = model.entities.filter { $0.table == table }
        for entity in entities {
            for attribute in entity.attributes where attribute.declaringEntity == entity.number && attribute.declaration.isIndexed {
                guard let column = attribute.column else { continue }
                let name = "\(table)_\(column)_INDEX"
                result.append((name, "CREATE INDEX \(name) ON \(table) (\(column))"))
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                guard case .foreignKey(let column, _) = relationship.storage else { continue }
                let name = "\(table)_\(column)_INDEX"
                result.append((name, "CREATE INDEX \(name) ON \(table) (\(column))"))
            }
        }
        // A to-many without an inverse: its hidden key is indexed like a to-one's.
        for hidden in model.hiddenKeys where hidden.table == table {
            let name = "\(table)_\(hidden.column)_INDEX"
            result.append((name, "CREATE INDEX \(name) ON \(table) (\(hidden.column))"))
        }
        if entities.count > 1 {
            let name = "\(table)_Z_ENT_INDEX"
            result.append((name, "CREATE INDEX \(name) ON \(table) (Z_ENT)"))
        }
        for entity in entities {
            // Constraints are declared once, by the entity that introduces them.
            let inherited = entity.parent.map { model[$0].uniquenessConstraints } ?? []
            for constraint in entity.uniquenessConstraints where !inherited.contains(constraint) {
                let attributes = constraint.map { entity.attributes[$0] }
                let columns = attributes.compactMap(\.column)
                guard columns.count == attributes.count else { continue }
                let name = "Z_\(entity.name.uppercased())_UNIQUE_" + attributes.map { $0.name.uppercased() }.joined(separator: "_")
                result.append((name, "CREATE UNIQUE INDEX \(name) ON \(table) (\(columns.joined(separator: ", ")))"))
            }
        }
        return result
    }

    func joinTableIndex(_ joinTable: ObjectModel.JoinTable) -> (name: String, sql: String) {
        let name = "\(joinTable.name)_\(joinTable.destinationColumn)_INDEX"
        return (name, "CREATE INDEX \(name) ON \(joinTable.name) (\(joinTable.destinationColumn), \(joinTable.sourceColumn))")
    }

    var tables: [String] { model.rootEntities.map(\.table) }

    /// Every statement that creates an empty store for the model.
    func creationStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            statements.append(createTableSQL(table))
        }
        for joinTable in model.joinTables {
            statements.append(createJoinTableSQL(joinTable))
        }
        for table in tables {
            statements += indexes(ofTable: table).map(\.sql)
        }
        for joinTable in model.joinTables {
            statements.append(joinTableIndex(joinTable).sql)
        }
        statements.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        statements.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        for index in model.searchIndexes { statements += SearchIndexSchema(index: index).creationStatements }
        return statements
    }
}
