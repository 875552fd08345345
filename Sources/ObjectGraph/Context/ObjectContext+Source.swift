import Foundation
import SQLiteDB

/// A context serves its child contexts: it answers with its own unsaved state where it has
/// any, and asks its own source for everything else, so children never see stale copies.
extension ObjectContext: ObjectSource {
    func snapshot(of id: ObjectID) throws -> ObjectSnapshot? {
        let id = resolve(id)
        if let object = registry[id], object.hasChanges {
            if object.isDeleted { return nil }
            try loadFault(object)
            return ObjectSnapshot(id: id, version: object.version, values: object.values, toOne: object.toOne)
        }
        return try source.snapshot(of: id)
    }

    func snapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot] {
        var own: [ObjectSnapshot] = []
        var rest: [ObjectID] = []
        for id in ids {
            let id = resolve(id)
            if let object = registry[id], object.hasChanges {
                if let snapshot = try snapshot(of: id) { own.append(snapshot) }
            } else {
                rest.append(id)
            }
        }
        return own + (rest.isEmpty ? [] : try source.snapshots(of: rest))
    }

    func relatedIDs(of id: ObjectID, relationship: Int) throws -> [ObjectID] {
        let id = resolve(id)
        if let object = registry[id], object.hasChanges {
            return Array(try loadedToManyIDs(of: object, index: relationship))
        }
        return try source.relatedIDs(of: id, relationship: relationship)
    }

    /// Applies a child's save to this context's objects; nothing reaches the store until this
    /// context saves in turn.
    func commit(_ payload: CommitPayload, policy: MergePolicy) throws -> CommitOutcome {
        var outcome = CommitOutcome()
        outcome.changeSet.author = payload.author
        for insert in payload.inserts {
            guard let entity = model.entity(number: insert.id.entityNumber) else { continue }
            let object = registry[insert.id] ?? entity.objectClass.init(
                ObjectSeed(entity: entity, objectID: insert.id, context: self, isFault: false))
            willChange(object)
            object.values = insert.values
            object.isInserted = true
            registry[insert.id] = object
            inserted[insert.id] = object
            outcome.changeSet.inserted.insert(insert.id)
        }
        for insert in payload.inserts {
            guard let object = registry[insert.id] else { continue }
            try applyToOne(insert.toOne, slots: Array(insert.toOne.indices), to: object)
        }
        for update in payload.updates {
            guard let object = registeredOrFault(update.id) else { continue }
            if !update.changedSlots.isEmpty {
                try loadFault(object)
                willChange(object)
                for slot in update.changedSlots { object.values[slot] = update.values[slot] }
            }
            try applyToOne(update.toOne, slots: update.changedToOne, to: object)
            objectDidChange(object)
            outcome.changeSet.updated.insert(update.id)
            outcome.changeSet.changedKeys[update.id] = update.changedKeys
        }
        for link in payload.addedLinks { applyLink(link, add: true) }
        for link in payload.removedLinks { applyLink(link, add: false) }
        for record in payload.deletes {
            guard let object = registeredOrFault(record.id) else { continue }
            if object.isInserted {
                willChange(object)
                registry.removeValue(forKey: object.objectID)
                inserted.removeValue(forKey: object.objectID)
                object.owningContext = nil
            } else {
                delete(object)
            }
            outcome.changeSet.deleted.insert(record.id)
        }
        notify(ContextChanges(reason: .merged, changeSet: outcome.changeSet))
        return outcome
    }

    private func applyToOne(_ targets: [ObjectID?], slots: [Int], to object: ManagedObject) throws {
        for relationship in object.entity.relationships where !relationship.isToMany && slots.contains(relationship.slot) {
            let target = targets[relationship.slot].flatMap { registeredOrFault($0) }
            try setToOne(of: object, index: relationship.index, to: target)
        }
    }

    private func applyLink(_ link: JoinLink, add: Bool) {
        guard let source = registeredOrFault(link.source), let destination = registeredOrFault(link.destination) else { return }
        for relationship in source.entity.relationships {
            guard model.linkName(of: relationship) == link.table,
                  relationship.inverseIndex == nil
                    || model.ownsJoinTable(entity: source.entity.number, relationship: relationship.index) else { continue }
            willChange(source)
            if relationship.inverseIndex != nil { willChange(destination) }
            if add {
                source.toMany[relationship.slot].insert(destination.objectID)
            } else {
                source.toMany[relationship.slot].remove(destination.objectID)
            }
            objectDidChange(source)
            if let inverse = relationship.inverseIndex {
                let inverseSlot = destination.entity.relationships[inverse].slot
                if add {
                    destination.toMany[inverseSlot].insert(source.objectID)
                } else {
                    destination.toMany[inverseSlot].remove(source.objectID)
                }
                objectDidChange(destination)
            }
        }
    }
}
