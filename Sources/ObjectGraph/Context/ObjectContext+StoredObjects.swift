import Foundation
import SQLiteDB

/// A saved object as the store holds it, read without making a managed object: what a caller
/// that compares many saved objects with values of its own needs (an import visiting photos
/// again), for the cost of reading the rows. Values are read through the slots of
/// ``StoredObjectLayout``.
package struct StoredObject {
    package let id: ObjectID
    /// Attribute values by slot, in stored form, as a fault loading the row would hold them.
    @usableFromInline let values: [SQLiteValue]
    @usableFromInline let toOne: [ObjectID?]
    /// The object the context already holds for this row, if any: its state is what the
    /// context sees (it may have been changed in memory since), so callers use it instead.
    package let registered: ManagedObject?
    /// The members of the to-many relationship the fetch was asked for; empty otherwise.
    package let members: ArraySlice<ObjectID>

    /// The attribute in `slot` (``StoredObjectLayout/attributeSlot(_:)``), as the object's property
    /// would read it.
    @inlinable
    package func value<Value: AttributeValue>(at slot: Int, as type: Value.Type = Value.self) -> Value {
        Value.fromStored(values[slot])
    }

    /// `value(at:as:)` for a string attribute, not generic: what comparing many rows reads most.
    @inlinable
    package func string(at slot: Int) -> String? {
        String?.fromStored(values[slot])
    }

    /// `value(at:as:)` for a date attribute.
    @inlinable
    package func date(at slot: Int) -> Date? {
        Date?.fromStored(values[slot])
    }

    /// `value(at:as:)` for a floating-point attribute.
    @inlinable
    package func double(at slot: Int) -> Double? {
        Double?.fromStored(values[slot])
    }

    /// The target of the to-one in `slot` (``StoredObjectLayout/toOneSlot(_:)``).
    @inlinable
    package func target(at slot: Int) -> ObjectID? {
        toOne[slot]
    }
}

/// Where an entity's properties are in the rows ``ObjectContext/forEachStoredObject(_:whereKey:isIn:membersOf:_:)``
/// hands out: their slots, resolved once by name.
package struct StoredObjectLayout {
    let entity: Entity

    /// The slot of attribute `name`.
    /// - Throws: `FetchRequestError` when the entity has no such attribute.
    package func attributeSlot(_ name: String) throws -> Int {
        guard let slot = entity.attributeSlots[name] else {
            throw FetchRequestError("\(entity.name) has no attribute named \(name)")
        }
        return slot
    }

    /// The slot of to-one relationship `name`.
    /// - Throws: `FetchRequestError` when the entity has no such to-one relationship.
    package func toOneSlot(_ name: String) throws -> Int {
        guard let relationship = entity.relationship(named: name), !relationship.isToMany else {
            throw FetchRequestError("\(entity.name) has no to-one relationship named \(name)")
        }
        return relationship.slot
    }
}

extension ObjectContext {
    /// Where the properties of `type` are in the rows `forEachStoredObject` hands out.
    /// - Throws: `FetchRequestError` when `type` is not an entity of the model.
    package func storedObjectLayout<T: ManagedObject>(of type: T.Type) throws -> StoredObjectLayout {
        guard let entity = model.entity(for: T.self) else {
            throw FetchRequestError("\(T.self) is not an entity of this model")
        }
        return StoredObjectLayout(entity: entity)
    }

    /// Reads the saved objects of `type` whose attribute `key` holds one of `values` (each
    /// listed once), as the store holds them, and hands each to `body` as it is read, in the
    /// order of `values`, with the members of the to-many relationship `toMany`: one prepared
    /// lookup a value (through the attribute's index when it has one) and one a row for the
    /// members. No object is made, loaded or registered, and nothing is kept: a caller that
    /// compares many saved objects with values of its own (an import visiting photos again)
    /// pays for reading the rows. `body` runs while the store is held: it must not use the
    /// store (nor fire faults).
    ///
    /// - Returns: where the rows' properties are; nil, without calling `body`, when this
    ///   context cannot answer from the store alone (it has unsaved changes, or works over a
    ///   parent context): fetch objects then.
    /// - Throws: `FetchRequestError` when `type` is not an entity of the model, `key` is not one
    ///   of its stored attributes or `toMany` not one of its to-many relationships; `SQLiteError`.
    package func forEachStoredObject<T: ManagedObject>(_ type: T.Type, whereKey key: String, isIn values: [String],
                                                       membersOf toMany: String? = nil,
                                                       _ body: (borrowing StoredObject) -> Void) throws -> StoredObjectLayout? {
        drainInbox()
        guard source === coordinator, !hasPendingChanges else { return nil }
        guard let entity = model.entity(for: T.self) else {
            throw FetchRequestError("\(T.self) is not an entity of this model")
        }
        guard let attribute = entity.attribute(named: key), let column = attribute.column else {
            throw FetchRequestError("\(entity.name) has no stored attribute named \(key)")
        }
        var relationship: EntityRelationship?
        if let toMany {
            guard let found = entity.relationship(named: toMany), found.isToMany else {
                throw FetchRequestError("\(entity.name) has no to-many relationship named \(toMany)")
            }
            relationship = found
        }
        let registry = self.registry
        try coordinator.withStore { store in
            try store.forEachRow(of: entity, whereColumn: column, isIn: values, members: relationship) { snapshot, members in
                body(StoredObject(id: snapshot.id, values: snapshot.values, toOne: snapshot.toOne,
                                  registered: registry.isEmpty ? nil : registry[snapshot.id], members: members))
            }
        }
        return StoredObjectLayout(entity: entity)
    }
}

extension SQLiteStore {
    /// The rows of `entity` (its subentities' included) whose `column` holds one of `values`,
    /// handed to `body` in the order of `values` with the members of `relationship` (a
    /// to-many): one lookup a value through the column's index and one a row for its members,
    /// each with one statement. (A list of thousands for `IN` cost more: SQLite first builds
    /// it into a table of its own, and the rows came sorted by key.)
    func forEachRow(of entity: Entity, whereColumn column: String, isIn values: [String], members relationship: EntityRelationship?,
                    _ body: (ObjectSnapshot, ArraySlice<ObjectID>) -> Void) throws {
        let reader = reader(forTable: entity.table)
        var sql = "SELECT \(reader.selectList) FROM \(entity.table) t0 WHERE t0.\(column) = ?"
        if let filter = entity.rowsCondition(in: model) { sql += " AND " + filter }
        let statement = try connection.cachedStatement(sql)
        let related = try relationship.flatMap { relatedQuery($0, sourceCondition: "= ?") }.map { try connection.cachedStatement($0) }
        // One array for every row's members, refilled (a body that keeps a row copies it).
        var members: [ObjectID] = []
        defer { reader.endQuery() }
        for value in values {
            statement.bind(value, at: 0)
            try statement.forEachRow { row in
                guard let snapshot = reader.snapshot(row) else { return }
                members.removeAll(keepingCapacity: true)
                if let related {
                    related.bind(snapshot.id.primaryKey, at: 0)
                    try related.forEachRow { member in
                        members.append(ObjectID(entityNumber: member.int(at: 2), primaryKey: member.int64(at: 1)))
                    }
                }
                body(snapshot, members[...])
            }
        }
    }
}
