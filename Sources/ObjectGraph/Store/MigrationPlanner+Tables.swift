import Foundation
import SQLiteDB

/// The work of one plan: tables first, then what depends on them. Statements are collected by
/// phase and joined in a fixed order by `result()`.
struct PlanWork {
    typealias Plan = MigrationPlanner.Plan

    let planner: MigrationPlanner
    let stored: StoredSchema
    let mapping: MigrationPlanner.EntityMapping
    let schema: StoreSchema
    var model: ObjectModel { planner.model }
    var connection: Connection { planner.connection }

    var indexDrops = Plan()
    var tables = Plan()
    var drops = Plan()
    var history = Plan()
    var indexes = Plan()
    var triggers = Plan()
    var keys = Plan()
    /// Tables this plan creates or rewrites: every index and trigger of theirs is created anew.
    var rewritten: Set<String> = []
    /// Stored tables that the migrated store still uses, or whose rows move to another table.
    var claimed: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
    /// Triggers of rewritten tables, to create again after them.
    var savedTriggers: [StoredSchema.Trigger] = []
    /// Indexes not of Core Data's naming on rewritten tables (an app's own), to create again.
    var savedIndexes: [StoredSchema.Index] = []

    init(planner: MigrationPlanner, stored: StoredSchema, mapping: MigrationPlanner.EntityMapping) {
        self.planner = planner
        self.stored = stored
        self.mapping = mapping
        self.schema = StoreSchema(model: planner.model)
    }

    func result() -> Plan {
        var plan = Plan()
        for part in [indexDrops, tables, drops, history, indexes, triggers, keys] {
            plan.statements += part.statements
        }
        return plan
    }

    // MARK: Hierarchy tables

    /// Where a new column's values come from.
    private enum ColumnSource {
        case copy(String)
        /// An entity column: the stored numbers, renumbered.
        case renumbered(String)
        /// A new attribute's default for the rows of the declaring entity's hierarchy, else NULL.
        case fill(SQLiteValue?, oldNumbers: [Int])
    }

    mutating func planTables() throws {
        for root in model.rootEntities {
            let table = root.table
            claimed.insert(table)
            let candidates = [table] + (root.renamingIdentifier.map { [ColumnLayout.tableName($0)] } ?? [])
                + (mapping.previous[root.number].map { stored.tableCandidates(ofEntity: $0.number) } ?? [])
            guard let source = candidates.first(where: { stored.tables[$0] != nil }).flatMap({ stored.tables[$0] }) else {
                tables.add(schema.createTableSQL(table))
                rewritten.insert(table)
                continue
            }
            claimed.insert(source.name)
            try planTable(table, root: root, source: source)
        }
    }

    private mutating func planTable(_ table: String, root: Entity, source: StoredSchema.Table) throws {
        let entities = model.entities.filter { $0.table == table }
        var used: Set<String> = []
        var sources: [(column: ObjectModel.Column, source: ColumnSource)] = []
        let expectedNames = Set(model.columns(ofTable: table).map(\.name))
        for column in model.columns(ofTable: table) {
            let columnSource = try self.source(of: column, entities: entities, stored: source, expectedNames: expectedNames, used: &used)
            sources.append((column, columnSource))
        }
        // Order columns of ordered relationships (`Z_FOK_<TO-ONE>`) stay with their to-one, after
        // the integer columns, as Core Data places them.
        var orderColumns: [(column: ObjectModel.Column, source: ColumnSource)] = []
        for column in source.columns where column.name.hasPrefix("Z_FOK_") {
            let keyColumn = "Z" + column.name.dropFirst("Z_FOK_".count)
            guard let kept = sources.first(where: { if case .copy(keyColumn) = $0.source { true } else { false } }) else { continue }
            orderColumns.append((ObjectModel.Column(name: "Z_FOK_" + kept.column.name.dropFirst(), type: "INTEGER"), .copy(column.name)))
        }
        let integerRun = sources.prefix { $0.column.type == "INTEGER" }.count
        sources.insert(contentsOf: orderColumns, at: integerRun)

        let finalColumns = [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")] + sources.map { ($0.column.name, $0.column.type) }
        let sql = StoreSchema.createTableSQL(table, columns: sources.map { ($0.column.name, $0.column.type) })
        let sameColumns = source.name == table && source.columns.map(\.name) == finalColumns.map(\.0)
            && zip(source.columns, finalColumns).allSatisfy { $0.type == $1.1 }
            && sources.allSatisfy { column in
                switch column.source {
                case .copy(let old), .renumbered(let old): old == column.column.name
                case .fill: false
                }
            }
        let hierarchyOld = mapping.oldNumbers(of: entities.map(\.number))
        let movingNumbers = Set(mapping.renumbered.map(\.old))
        let removedRows = try removedRowCount(in: source.name)
        let entityColumns = sources.compactMap { if case .renumbered(let old) = $0.source { old } else { nil } }
        let renumbers = !movingNumbers.isDisjoint(with: hierarchyOld) || (!movingNumbers.isEmpty && !entityColumns.isEmpty)

        if sameColumns && source.sql == sql {
            if removedRows > 0 {
                tables.add("DELETE FROM \(table) WHERE Z_ENT IN (\(list(mapping.removed)))")
            }
            if renumbers {
                tables.add("UPDATE \(table) SET Z_ENT = \(mapping.renumbering("Z_ENT"))")
                for column in entityColumns {
                    tables.add("UPDATE \(table) SET \(column) = \(mapping.renumbering(column))")
                }
            }
            return
        }
        // Only the CREATE text differs (a column added by ALTER TABLE): the rows stay as they are.
        let onlyText = sameColumns && removedRows == 0 && !renumbers
        rewrite(table, from: source, columns: sources, sql: sql, kind: onlyText ? .schema : .data)
    }

    /// Creates `table` as `sql` with the rows of `source`: through a temporary copy when the name
    /// stays (renaming a table would make SQLite quote the name in its `CREATE` text).
    private mutating func rewrite(_ table: String, from source: StoredSchema.Table,
                                  columns: [(column: ObjectModel.Column, source: ColumnSource)], sql: String, kind: Plan.Kind) {
        var values: [SQLiteValue] = []
        var expressions = ["Z_PK", mapping.renumbering("Z_ENT"), "Z_OPT"]
        for (_, columnSource) in columns {
            switch columnSource {
            case .copy(let old): expressions.append(old)
            case .renumbered(let old): expressions.append(mapping.renumbering(old))
            case .fill(let value?, let oldNumbers) where !oldNumbers.isEmpty:
                expressions.append("CASE WHEN Z_ENT IN (\(list(oldNumbers))) THEN ? END")
                values.append(value)
            case .fill:
                expressions.append("NULL")
            }
        }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.column.name)
        let filter = mapping.removed.isEmpty ? "" : " WHERE Z_ENT NOT IN (\(list(mapping.removed)))"
        saveDependents(of: source.name, renamed: source.name != table)
        if source.name == table {
            let copy = "temp.ZMIGRATION_\(table)"
            tables.add("CREATE TABLE \(copy) AS SELECT * FROM \(table)", kind: kind)
            tables.add("DROP TABLE \(table)", kind: kind)
            tables.add(sql, kind: kind)
            tables.add("INSERT INTO \(table) (\(names.joined(separator: ", "))) SELECT \(expressions.joined(separator: ", ")) FROM \(copy)\(filter)",
                       values, kind: kind)
            tables.add("DROP TABLE \(copy)", kind: kind)
        } else {
            tables.add(sql, kind: kind)
            tables.add("INSERT INTO \(table) (\(names.joined(separator: ", "))) SELECT \(expressions.joined(separator: ", ")) FROM \(source.name)\(filter)",
                       values, kind: kind)
            tables.add("DROP TABLE \(source.name)", kind: kind)
        }
        rewritten.insert(table)
    }

    /// Keeps the triggers of a table about to be rewritten, and the indexes Core Data did not name.
    private mutating func saveDependents(of table: String, renamed: Bool) {
        // A renamed table's triggers name the old table; they cannot follow it.
        guard !renamed else { return }
        savedTriggers += stored.triggers(on: table)
        savedIndexes += stored.indexes(on: table).filter { !Self.isCoreDataIndexName($0.name) }
    }

    /// Core Data names its indexes `Z…`: `Z_<Entity>_…` and `<TABLE>_<COLUMN>_INDEX` with `Z<TABLE>`.
    static func isCoreDataIndexName(_ name: String) -> Bool { name.hasPrefix("Z") }

    private func removedRowCount(in table: String) throws -> Int {
        guard !mapping.removed.isEmpty else { return 0 }
        return Int(try connection.scalar("SELECT count(*) FROM \(quoteIdentifier(table)) WHERE Z_ENT IN (\(list(mapping.removed)))")?.integerValue ?? 0)
    }

    func list(_ numbers: [Int]) -> String { numbers.map(String.init).joined(separator: ", ") }

    /// Where the values of a model column come from in the stored table.
    private func source(of column: ObjectModel.Column, entities: [Entity], stored table: StoredSchema.Table,
                        expectedNames: Set<String>, used: inout Set<String>) throws -> ColumnSource {
        func available(_ name: String) -> Bool {
            table.type(of: name) != nil && !used.contains(name) && (name == column.name || !expectedNames.contains(name))
        }
        func checked(_ name: String, owner: (entity: String, property: String)) throws -> String {
            if let type = table.type(of: name), !type.isEmpty, type != column.type {
                throw MigrationError(entity: owner.entity, property: owner.property,
                                     reason: "its column \(name) is \(type) in the store but \(column.type) in the model")
            }
            used.insert(name)
            return name
        }
        // A to-many without an inverse keeps its key in a hidden column named by its entity's number.
        for hidden in model.hiddenKeys where hidden.table == entities.first?.table && hidden.column == column.name {
            let oldNumber = mapping.previous[hidden.sourceEntity]?.number ?? hidden.sourceEntity
            let declaration = model[hidden.sourceEntity].relationship(named: hidden.relationship)?.declaration
            let names = [column.name, "Z\(oldNumber)" + (declaration?.renamingIdentifier ?? hidden.relationship).uppercased()]
            if let name = names.first(where: available) { return .copy(try checked(name, owner: (model[hidden.sourceEntity].name, hidden.relationship))) }
            return .fill(nil, oldNumbers: [])
        }
        for entity in entities {
            for attribute in entity.attributes where attribute.column == column.name && attribute.declaringEntity == entity.number {
                let names = [column.name] + (attribute.declaration.renamingIdentifier.map { ["Z" + $0.uppercased()] } ?? [])
                if let name = names.first(where: available) {
                    return .copy(try checked(name, owner: (entity.name, attribute.name)))
                }
                let oldNumbers = mapping.oldNumbers(of: entity.hierarchy)
                if attribute.declaration.defaultValue == nil && !attribute.declaration.isOptional && !oldNumbers.isEmpty {
                    let rows = try connection.scalar("SELECT count(*) FROM \(quoteIdentifier(table.name)) WHERE Z_ENT IN (\(list(oldNumbers)))")?.integerValue ?? 0
                    if rows > 0 {
                        throw MigrationError(entity: entity.name, property: attribute.name,
                                             reason: "it is required and has no default, and \(rows) existing rows would have no value")
                    }
                }
                return .fill(attribute.declaration.defaultValue, oldNumbers: oldNumbers)
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                guard case .foreignKey(let key, let entityColumn) = relationship.storage else { continue }
                let oldName = relationship.declaration.renamingIdentifier ?? relationship.name
                if key == column.name {
                    let names = [column.name, "Z" + oldName.uppercased()]
                    if let name = names.first(where: available) {
                        return .copy(try checked(name, owner: (entity.name, relationship.name)))
                    }
                    return .fill(nil, oldNumbers: [])
                }
                if entityColumn == column.name {
                    let oldDestination = mapping.previous[relationship.destination]?.number
                    let names = [column.name] + (oldDestination.map { ["Z\($0)_" + oldName.uppercased(), "Z\($0)_" + relationship.name.uppercased()] } ?? [])
                    if let name = names.first(where: available) {
                        return .renumbered(try checked(name, owner: (entity.name, relationship.name)))
                    }
                    return .fill(nil, oldNumbers: [])
                }
            }
        }
        return .fill(nil, oldNumbers: [])
    }
}
