import Foundation
import SQLiteDB

extension ContextUndoManager {
    /// Applies a group to the context: forwards (redo) or backwards (undo), part by part.
    ///
    /// Each side of a relationship was recorded on its own object, so every change is set
    /// directly, with no inverse bookkeeping: both sides come back as they were.
    func apply(_ group: UndoGroup, forward: Bool, in context: ObjectContext) throws {
        // Objects to change are loaded before anything changes, so that a load failure leaves
        // the context as it was.
        for part in group.parts {
            for change in part where !(change.attributes.isEmpty && change.toOnes.isEmpty) {
                if UndoObjectState.existence(of: change.object, in: context) != .absent {
                    try context.loadFault(change.object)
                }
            }
        }
        for part in forward ? group.parts : group.parts.reversed() {
            apply(part, forward: forward, in: context)
        }
    }

    private func apply(_ part: [ObjectChange], forward: Bool, in context: ObjectContext) {
        let changes = forward ? part : part.reversed()
        // Objects come back first, so that the relationships below can name them.
        var broughtBack: [(object: ManagedObject, isNew: Bool)] = []
        for change in changes {
            let target = forward ? change.after : change.before
            if target != .absent && UndoObjectState.existence(of: change.object, in: context) == .absent {
                broughtBack.append((change.object, bringBack(change.object, in: context)))
            }
        }
        // An object out of the context kept the IDs it named when it left: partners inserted
        // again since then have new ones.
        for (object, isNew) in broughtBack {
            if isNew { remapReinserted(object, in: context) } else { remapReferences(of: object, in: context) }
        }
        for change in changes {
            let object = change.object
            let target = forward ? change.after : change.before
            guard target != .absent, UndoObjectState.existence(of: object, in: context) != .absent else { continue }
            var changed = false
            for attribute in change.attributes where attribute.slot < object.values.count {
                object.values[attribute.slot] = forward ? attribute.new : attribute.old
                changed = true
            }
            for toOne in change.toOnes where toOne.slot < object.toOne.count {
                object.toOne[toOne.slot] = (forward ? toOne.new : toOne.old).map { current($0, in: context) }
                changed = true
            }
            for toMany in change.toManys where toMany.slot < object.toMany.count {
                for id in forward ? toMany.lost : toMany.gained { object.toMany[toMany.slot].remove(current(id, in: context)) }
                for id in forward ? toMany.gained : toMany.lost { object.toMany[toMany.slot].insert(current(id, in: context)) }
                changed = true
            }
            switch (target, UndoObjectState.existence(of: object, in: context)) {
            case (.deleted, .present):
                markDeleted(object, in: context)
            case (.present, .deleted):
                object.isDeleted = false
                context.deleted.removeValue(forKey: object.objectID)
                changed = true
            default:
                break
            }
            if changed { markChanged(object, in: context) }
        }
        for change in changes where (forward ? change.after : change.before) == .absent {
            remove(change.object, in: context)
        }
    }

    /// Puts an object that is out of the context back in; returns true when it had to be
    /// inserted again under a new ID (its deletion had been saved).
    private func bringBack(_ object: ManagedObject, in context: ObjectContext) -> Bool {
        object.owningContext = context
        object.isDeleted = false
        if object.objectID.isTemporary {
            // Never saved: the same object, with the same temporary ID, is inserted again.
            object.isInserted = true
            context.registry[object.objectID] = object
            context.inserted[object.objectID] = object
            return false
        }
        // Its row is gone: a new object with the state it had, under a new temporary ID.
        let old = object.objectID
        let new = ObjectID.temporary(entityNumber: old.entityNumber)
        reinsertedIDs[old] = new
        object.objectID = new
        object.isInserted = true
        object.isMarkedUpdated = false
        object.committedValues = nil
        object.committedToOne = nil
        object.version = 0
        if object.isFault {
            // Deleted without ever being loaded (its values were never read): it comes back
            // with its entity's defaults.
            object.values = object.entity.nullValues
            for (slot, value) in object.entity.defaultValues { object.values[slot] = value }
            object.isFault = false
        }
        context.registry[new] = object
        context.inserted[new] = object
        return true
    }

    /// A reinserted object's own relationships name its partners as they are now, and every
    /// member of its to-manys is a new link.
    private func remapReinserted(_ object: ManagedObject, in context: ObjectContext) {
        for slot in object.toOne.indices {
            object.toOne[slot] = object.toOne[slot].map { current($0, in: context) }
        }
        for slot in object.toMany.indices {
            let state = object.toMany[slot]
            let members = (state.members ?? state.added).subtracting(state.removed)
            let current = Set(members.map { self.current($0, in: context) })
            object.toMany[slot] = ToManyState(members: current, added: current, removed: [])
        }
    }

    /// A returning object's relationships name its partners as they are now.
    private func remapReferences(of object: ManagedObject, in context: ObjectContext) {
        for slot in object.toOne.indices {
            object.toOne[slot] = object.toOne[slot].map { current($0, in: context) }
        }
        for slot in object.toMany.indices {
            let state = object.toMany[slot]
            let remap = { (ids: Set<ObjectID>) in Set(ids.map { self.current($0, in: context) }) }
            object.toMany[slot] = ToManyState(members: state.members.map(remap), added: remap(state.added), removed: remap(state.removed))
        }
    }

    /// Takes an object out of the context: one never saved leaves it (the same instance comes
    /// back on redo); a saved one is marked deleted, so that saving deletes its row.
    private func remove(_ object: ManagedObject, in context: ObjectContext) {
        guard UndoObjectState.existence(of: object, in: context) != .absent else { return }
        if object.isInserted {
            context.registry.removeValue(forKey: object.objectID)
            context.inserted.removeValue(forKey: object.objectID)
            context.updated.removeValue(forKey: object.objectID)
            context.deleted.removeValue(forKey: object.objectID)
            object.isDeleted = false
            object.owningContext = nil
        } else {
            markDeleted(object, in: context)
        }
    }

    private func markDeleted(_ object: ManagedObject, in context: ObjectContext) {
        object.isDeleted = true
        context.updated.removeValue(forKey: object.objectID)
        context.deleted[object.objectID] = object
    }

    private func markChanged(_ object: ManagedObject, in context: ObjectContext) {
        guard !object.isInserted, !object.isDeleted else { return }
        object.isMarkedUpdated = true
        context.updated[object.objectID] = object
    }

    /// The ID an object recorded as `id` has now: saved objects' permanent IDs, and reinserted
    /// objects' new ones.
    func current(_ id: ObjectID, in context: ObjectContext) -> ObjectID {
        var id = context.resolve(id)
        // Each step leaves a saved or reinserted ID for a newer one; the chain is short.
        var steps = 0
        while let next = reinsertedIDs[id], steps < 64 {
            id = context.resolve(next)
            steps += 1
        }
        return id
    }
}
