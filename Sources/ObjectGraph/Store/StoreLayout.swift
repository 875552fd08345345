import Foundation
import SQLiteDB

/// Whether a store is already in exactly its model's layout — what the migration planner would
/// plan nothing for — decided from the rows one read of the schema gives (`SchemaFingerprint`),
/// without the planner.
///
/// Why: the first open of a store in a process planned its migration (about 3 M instructions
/// for a vacation: the stored schema's columns, every table, index and key row compared, the
/// search index's triggers) and found nothing to do for every store this framework wrote; a
/// `vacation` command opens one store once, so the in-process `verifiedSchemas` never help it.
///
/// The layout is built from the very functions the planner compares a store with
/// (`StoreSchema.createTableSQL`, `createJoinTableSQL`, `allIndexes`, `SearchIndexSchema`), so
/// the two cannot drift. A store matches when:
///
/// - every object of the layout (each hierarchy table, join table, index, search index table and
///   trigger, `Z_PRIMARYKEY` and `Z_METADATA`) is in `sqlite_master` under its name, of its
///   type, with exactly its SQL;
/// - every other object is one the planner leaves alone when it has nothing to migrate: a table
///   not of Core Data's `Z…` naming (history, the operation log, search shadow tables, an app's
///   own); an index not of Core Data's naming, or on a table
///   that is not the model's; a trigger that is not named as one of the model's search indexes'
///   (`<index>_…`); a view; an index SQLite made itself (no SQL);
/// - `Z_PRIMARYKEY`'s entity rows are the model's entities, in order, with their names and parents;
/// - the metadata carries this framework's model record, equal to the model's, and the model's
///   version hashes.
///
/// Then the planner's every comparison finds what it finds on a store just created for the
/// model (nothing to do); anything else, however harmless, goes to the planner.
/// `StoreLayoutTests` holds the two together on many stores and on random changes to them.
struct StoreLayout: Sendable {
    /// One row of `sqlite_master`.
    struct Object {
        var type: String
        var name: String
        var table: String
        /// NULL for the indexes SQLite makes for a table's own keys.
        var sql: String?
    }

    /// One row of `Z_PRIMARYKEY` below Core Data's own entities, as the planner reads it.
    struct EntityRow: Equatable {
        var number: Int
        var name: String
        var parent: Int
    }

    private var expected: [String: (type: String, sql: String)] = [:]
    private var managedTables: Set<String> = []
    private var searchTriggerPrefixes: [String] = []
    private var entityRows: [EntityRow] = []
    /// False for a model whose own layout the planner might not take as it is (two objects of
    /// one name, a column named like an order column): its stores always go to the planner.
    private var isUsable = true
    /// The model's version hashes (worked out at the first question, shared by its entities)
    /// and its model record: what the metadata must say. Not the model itself, which keeps
    /// its layout (`ObjectModel.storeLayout`).
    private let versionHashes: @Sendable () -> [String: Data]
    private let modelRecord: ModelRecord

    init(model: ObjectModel) {
        // `model.versionHashes`, asked of the entities' shared hashes when first needed.
        let hashes = model.entities.map { ($0.name, $0.versionHashes) }
        versionHashes = { Dictionary(uniqueKeysWithValues: hashes.map { name, hashes in (name, hashes.hash(of: name)) }) }
        modelRecord = ModelRecord(model: model)
        let schema = StoreSchema(model: model)
        func add(_ name: String, _ type: String, _ sql: String) {
            if expected.updateValue((type, sql), forKey: name) != nil { isUsable = false }
        }
        for table in schema.tables {
            let columns = schema.columns(ofTable: table).map(\.name)
            if Set(columns).count != columns.count || columns.contains(where: { $0.hasPrefix("Z_FOK_") }) { isUsable = false }
            add(table, "table", schema.createTableSQL(table))
        }
        for joinTable in model.joinTables { add(joinTable.name, "table", schema.createJoinTableSQL(joinTable)) }
        for (name, sql) in schema.allIndexes() { add(name, "index", sql) }
        // The bookkeeping tables as this framework makes them: the planner reads their rows by
        // column name, and another shape of them is for it to judge.
        for statement in schema.bookkeepingTables { add(statement.name, "table", statement.sql) }
        var searchTriggers: [(prefix: String, names: [String])] = []
        for index in model.searchIndexes {
            let search = SearchIndexSchema(index: index)
            add(index.name, "table", search.createTableSQL)
            for trigger in search.triggers { add(trigger.name, "trigger", trigger.sql) }
            searchTriggerPrefixes.append(index.name + "_")
            searchTriggers.append((index.name + "_", search.triggers.map(\.name)))
        }
        // The planner counts as an index's triggers every trigger named with its prefix: one
        // index's name must not begin another's triggers' names.
        for (prefix, names) in searchTriggers {
            for (_, others) in searchTriggers where others != names && others.contains(where: { $0.hasPrefix(prefix) }) { isUsable = false }
        }
        managedTables = Set(schema.tables + model.joinTables.map(\.name))
        entityRows = model.entities.map { EntityRow(number: $0.number, name: $0.name, parent: $0.parent ?? 0) }
        // The rows are read in the store's order and the planner's in `Z_ENT` order: the same
        // when the numbers rise.
        if zip(entityRows, entityRows.dropFirst()).contains(where: { $0.number >= $1.number }) { isUsable = false }
    }

    /// True when the planner would plan nothing for a store with these `sqlite_master` rows,
    /// entity rows and metadata (see the type's rules).
    func matches(objects: [Object], entityRows found: [EntityRow], metadata: StoreMetadata) -> Bool {
        guard isUsable, found == entityRows, metadata.versionHashes == versionHashes(),
              let record = metadata.modelRecord, record.declaresTheSame(as: modelRecord) else { return false }
        var seen = 0
        for object in objects {
            guard let sql = object.sql else {
                // Only an index SQLite made for a table's keys has no SQL; the planner skips those.
                if object.type == "index" { continue } else { return false }
            }
            if let expected = expected[object.name] {
                guard expected.type == object.type, expected.sql == sql else { return false }
                seen += 1
                continue
            }
            guard isLeftAlone(object) else { return false }
        }
        // Names are unique in a schema, so every object of the layout was seen once.
        return seen == expected.count
    }

    /// Whether the planner, with nothing else to do, leaves an object that is not the model's alone.
    private func isLeftAlone(_ object: Object) -> Bool {
        switch object.type {
        case "table":
            // Tables of Core Data's naming may be a removed entity's or a join table the plan
            // drops (its bookkeeping tables are in the layout).
            return !object.name.hasPrefix("Z")
        case "index":
            return !PlanWork.isCoreDataIndexName(object.name) || !managedTables.contains(object.table)
        case "trigger":
            return !searchTriggerPrefixes.contains { object.name.hasPrefix($0) }
        case "view":
            return true
        default:
            return false
        }
    }
}

extension ModelRecord {
    /// The same entities (parents, abstractness) and properties in the same order.
    func declaresTheSame(as other: ModelRecord) -> Bool {
        guard properties == other.properties, entities.count == other.entities.count else { return false }
        return entities.allSatisfy { name, entity in
            guard let theirs = other.entities[name] else { return false }
            return theirs.parent == entity.parent && theirs.isAbstract == entity.isAbstract
        }
    }
}

/// What the layout check and the planner each make of a store, for tests that hold them together.
package struct StoreLayoutVerdict: Sendable, Equatable {
    /// The store is in the model's layout (`StoreLayout`): an open skips the planner.
    package var matchesLayout: Bool
    /// The planner's plan is empty.
    package var plansNothing: Bool
    /// The planner's error, when it refused the store.
    package var planError: String?

    package init(matchesLayout: Bool, plansNothing: Bool, planError: String?) {
        (self.matchesLayout, self.plansNothing, self.planError) = (matchesLayout, plansNothing, planError)
    }

    /// Reads the store on `connection` as an open does, and asks both.
    package init(connection: Connection, model: ObjectModel) throws {
        let reading = SchemaFingerprint.read(connection, keepingRows: true)
        let metadata = try StoreMetadata(connection: connection)
        matchesLayout = reading.map {
            model.storeLayout.matches(objects: $0.objects, entityRows: $0.entityRows, metadata: metadata)
        } ?? false
        do {
            plansNothing = try MigrationPlanner(connection: connection, model: model, metadata: metadata).plan().isEmpty
            planError = nil
        } catch {
            plansNothing = false
            planError = "\(error)"
        }
    }
}
