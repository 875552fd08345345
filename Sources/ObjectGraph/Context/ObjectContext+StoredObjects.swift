import Foundation
import SQLiteDB

/// A saved object as the store holds it, read without making a managed object: what a caller
/// that compares many saved objects with values of its own needs (an import visiting photos
/// again), for the cost of reading the rows. Values are read through the slots of
/// ``StoredObjects``.
package struct StoredObject {
    package let id: ObjectID
    /// Attribute values by slot, in stored form, as a fault loading the row would hold them.
    @usableFromInline let values: [SQLiteValue]
    @usableFromInline let toOne: [ObjectID?]
    /// The object the context already holds for this row, if any: its state is what the
    /// context sees (it may have been changed in memory since), so callers use it instead.
    package let registered: ManagedObject?
    /// The members of the to-many relationship the fetch was asked for; empty otherwise.
    package fileprivate(set) var members: [ObjectID]

    /// The attribute in `slot` (``StoredObjects/attributeSlot(_:)``), as the object's property
    /// would read it.
    @inlinable
    package func value<Value: AttributeValue>(at slot: Int, as type: Value.Type = Value.self) -> Value {
        Value.fromStored(values[slot])
    }

    /// The target of the to-one in `slot` (``StoredObjects/toOneSlot(_:)``).
    @inlinable
    package func target(at slot: Int) -> ObjectID? {
        toOne[slot]
    }
}

/// The result of ``ObjectContext/storedObjects(_:membersOf:)``: the rows, and the slots their
/// properties are read through.
package struct StoredObjects {
    package var objects: [StoredObject]
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
    /// The saved objects matching `request` as the store holds them, in one query, with the
    /// members of the to-many relationship `toMany` in one more — no object is made, loaded or
    /// registered. Nil when this context cannot answer from the store alone: it has unsaved
    /// changes, or it works over a parent context; fetch objects then.
    ///
    /// ```swift
    /// if let stored = try context.storedObjects(request, membersOf: "tags") {
    ///     let title = try stored.attributeSlot("title")
    ///     for row in stored.objects { print(row.value(at: title, as: String?.self) ?? "", row.members.count) }
    /// }
    /// ```
    /// - Throws: `FetchRequestError` for a request that cannot run or an unknown to-many,
    ///   `SQLiteError`.
    package func storedObjects<T: ManagedObject>(_ request: FetchRequest<T>, membersOf toMany: String? = nil) throws -> StoredObjects? {
        drainInbox()
        guard source === coordinator, !hasPendingChanges else { return nil }
        let plan = try plan(for: request)
        let entity = model[plan.entity]
        var relationship: EntityRelationship?
        if let toMany {
            guard let found = entity.relationship(named: toMany), found.isToMany else {
                throw FetchRequestError("\(entity.name) has no to-many relationship named \(toMany)")
            }
            relationship = found
        }
        var snapshots: [ObjectSnapshot] = []
        var members: [Int64: [ObjectID]] = [:]
        try coordinator.withStore { store in
            try store.fetch(plan) { snapshots.append($0) }
            if let relationship, !snapshots.isEmpty {
                members = try store.relatedIDs(of: snapshots.map(\.id.primaryKey), relationship: relationship)
            }
        }
        var objects: [StoredObject] = []
        objects.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            objects.append(StoredObject(id: snapshot.id, values: snapshot.values, toOne: snapshot.toOne,
                                        registered: registry.isEmpty ? nil : registry[snapshot.id],
                                        members: members[snapshot.id.primaryKey] ?? []))
        }
        return StoredObjects(objects: objects, entity: entity)
    }
}
