import Foundation
import SQLiteDB

/// A change to many rows made by one SQL statement, outside any context (Core Data's batch
/// update and batch delete), whose effect is then merged into the live contexts.
///
/// ```swift
/// let result = try coordinator.execute(BatchUpdate(entityName: "Tag", predicate: try ObjectPredicate(format: "count == 0"),
///                                                  values: ["count": .integer(1)]))
/// ```
/// No delete rules or validation run. A batch delete removes the rows' many-to-many links and
/// clears to-one keys that pointed at them, so no row is left pointing at nothing.
public struct BatchUpdate: Sendable {
    /// The entity whose rows (and its subentities') are updated.
    public var entityName: String
    /// Which rows to update; nil for all of them.
    public var predicate: ObjectPredicate?
    /// Attribute name → new value in stored form.
    public var values: [String: SQLiteValue]

    /// An update setting `values` (attribute name to stored value) on the rows of `entityName` matching `predicate`.
    public init(entityName: String, predicate: ObjectPredicate? = nil, values: [String: SQLiteValue]) {
        self.entityName = entityName
        self.predicate = predicate
        self.values = values
    }
}

/// Deletes every row of an entity matching a predicate in one statement.
public struct BatchDelete: Sendable {
    /// The entity whose rows (and its subentities') are deleted.
    public var entityName: String
    /// Which rows to delete; nil for all of them.
    public var predicate: ObjectPredicate?

    /// A delete of the rows of `entityName` matching `predicate`.
    public init(entityName: String, predicate: ObjectPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }
}

extension StoreCoordinator {
    /// Runs a batch update in one transaction and broadcasts the change set it made; returns it.
    ///
    /// - Throws: `FetchRequestError` for unknown entities or attributes, `SQLiteError`.
    @discardableResult
    public func execute(_ batch: BatchUpdate) throws -> ChangeSet {
        guard let entity = model.entity(named: batch.entityName) else {
            throw FetchRequestError(message: "the model has no entity named \(batch.entityName)")
        }
        var assignments: [String] = []
        var arguments: [SQLiteValue] = []
        for (name, value) in batch.values.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.attribute(named: name), let column = attribute.column else {
                throw FetchRequestError(message: "\(entity.name) has no stored attribute named \(name)")
            }
            guard let stored = SQLiteValue.coerce(value, to: attribute.type) else {
                throw FetchRequestError(message: "\(value) is not a valid \(attribute.type.coreDataName) for \(entity.name).\(name)")
            }
            assignments.append("\(column) = ?")
            arguments.append(stored)
        }
        guard !assignments.isEmpty else { return ChangeSet() }
        let changeSet = try withStore { store in
            try store.recordingHistory { try store.connection.transaction(.immediate) {
                let (selection, selectionArguments) = try store.selection(of: entity, predicate: batch.predicate)
                let sql = "UPDATE \(entity.table) SET Z_OPT = Z_OPT + 1, \(assignments.joined(separator: ", ")) "
                    + "WHERE Z_PK IN (\(selection)) RETURNING Z_PK, Z_ENT"
                var changeSet = ChangeSet()
                let keys = Set(batch.values.keys)
                try store.connection.rows(sql, arguments + selectionArguments) { row in
                    ObjectID(entityNumber: row.int(at: 1), primaryKey: row.int64(at: 0))
                }.forEach { id in
                    changeSet.updated.insert(id)
                    changeSet.changedKeys[id] = keys
                }
                try store.history?.record(changeSet, author: store.history?.defaultAuthor, contextName: nil)
                return changeSet
            } }
        }
        broadcast(changeSet, from: nil)
        return changeSet
    }

    /// Runs a batch delete in one transaction and broadcasts the change set it made; returns it.
    @discardableResult
    public func execute(_ batch: BatchDelete) throws -> ChangeSet {
        guard let entity = model.entity(named: batch.entityName) else {
            throw FetchRequestError(message: "the model has no entity named \(batch.entityName)")
        }
        let model = self.model
        let changeSet = try withStore { store in
            try store.recordingHistory { try store.connection.transaction(.immediate) {
                let (selection, selectionArguments) = try store.selection(of: entity, predicate: batch.predicate)
                let victims = try store.connection.rows(selection.replacingOccurrences(of: "SELECT t0.Z_PK", with: "SELECT t0.Z_PK, t0.Z_ENT"),
                                                        selectionArguments) {
                    ObjectID(entityNumber: $0.int(at: 1), primaryKey: $0.int64(at: 0))
                }
                var changeSet = ChangeSet()
                guard !victims.isEmpty else { return changeSet }
                let tombstones = try store.history?.tombstones(of: victims) ?? [:]
                let keys = SQLiteStore.jsonList(victims.map(\.primaryKey))
                // To-one keys elsewhere that point at the victims are cleared, and reported.
                for other in model.entities {
                    for relationship in other.relationships where relationship.declaringEntity == other.number
                        && entity.root == model[relationship.destination].root {
                        guard case .foreignKey(let column, let entityColumn) = relationship.storage else { continue }
                        let clear = ["\(column) = NULL"] + (entityColumn.map { ["\($0) = NULL"] } ?? [])
                        let updated = try store.connection.rows(
                            "UPDATE \(other.table) SET Z_OPT = Z_OPT + 1, \(clear.joined(separator: ", ")) "
                                + "WHERE \(column) IN (SELECT value FROM json_each(?)) RETURNING Z_PK, Z_ENT", [keys]) {
                            ObjectID(entityNumber: $0.int(at: 1), primaryKey: $0.int64(at: 0))
                        }
                        for id in updated {
                            changeSet.updated.insert(id)
                            changeSet.changedKeys[id, default: []].insert(relationship.name)
                        }
                    }
                }
                for joinTable in model.joinTables {
                    let owner = model[joinTable.sourceEntity]
                    guard let relationship = owner.relationship(named: joinTable.relationship) else { continue }
                    let sides = [(joinTable.sourceColumn, owner.root), (joinTable.destinationColumn, model[relationship.destination].root)]
                    for (column, root) in sides where root == entity.root {
                        try store.connection.execute("DELETE FROM \(joinTable.name) WHERE \(column) IN (SELECT value FROM json_each(?))", [keys])
                    }
                }
                // Members of to-manys without an inverse forget owners that go.
                for hidden in model.hiddenKeys where model[hidden.sourceEntity].root == entity.root {
                    try store.connection.execute(
                        "UPDATE \(hidden.table) SET \(hidden.column) = NULL WHERE \(hidden.column) IN (SELECT value FROM json_each(?))", [keys])
                }
                try store.connection.execute("DELETE FROM \(entity.table) WHERE Z_PK IN (SELECT value FROM json_each(?))", [keys])
                changeSet.deleted = Set(victims)
                changeSet.updated.subtract(changeSet.deleted)
                try store.history?.record(changeSet, tombstones: tombstones, author: store.history?.defaultAuthor, contextName: nil)
                return changeSet
            } }
        }
        broadcast(changeSet, from: nil)
        return changeSet
    }
}

extension SQLiteStore {
    /// `SELECT t0.Z_PK FROM … WHERE …` for the rows of `entity` (and its subentities) matching `predicate`.
    func selection(of entity: Entity, predicate: ObjectPredicate?) throws -> (String, [SQLiteValue]) {
        let query = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: [], entity: entity, model: model)
        var conditions: [String] = []
        if let filter = entity.rowsCondition(in: model) {
            conditions.append(filter)
        }
        if let whereClause = query.whereClause { conditions.append("(\(whereClause))") }
        let sql = "SELECT t0.Z_PK FROM \(query.from)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        return (sql, query.arguments)
    }
}
