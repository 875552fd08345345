import Foundation
import SQLiteDB

extension PlanWork {
    // MARK: Join tables

    /// Each many-to-many's join table: kept, rewritten under its new name and columns (entity
    /// renumbering, renamed relationships, a side that now owns it), or created. Order columns
    /// (`Z_FOK_…`) of ordered relationships go along with their key columns.
    mutating func planJoinTables() throws {
        for joinTable in model.joinTables {
            claimed.insert(joinTable.name)
            guard let found = storedJoinTable(for: joinTable) else {
                tables.add(schema.createJoinTableSQL(joinTable))
                rewritten.insert(joinTable.name)
                continue
            }
            claimed.insert(found.table.name)
            var orderColumns: [(name: String, old: String)] = []
            for column in found.table.columnNames where column.hasPrefix("Z_FOK_") {
                let keyColumn = "Z_" + column.dropFirst("Z_FOK_".count)
                if keyColumn == found.source { orderColumns.append(("Z_FOK_" + joinTable.sourceColumn.dropFirst(2), column)) }
                if keyColumn == found.destination { orderColumns.append(("Z_FOK_" + joinTable.destinationColumn.dropFirst(2), column)) }
            }
            let sql = StoreSchema.createJoinTableSQL(joinTable.name, sourceColumn: joinTable.sourceColumn,
                                                     destinationColumn: joinTable.destinationColumn,
                                                     orderColumns: orderColumns.map(\.name))
            let names = [joinTable.sourceColumn, joinTable.destinationColumn] + orderColumns.map(\.name)
            let olds = [found.source, found.destination] + orderColumns.map(\.old)
            if found.table.name == joinTable.name && found.table.columnNames == names && names == olds {
                if found.table.sql != sql { rewriteJoinTable(joinTable.name, from: found.table.name, names: names, olds: olds, sql: sql, kind: .schema) }
                continue
            }
            rewriteJoinTable(joinTable.name, from: found.table.name, names: names, olds: olds, sql: sql, kind: .data)
        }
    }

    private mutating func rewriteJoinTable(_ table: String, from source: String, names: [String], olds: [String], sql: String,
                                           kind: Plan.Kind) {
        if source == table {
            savedIndexes += stored.indexes(on: table).filter { !Self.isCoreDataIndexName($0.name) }
            savedTriggers += stored.triggers(on: table)
            let copy = "temp.ZMIGRATION_\(table)"
            tables.add("CREATE TABLE \(copy) AS SELECT * FROM \(table)", kind: kind)
            tables.add("DROP TABLE \(table)", kind: kind)
            tables.add(sql, kind: kind)
            tables.add("INSERT INTO \(table) (\(names.joined(separator: ", "))) SELECT \(olds.joined(separator: ", ")) FROM \(copy)", kind: kind)
            tables.add("DROP TABLE \(copy)", kind: kind)
        } else {
            tables.add(sql, kind: kind)
            tables.add("INSERT INTO \(table) (\(names.joined(separator: ", "))) SELECT \(olds.joined(separator: ", ")) FROM \(source)", kind: kind)
            tables.add("DROP TABLE \(source)", kind: kind)
        }
        rewritten.insert(table)
    }

    /// The stored join table holding `joinTable`'s pairs — under its own name, or the name the
    /// old numbers, old relationship names or the other side gave it — and which of its columns
    /// holds the source's keys and which the destination's.
    private func storedJoinTable(for joinTable: ObjectModel.JoinTable) -> (table: StoredSchema.Table, source: String, destination: String)? {
        let owner = model[joinTable.sourceEntity]
        guard let relationship = owner.relationship(named: joinTable.relationship) else { return nil }
        let destination = model[relationship.destination]
        let inverseName = relationship.declaration.inverse ?? relationship.name
        let inverse = destination.relationship(named: inverseName)
        let isReflexive = joinTable.destinationColumn == ObjectModel.JoinTable.reflexiveColumn
        // Names each side's key column may have had: Z_<number><name of the relationship pointing at it>.
        var ownerKeys: Set<String> = ["Z_\(owner.number)" + inverseName.uppercased()]
        var destinationKeys: Set<String> = isReflexive ? [ObjectModel.JoinTable.reflexiveColumn]
            : ["Z_\(destination.number)" + relationship.name.uppercased()]
        var names = [joinTable.name]
        let oldOwner = mapping.previous[owner.number]?.number
        let oldDestination = mapping.previous[destination.number]?.number
        let oldRelationship = (relationship.declaration.renamingIdentifier ?? relationship.name).uppercased()
        let oldInverse = (inverse?.declaration.renamingIdentifier ?? inverseName).uppercased()
        for ownerNumber in [owner.number, oldOwner].compactMap({ $0 }) {
            for inverse in [inverseName.uppercased(), oldInverse] { ownerKeys.insert("Z_\(ownerNumber)" + inverse) }
            for name in [relationship.name.uppercased(), oldRelationship] { names.append("Z_\(ownerNumber)" + name) }
        }
        for destinationNumber in [destination.number, oldDestination].compactMap({ $0 }) where !isReflexive {
            for name in [relationship.name.uppercased(), oldRelationship] { destinationKeys.insert("Z_\(destinationNumber)" + name) }
            for inverse in [inverseName.uppercased(), oldInverse] { names.append("Z_\(destinationNumber)" + inverse) }
        }
        var seen: Set<String> = []
        for name in names where seen.insert(name).inserted {
            guard let table = stored.tables[name], table.columns.count >= 2, !claimed.contains(name) || name == joinTable.name else { continue }
            let keys = table.columnNames.filter { !$0.hasPrefix("Z_FOK_") }
            guard keys.count == 2 else { continue }
            if ownerKeys.contains(keys[0].withoutTrailingDigits) || keys[0] == joinTable.sourceColumn,
               destinationKeys.contains(keys[1].withoutTrailingDigits) || keys[1] == joinTable.destinationColumn {
                return (table, keys[0], keys[1])
            }
            if ownerKeys.contains(keys[1].withoutTrailingDigits), destinationKeys.contains(keys[0].withoutTrailingDigits) {
                return (table, keys[1], keys[0])
            }
        }
        return nil
    }

    // MARK: Tables no longer used

    /// Drops the tables of removed entities and the join tables of removed relationships: only
    /// tables Core Data's naming identifies (others — an app's own, R-trees — stay).
    mutating func planDroppedTables() {
        var candidates: Set<String> = []
        for row in stored.entities where row.parent == 0 {
            for table in [row.currentName, row.name].compactMap({ $0 }).map(ColumnLayout.tableName) where stored.tables[table] != nil {
                candidates.insert(table)
            }
        }
        for (name, table) in stored.tables where Self.looksLikeJoinTable(name: name, columns: table.columnNames) {
            candidates.insert(name)
        }
        for table in candidates.subtracting(claimed).sorted() {
            drops.add("DROP TABLE \(table)")
        }
    }

    /// `Z_<n><NAME>` whose first two columns are `Z_<n><NAME>` keys (or `REFLEXIVE`).
    static func looksLikeJoinTable(name: String, columns: [String]) -> Bool {
        func isKey(_ column: String) -> Bool {
            guard column.hasPrefix("Z_"), !column.hasPrefix("Z_FOK_") else { return column == ObjectModel.JoinTable.reflexiveColumn }
            let rest = column.dropFirst(2)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            return !digits.isEmpty && rest.count > digits.count
        }
        guard isKey(name), columns.count >= 2 else { return false }
        return isKey(columns[0]) && isKey(columns[1])
    }

    // MARK: History

    /// Core Data's own tables that record entity numbers follow a renumbering: persistent
    /// history's changes and CloudKit's record metadata.
    mutating func planHistoryRenumbering() {
        guard !mapping.renumbered.isEmpty else { return }
        for (table, column) in [("ACHANGE", "ZENTITY"), ("ANSCKRECORDMETADATA", "ZENTITYID")]
        where stored.tables[table]?.type(of: column) != nil {
            history.add("UPDATE \(table) SET \(column) = \(mapping.renumbering(column))")
        }
    }

    // MARK: Indexes and triggers

    mutating func planIndexesAndTriggers() throws {
        let expected = schema.allIndexes()
        let expectedSQL = Dictionary(expected.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        let managed = Set(schema.tables + model.joinTables.map(\.name))
        var kept: Set<String> = []
        for index in stored.indexes.sorted(by: { $0.name < $1.name })
        where managed.contains(index.table) && !rewritten.contains(index.table) && Self.isCoreDataIndexName(index.name) {
            if expectedSQL[index.name] == index.sql {
                kept.insert(index.name)
            } else {
                indexDrops.add("DROP INDEX \(quoteIdentifier(index.name))", kind: .schema)
            }
        }
        for index in stored.indexes where managed.contains(index.table) && !rewritten.contains(index.table) && !Self.isCoreDataIndexName(index.name) {
            kept.insert(index.name)
        }
        for (name, sql) in expected where !kept.contains(name) {
            indexes.add(sql, kind: .schema)
        }
        for index in savedIndexes {
            let columns = Set(finalColumns(of: index.table))
            if try StoredSchema.columns(ofIndex: index.name, on: connection).allSatisfy(columns.contains) {
                indexes.add(index.sql, kind: .schema)
            }
        }
        for trigger in savedTriggers {
            triggers.add(trigger.sql)
        }
    }

    /// A managed table's columns after the migration.
    private func finalColumns(of table: String) -> [String] {
        if let joinTable = model.joinTables.first(where: { $0.name == table }) {
            return [joinTable.sourceColumn, joinTable.destinationColumn]
        }
        return ["Z_PK", "Z_ENT", "Z_OPT"] + model.columns(ofTable: table).map(\.name)
    }

    // MARK: Keys

    /// `Z_PRIMARYKEY` as Core Data leaves it: each continued entity keeps its row — its
    /// `Z_NAME`, even when renamed, and its `Z_MAX` — under its new number and parent; new
    /// entities get a row; removed ones lose theirs. Core Data's own entities (16001…) stay.
    mutating func planPrimaryKeys() {
        let rows = model.entities.map { entity in
            StoredSchema.EntityRow(number: entity.number, name: mapping.previous[entity.number]?.name ?? entity.name,
                                   currentName: nil, parent: entity.parent ?? 0,
                                   maximumKey: mapping.previous[entity.number]?.maximumKey ?? 0)
        }
        let current = stored.entities.map { StoredSchema.EntityRow(number: $0.number, name: $0.name, currentName: nil,
                                                                   parent: $0.parent, maximumKey: $0.maximumKey) }
        guard rows != current else { return }
        keys.add("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < \(StoredSchema.firstPrivateEntityNumber)")
        for row in rows {
            keys.add("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                     [.integer(Int64(row.number)), .text(row.name), .integer(Int64(row.parent)), .integer(row.maximumKey)])
        }
    }
}
