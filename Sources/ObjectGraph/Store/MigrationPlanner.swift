import Foundation
import SQLiteDB

/// A migration the model cannot make lightweight, naming the entity and property.
public struct MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The entity that cannot be migrated.
    public var entity: String
    /// Its property at fault, when one is.
    public var property: String?
    package var reason: String

    /// An error about `property` of `entity`, with the reason.
    public init(entity: String, property: String?, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// One line: `Cannot migrate Entity.property: reason`.
    public var description: String {
        "Cannot migrate \(entity)\(property.map { "." + $0 } ?? ""): \(reason)"
    }
}

/// Compares a store's schema (and the model recorded in its metadata, when there is one) with a
/// model, and plans the lightweight migration that leaves the store exactly as Core Data's own
/// migration would: tables rebuilt with the model's columns in Core Data's order (added
/// attributes filled with their defaults, removed ones dropped, renamed ones keeping their data
/// through renaming identifiers), entities renumbered in rows, entity columns, join tables and
/// `Z_PRIMARYKEY` (whose names Core Data leaves as they were), and indexes named and spelled as
/// Core Data writes them. Anything else is a `MigrationError`.
///
/// The plan is a list of statements in a fixed order (search triggers dropped; indexes dropped;
/// tables rebuilt in entity order, then join tables; tables of removed entities dropped; history
/// renumbered; indexes and triggers created; keys; search indexes remade), so the same store and
/// model always give the same plan.
struct MigrationPlanner {
    let connection: Connection
    let model: ObjectModel
    /// `Z_METADATA`, decoded once for the whole plan (decoding the property list is the
    /// dearest part of opening a store that needs no migration).
    let metadata: StoreMetadata?

    /// A planner for the store on `connection`; `metadata` when the caller has decoded it
    /// already, else it is read here.
    init(connection: Connection, model: ObjectModel, metadata: StoreMetadata? = nil) throws {
        self.connection = connection
        self.model = model
        self.metadata = try metadata ?? StoreMetadata.readIfPresent(connection)
    }

    struct Plan {
        /// `data` statements change tables, rows or keys; `schema` ones only index definitions or
        /// a table's `CREATE` text, which reading does not depend on.
        enum Kind { case data, schema }

        struct Statement {
            let sql: String
            let values: [SQLiteValue]
            let kind: Kind
        }

        var statements: [Statement] = []
        var isEmpty: Bool { statements.isEmpty }
        /// True when reading the store with the model needs the plan applied first.
        var changesData: Bool { statements.contains { $0.kind == .data } }

        func apply(to connection: Connection) throws {
            for statement in statements {
                if statement.values.isEmpty { try connection.execute(statement.sql) } else { try connection.execute(statement.sql, statement.values) }
            }
        }

        mutating func add(_ sql: String, _ values: [SQLiteValue] = [], kind: Kind = .data) {
            statements.append(Statement(sql: sql, values: values, kind: kind))
        }

        /// Search index triggers go before everything else (SQLite refuses to rename or drop
        /// what a trigger names), and the indexes are made after. A missing or stale index is
        /// data (a write may have gone unindexed, and a reader cannot mend it); an index remade
        /// only because a schema-only rewrite dropped its triggers is schema, as the rewrite is.
        mutating func add(searchIndexPlan search: SearchIndexPlan) {
            let kind: Kind = !statements.isEmpty && !changesData ? .schema : .data
            statements = search.before.map { Statement(sql: $0, values: [], kind: kind) } + statements
                + search.after.map { Statement(sql: $0, values: [], kind: kind) }
        }
    }

    /// Which stored entity each model entity continues, and how numbers move.
    struct EntityMapping {
        /// New entity number → the stored row it continues.
        var previous: [Int: StoredSchema.EntityRow] = [:]
        /// Old number → new number, for every continued entity.
        var numbers: [Int: Int] = [:]
        /// Old numbers of stored entities the model no longer has.
        var removed: [Int] = []

        /// Old → new for the entities whose number changes, in old-number order.
        var renumbered: [(old: Int, new: Int)] {
            numbers.filter { $0.key != $0.value }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        /// The stored numbers of the entities numbered `numbers` in the model (new ones have none).
        func oldNumbers(of numbers: [Int]) -> [Int] { numbers.compactMap { previous[$0]?.number }.sorted() }

        /// `CASE column WHEN old THEN new … ELSE column END`, or the column when nothing moves.
        func renumbering(_ column: String) -> String {
            let moves = renumbered
            guard !moves.isEmpty else { return column }
            return "CASE \(column) " + moves.map { "WHEN \($0.old) THEN \($0.new) " }.joined() + "ELSE \(column) END"
        }
    }

    func plan() throws -> Plan {
        // Core Data's rule: a store whose recorded version hashes are the model's is compatible
        // with it, whatever our layout rules would write (ordered relationships' order columns,
        // index names…). A store Apple's Core Data made is then opened as it is; stores this
        // framework wrote (they carry our model record) are still brought to our layout.
        if let metadata, metadata.modelRecord == nil,
           !metadata.versionHashes.isEmpty, metadata.versionHashes == model.versionHashes {
            // Such a store gets a search index only when the model asks for one.
            var plan = Plan()
            plan.add(searchIndexPlan: try SearchIndexPlan.make(connection: connection, model: model, migrating: false))
            return plan
        }
        let stored = try StoredSchema(connection: connection, versionHashes: metadata?.versionHashes ?? [:])
        let mapping = try mapEntities(stored)
        try checkDeclarations(mapping: mapping, stored: stored)
        var work = PlanWork(planner: self, stored: stored, mapping: mapping)
        try work.planTables()
        try work.planJoinTables()
        work.planDroppedTables()
        work.planHistoryRenumbering()
        try work.planIndexesAndTriggers()
        work.planPrimaryKeys()
        var plan = work.result()
        plan.add(searchIndexPlan: try SearchIndexPlan.make(connection: connection, model: model, migrating: !plan.isEmpty))
        return plan
    }

    // MARK: Entities

    /// Pairs each model entity with the stored entity of its name, or of its renaming identifier.
    private func mapEntities(_ stored: StoredSchema) throws -> EntityMapping {
        var mapping = EntityMapping()
        var claimed: Set<Int> = []
        for entity in model.entities {
            let row = stored.entity(named: entity.name).flatMap { claimed.contains($0.number) ? nil : $0 }
                ?? entity.renamingIdentifier.flatMap { stored.entity(named: $0) }.flatMap { claimed.contains($0.number) ? nil : $0 }
            guard let row else { continue }
            claimed.insert(row.number)
            mapping.previous[entity.number] = row
            mapping.numbers[row.number] = entity.number
        }
        mapping.removed = stored.entities.map(\.number).filter { !claimed.contains($0) }
        return mapping
    }

    /// Refuses what a lightweight migration cannot do: a changed parent, and — where the store
    /// carries our model record — a changed attribute type or relationship kind.
    private func checkDeclarations(mapping: EntityMapping, stored: StoredSchema) throws {
        let recorded = metadata?.modelRecord
        for entity in model.entities {
            if let row = mapping.previous[entity.number] {
                // A new parent counts as a change too: the entity's rows would have to move tables.
                let oldParent = row.parent == 0 ? nil : row.parent
                let newParentsOldNumber = entity.parent.flatMap { mapping.previous[$0]?.number }
                if (oldParent == nil) != (entity.parent == nil) || (entity.parent != nil && newParentsOldNumber != oldParent) {
                    let oldName = oldParent.flatMap { stored.entity(number: $0) }.map { $0.currentName ?? $0.name }
                    throw MigrationError(entity: entity.name, property: nil,
                                         reason: "its parent entity changed from \(oldName ?? "none") to \(entity.parent.map { model[$0].name } ?? "none")")
                }
            }
            if let recorded { try checkRecordedDeclarations(of: entity, recorded: recorded) }
        }
    }

    private func checkRecordedDeclarations(of entity: Entity, recorded: ModelRecord) throws {
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
}
