import Foundation
import SQLiteDB

/// A migration the model cannot make lightweight, naming the entity and property.
public struct MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    public var entity: String
    public var property: String?
    public var reason: String

    public init(entity: String, property: String?, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    public var description: String {
        "Cannot migrate \(entity)\(property.map { "." + $0 } ?? ""): \(reason)"
    }
}

/// Compares a store's tables (and the model recorded in its metadata, when there is one) with
/// a model, and plans the lightweight migration between them: new entities, attributes (with
/// defaults for existing rows) and relationships, removed attributes, renames through renaming
/// identifiers, and Core Data's entity renumbering. Anything else is a `MigrationError`.
struct MigrationPlanner {
    let connection: Connection
    let model: ObjectModel

    struct Plan {
        var statements: [(sql: String, values: [SQLiteValue])] = []
        var isEmpty: Bool { statements.isEmpty }

        func apply(to connection: Connection) throws {
            for statement in statements {
                if statement.values.isEmpty { try connection.execute(statement.sql) } else { try connection.execute(statement.sql, statement.values) }
            }
        }

        mutating func add(_ sql: String, _ values: [SQLiteValue] = []) { statements.append((sql, values)) }

        /// Search index triggers go before everything else (SQLite refuses to rename or drop
        /// what a trigger names), and the indexes are made after.
        mutating func add(searchIndexPlan search: SearchIndexPlan) {
            statements = search.before.map { ($0, []) } + statements + search.after.map { ($0, []) }
        }
    }

    func plan() throws -> Plan {
        var plan = Plan()
        let metadata = try StoreMetadata.readIfPresent(connection)
        // Core Data's rule: a store whose recorded version hashes are the model's is compatible
        // with it, whatever our layout rules would write (ordered relationships' order columns,
        // index names…). A store Apple's Core Data made is then opened as it is; stores this
        // framework wrote (they carry our model record) are still brought to our layout.
        if let metadata, metadata.modelRecord == nil, !metadata.versionHashes.isEmpty,
           metadata.versionHashes == model.versionHashes {
            // Such a store gets a search index only when the model asks for one.
            plan.add(searchIndexPlan: try SearchIndexPlan.make(connection: connection, model: model, migrating: false))
            return plan
        }
        let schema = StoreSchema(model: model)
        let recorded = metadata?.modelRecord
        let oldNumbers = try storedEntityNumbers()
        var renumber: [Int: Int] = [:]
        for entity in model.entities {
            let oldName = oldNumbers[entity.name] != nil ? entity.name : entity.renamingIdentifier
            if let old = oldName.flatMap({ oldNumbers[$0] }), old != entity.number { renumber[old] = entity.number }
            try checkDeclarations(of: entity, recorded: recorded)
        }
        let existingTables = try tables()
        var keptTables: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

        for root in model.rootEntities {
            let table = root.table
            keptTables.insert(table)
            let oldTable = root.renamingIdentifier.map { ColumnLayout.tableName($0) }
            if !existingTables.contains(table), let oldTable, existingTables.contains(oldTable) {
                plan.add("ALTER TABLE \(oldTable) RENAME TO \(table)")
            } else if !existingTables.contains(table) && !(oldTable.map(existingTables.contains) ?? false) {
                plan.add(schema.createTableSQL(table))
                continue
            }
            let sourceTable = existingTables.contains(table) ? table : (oldTable ?? table)
            try planColumns(of: table, existing: try columns(of: sourceTable), plan: &plan, renumber: renumber)
            if !renumber.isEmpty {
                let cases = renumber.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
                plan.add("UPDATE \(table) SET Z_ENT = CASE Z_ENT \(cases) ELSE Z_ENT END")
                for entity in model.entities where entity.table == table {
                    for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                        guard case .foreignKey(_, let entityColumn?) = relationship.storage else { continue }
                        plan.add("UPDATE \(table) SET \(entityColumn) = CASE \(entityColumn) \(cases) ELSE \(entityColumn) END")
                    }
                }
            }
        }
        for joinTable in model.joinTables {
            keptTables.insert(joinTable.name)
            if existingTables.contains(joinTable.name) { continue }
            if let old = try oldJoinTable(for: joinTable, renumber: renumber, existing: existingTables) {
                plan.add("ALTER TABLE \(old.name) RENAME TO \(joinTable.name)")
                if old.source != joinTable.sourceColumn {
                    plan.add("ALTER TABLE \(joinTable.name) RENAME COLUMN \(old.source) TO \(joinTable.sourceColumn)")
                }
                if old.destination != joinTable.destinationColumn {
                    plan.add("ALTER TABLE \(joinTable.name) RENAME COLUMN \(old.destination) TO \(joinTable.destinationColumn)")
                }
                keptTables.insert(old.name)
            } else {
                plan.add(schema.createJoinTableSQL(joinTable))
            }
        }
        for table in existingTables where !keptTables.contains(table) && table.hasPrefix("Z") && !table.hasPrefix("sqlite_") {
            plan.add("DROP TABLE \(table)")
        }
        try planIndexes(schema: schema, plan: &plan)
        let numbersChanged = try storedEntityNumbers() != Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, $0.number) })
        if !plan.isEmpty || !renumber.isEmpty || numbersChanged {
            try planPrimaryKeys(oldNumbers: oldNumbers, plan: &plan)
        }
        plan.add(searchIndexPlan: try SearchIndexPlan.make(connection: connection, model: model, migrating: !plan.isEmpty))
        return plan
    }

    // MARK: Declarations

    private func checkDeclarations(of entity: Entity, recorded: ModelRecord?) throws {
        guard let recorded else { return }
        let oldEntityName = recorded.entities[entity.name] != nil ? entity.name : entity.renamingIdentifier
        guard let oldEntityName, let old = recorded.entities[oldEntityName] else { return }
        let parentName = entity.parent.map { model[$0].name }
        if old.parent != parentName && !(old.parent == nil && parentName == nil) {
            throw MigrationError(entity: entity.name, property: nil,
                                 reason: "its parent entity changed from \(old.parent ?? "none") to \(parentName ?? "none")")
        }
        for attribute in entity.attributes where attribute.declaringEntity == entity.number {
            let oldName = recorded.property(oldEntityName, attribute.name) != nil ? attribute.name : attribute.declaration.renamingIdentifier
            guard let previous = oldName.flatMap({ recorded.property(oldEntityName, $0) }) else { continue }
            if previous.kind != attribute.type.rawValue {
                throw MigrationError(entity: entity.name, property: attribute.name,
                                     reason: "its type changed from \(previous.kind) to \(attribute.type.rawValue)")
            }
        }
        for relationship in entity.relationships where relationship.declaringEntity == entity.number {
            let oldName = recorded.property(oldEntityName, relationship.name) != nil ? relationship.name : relationship.declaration.renamingIdentifier
            guard let previous = oldName.flatMap({ recorded.property(oldEntityName, $0) }) else { continue }
            let kind = (relationship.isToMany ? "to-many:" : "to-one:") + model[relationship.destination].name
            if previous.kind != kind {
                throw MigrationError(entity: entity.name, property: relationship.name,
                                     reason: "it changed from \(previous.kind) to \(kind)")
            }
        }
    }

    // MARK: Columns

    private func planColumns(of table: String, existing: [(name: String, type: String)], plan: inout Plan,
                             renumber: [Int: Int]) throws {
        var present = Dictionary(existing.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        let expected = model.columns(ofTable: table)
        let expectedNames = Set(expected.map(\.name))
        let entities = model.entities.filter { $0.table == table }
        for column in expected where present[column.name] == nil {
            // A renamed property, or an entity column whose number changed, keeps its data.
            if let old = renamedColumn(for: column.name, entities: entities, renumber: renumber),
               present[old] != nil, !expectedNames.contains(old) {
                plan.add("ALTER TABLE \(table) RENAME COLUMN \(old) TO \(column.name)")
                present[column.name] = present.removeValue(forKey: old)
                continue
            }
            plan.add("ALTER TABLE \(table) ADD COLUMN \(column.name) \(column.type)")
            present[column.name] = column.type
            try fillDefault(for: column.name, table: table, entities: entities, plan: &plan)
        }
        for column in expected {
            if let type = present[column.name], type.uppercased() != column.type, !type.isEmpty {
                let owner = owner(of: column.name, entities: entities)
                throw MigrationError(entity: owner.entity, property: owner.property,
                                     reason: "its column \(column.name) is \(type) in the store but \(column.type) in the model")
            }
        }
        for (name, _) in present where !expectedNames.contains(name) && !["Z_PK", "Z_ENT", "Z_OPT"].contains(name) {
            for index in try indexes(on: table) where index.columns.contains(name) {
                plan.add("DROP INDEX IF EXISTS \(index.name)")
            }
            plan.add("ALTER TABLE \(table) DROP COLUMN \(name)")
        }
    }

    private func renamedColumn(for column: String, entities: [Entity], renumber: [Int: Int]) -> String? {
        // A to-many without an inverse names its hidden key by its entity's number and its name.
        for hidden in model.hiddenKeys where hidden.column == column && hidden.table == entities.first?.table {
            let oldNumber = renumber.first(where: { $0.value == hidden.sourceEntity })?.key ?? hidden.sourceEntity
            let declaration = model[hidden.sourceEntity].relationship(named: hidden.relationship)?.declaration
            let old = "Z\(oldNumber)" + (declaration?.renamingIdentifier ?? hidden.relationship).uppercased()
            if old != column { return old }
        }
        for entity in entities {
            for attribute in entity.attributes where attribute.column == column && attribute.declaringEntity == entity.number {
                if let old = attribute.declaration.renamingIdentifier { return "Z" + old.uppercased() }
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                guard case .foreignKey(let key, let entityColumn) = relationship.storage else { continue }
                if key == column, let old = relationship.declaration.renamingIdentifier { return "Z" + old.uppercased() }
                if entityColumn == column, let oldNumber = renumber.first(where: { $0.value == relationship.destination })?.key {
                    let name = relationship.declaration.renamingIdentifier ?? relationship.name
                    return "Z\(oldNumber)_" + name.uppercased()
                }
            }
        }
        return nil
    }

    private func owner(of column: String, entities: [Entity]) -> (entity: String, property: String?) {
        for entity in entities {
            if let attribute = entity.attributes.first(where: { $0.column == column && $0.declaringEntity == entity.number }) {
                return (entity.name, attribute.name)
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                if case .foreignKey(let key, let entityColumn) = relationship.storage, key == column || entityColumn == column {
                    return (entity.name, relationship.name)
                }
            }
        }
        return (entities.first?.name ?? column, nil)
    }

    /// A new attribute column gets the attribute's default in every existing row of its entity;
    /// a required attribute without a default cannot be added to a table that has such rows.
    private func fillDefault(for column: String, table: String, entities: [Entity], plan: inout Plan) throws {
        for entity in entities {
            guard let attribute = entity.attributes.first(where: { $0.column == column && $0.declaringEntity == entity.number }) else { continue }
            let numbers = entity.hierarchy.map(String.init).joined(separator: ", ")
            if let value = attribute.declaration.defaultValue {
                plan.add("UPDATE \(table) SET \(column) = ? WHERE Z_ENT IN (\(numbers))", [value])
            } else if !attribute.declaration.isOptional {
                let rows = try connection.scalar("SELECT count(*) FROM \(table) WHERE Z_ENT IN (\(numbers))")?.integerValue ?? 0
                if rows > 0 {
                    throw MigrationError(entity: entity.name, property: attribute.name,
                                         reason: "it is required and has no default, and \(rows) existing rows would have no value")
                }
            }
        }
    }

    // MARK: Join tables, indexes, keys

    private func oldJoinTable(for joinTable: ObjectModel.JoinTable, renumber: [Int: Int],
                              existing: Set<String>) throws -> (name: String, source: String, destination: String)? {
        guard let oldSource = renumber.first(where: { $0.value == joinTable.sourceEntity })?.key else { return nil }
        let suffix = String(joinTable.name.dropFirst("Z_\(joinTable.sourceEntity)".count))
        let name = "Z_\(oldSource)" + suffix
        guard existing.contains(name) else { return nil }
        let columns = try self.columns(of: name).map(\.name)
        guard columns.count == 2 else { return nil }
        return (name, columns[0], columns[1])
    }

    private func planIndexes(schema: StoreSchema, plan: inout Plan) throws {
        var expected: [String: String] = [:]
        for table in schema.tables {
            for index in schema.indexes(ofTable: table) { expected[index.name] = index.sql }
        }
        for joinTable in model.joinTables {
            let index = schema.joinTableIndex(joinTable)
            expected[index.name] = index.sql
        }
        let existing = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") { $0.string(at: 0) ?? "" }
        for name in existing where expected[name] == nil && name.hasPrefix("Z") {
            plan.add("DROP INDEX IF EXISTS \(quoteIdentifier(name))")
        }
        for (name, sql) in expected.sorted(by: { $0.key < $1.key }) where !existing.contains(name) {
            plan.add(sql)
        }
    }

    private func planPrimaryKeys(oldNumbers: [String: Int], plan: inout Plan) throws {
        let maxima = try connection.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY") { ($0.string(at: 0) ?? "", $0.int64(at: 1)) }
        let maxByName = Dictionary(maxima, uniquingKeysWith: max)
        plan.add("DELETE FROM Z_PRIMARYKEY")
        for entity in model.entities {
            let previous = maxByName[entity.name] ?? entity.renamingIdentifier.flatMap { maxByName[$0] } ?? 0
            plan.add("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                     [.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.parent ?? 0)), .integer(previous)])
        }
    }

    // MARK: Reading the store

    private func storedEntityNumbers() throws -> [String: Int] {
        let rows = try connection.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY") { ($0.string(at: 0) ?? "", $0.int(at: 1)) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    private func tables() throws -> Set<String> {
        Set(try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.string(at: 0) ?? "" })
    }

    private func columns(of table: String) throws -> [(name: String, type: String)] {
        try connection.rows("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
        }
    }

    private func indexes(on table: String) throws -> [(name: String, columns: [String])] {
        let names = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                        [.text(table)]) { $0.string(at: 0) ?? "" }
        return try names.map { name in
            (name, try connection.rows("SELECT name FROM pragma_index_info(?)", [.text(name)]) { $0.string(at: 0) ?? "" })
        }
    }
}
