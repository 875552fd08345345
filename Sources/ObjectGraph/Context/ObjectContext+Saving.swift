import Foundation
import SQLiteDB

extension ObjectContext {
    /// Saves this context's changes into its parent: the store in one SQLite transaction, or
    /// the parent context's memory.
    ///
    /// Delete rules run first, then validation; a save that fails changes nothing on disk and
    /// leaves this context as it was.
    ///
    /// A context with changes that failed to load a fault or a relationship since it was last
    /// rolled back or reset refuses to save (see `loadError`): its changes may rest on values
    /// that were never read.
    ///
    /// - Throws: `ObjectLoadError`, `ValidationError`, `MergeConflictError`,
    ///   `UniqueConstraintError`, `SQLiteError`.
    public func save() throws {
        if let error = deferredErrors.first {
            deferredErrors.removeAll()
            throw error
        }
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        if let failure = firstLoadFailure {
            unreportedLoadFailure = nil
            throw failure
        }
        // Held here only until the save is settled: the journal keeps a copy of the registry,
        // and while any reference to it lives, the first change to the registry (an object
        // deleted, an ID made permanent) copies the whole registry — every object of a
        // long-lived context, retained one by one — on every save.
        var journal: SaveJournal? = SaveJournal(context: self)
        self.journal = journal
        defer { self.journal = nil }
        let undoState = undoManager?.savedState
        let outcome: CommitOutcome
        let payload: CommitPayload
        do {
            try propagateDeletes()
            try validate()
            // What the delete rules changed belongs to the undo group of the save's event; the
            // save then clears the bookkeeping the open group compares with (ObjectContext+Undo).
            undoManager?.cutOpenGroupForSave()
            payload = makePayload()
            guard !payload.isEmpty else {
                self.journal = nil
                journal = nil
                finishEmptySave()
                return
            }
            outcome = try source.commit(payload, policy: mergePolicy)
        } catch {
            journal?.restore(self)
            if let undoState { undoManager?.restore(undoState) }
            throw error
        }
        // Let go of the journal's copies first: adopting the outcome changes the registry, which
        // would otherwise copy it whole.
        self.journal = nil
        journal = nil
        apply(outcome, payload: payload)
        if source === coordinator { coordinator.broadcast(outcome.changeSet, from: inbox) }
        notify(ContextChanges(reason: .saved, changeSet: outcome.changeSet))
    }

    /// Runs delete rules: cascade deletes, nullify clears inverses, deny refuses.
    private func propagateDeletes() throws {
        var queue = Array(deleted.values)
        var visited = Set<ObjectIdentifier>()
        while let object = queue.popLast() {
            guard visited.insert(ObjectIdentifier(object)).inserted else { continue }
            for relationship in object.entity.relationships {
                let targets: [ObjectID]
                // Loaded with errors thrown: a relationship that cannot be read must not pass for
                // an empty one (deny would let the delete through, cascade and nullify do nothing).
                if relationship.isToMany {
                    targets = Array(try loadedToManyIDs(of: object, index: relationship.index))
                } else {
                    try loadFault(object)
                    targets = object.toOne[relationship.slot].map { [$0] } ?? []
                }
                let live = targets.compactMap { registeredOrFault($0) }.filter { !$0.isDeleted }
                switch relationship.deleteRule {
                case .deny:
                    if !live.isEmpty {
                        throw ValidationError(objectID: object.objectID, entityName: object.entity.name,
                                              property: relationship.name, rule: .deny,
                                              detail: "refuses the delete: \(live.count) related object\(live.count == 1 ? "" : "s") remain")
                    }
                case .cascade:
                    for target in live {
                        delete(target)
                        queue.append(target)
                    }
                case .nullify:
                    guard let inverse = relationship.inverseIndex else { continue }
                    for target in live { try detach(object.objectID, from: target, inverse: inverse) }
                case .noAction:
                    continue
                }
            }
        }
    }

    private func validate() throws {
        let candidates = Array(inserted.values) + Array(updated.values)
        for object in candidates where !object.isDeleted {
            let entity = object.entity
            if !object.isFault && Self.mayBreakAttributeRules(object) {
                for attribute in entity.attributes {
                    let value = object.values[attribute.slot]
                    if case .real(let number) = value, number.isNaN {
                        throw ValidationError(objectID: object.objectID, entityName: entity.name, property: attribute.name,
                                              rule: .notANumber, detail: "is NaN, which cannot be stored")
                    }
                    if !attribute.declaration.isOptional && !attribute.declaration.isTransient && value.isNull {
                        throw ValidationError(objectID: object.objectID, entityName: entity.name, property: attribute.name,
                                              rule: .required, detail: "is required")
                    }
                }
            }
            for index in entity.validatedRelationships {
                let relationship = entity.relationships[index]
                let declaration = relationship.declaration
                if !relationship.isToMany {
                    if !object.isFault && object.toOne[relationship.slot] == nil {
                        throw ValidationError(objectID: object.objectID, entityName: entity.name, property: relationship.name,
                                              rule: .required, detail: "is required")
                    }
                    continue
                }
                let count = try loadedToManyIDs(of: object, index: relationship.index).count
                let minimum = max(declaration.minCount, declaration.isOptional ? 0 : 1)
                if count < minimum {
                    throw ValidationError(objectID: object.objectID, entityName: entity.name, property: relationship.name,
                                          rule: .tooFewObjects, detail: "has \(count) objects, fewer than the minimum \(minimum)")
                }
                if declaration.maxCount > 0 && count > declaration.maxCount {
                    throw ValidationError(objectID: object.objectID, entityName: entity.name, property: relationship.name,
                                          rule: .tooManyObjects, detail: "has \(count) objects, more than the maximum \(declaration.maxCount)")
                }
            }
        }
    }

    /// A quick look for a NaN or a missing required value; only then are the attributes gone
    /// through one by one, in slot order, to name the first at fault.
    private static func mayBreakAttributeRules(_ object: ManagedObject) -> Bool {
        for value in object.values {
            if case .real(let number) = value, number.isNaN { return true }
        }
        for slot in object.entity.requiredAttributeSlots where object.values[slot].isNull { return true }
        return false
    }

    /// Turns the context's changes into what the parent applies.
    func makePayload() -> CommitPayload {
        var payload = CommitPayload()
        payload.author = name
        payload.transactionAuthor = transactionAuthor
        payload.inserts.reserveCapacity(inserted.count)
        // A new object usually brings a few links (a photo's tags).
        payload.addedLinks.reserveCapacity(inserted.count * 4)
        // Creation order (temporary keys count down), so that keys are handed out in that order.
        for object in inserted.values.sorted(by: { $0.objectID.primaryKey > $1.objectID.primaryKey }) where !object.isDeleted {
            payload.inserts.append(InsertRecord(id: object.objectID, values: object.values, toOne: object.toOne))
            collectLinks(of: object, into: &payload)
        }
        for object in updated.values where !object.isDeleted && !object.isInserted {
            var changedSlots: [Int] = []
            var changedToOne: [Int] = []
            var keys = Set<String>()
            if !object.isFault, let committed = object.committedValues {
                for slot in object.values.indices where object.values[slot] != committed[slot] {
                    changedSlots.append(slot)
                    keys.insert(object.entity.attributes[slot].name)
                }
            }
            if !object.isFault, let committed = object.committedToOne {
                for relationship in object.entity.relationships where !relationship.isToMany
                    && object.toOne[relationship.slot] != committed[relationship.slot] {
                    changedToOne.append(relationship.slot)
                    keys.insert(relationship.name)
                }
            }
            for relationship in object.entity.relationships where relationship.isToMany && object.toMany[relationship.slot].hasChanges {
                keys.insert(relationship.name)
            }
            guard !keys.isEmpty else { continue }
            collectLinks(of: object, into: &payload)
            payload.updates.append(UpdateRecord(
                id: object.objectID, baseVersion: object.isFault ? nil : object.version,
                changedSlots: changedSlots, changedToOne: changedToOne,
                values: object.values, toOne: object.toOne,
                originalValues: object.committedValues ?? [], originalToOne: object.committedToOne ?? [],
                changedKeys: keys))
        }
        for object in deleted.values where !object.isInserted {
            payload.deletes.append(DeleteRecord(id: object.objectID, baseVersion: object.isFault ? nil : object.version))
        }
        return payload
    }

    private func collectLinks(of object: ManagedObject, into payload: inout CommitPayload) {
        for relationship in object.entity.relationships where relationship.isToMany {
            guard object.toMany[relationship.slot].hasChanges, let table = model.linkName(of: relationship) else { continue }
            // A to-many without an inverse is its links' only side.
            let isOwner = relationship.inverseIndex == nil
                || model.ownsJoinTable(entity: object.entity.number, relationship: relationship.index)
            // Inverses change together (both objects are marked changed, and are saved, or are
            // deleted, which drops their links anyway): the owning side names every link, so the
            // other side's copy of it need not be hashed into the set again.
            if !isOwner && relationship.inverseIndex != nil { continue }
            let state = object.toMany[relationship.slot]
            func link(_ other: ObjectID) -> JoinLink {
                isOwner ? JoinLink(table: table, source: object.objectID, destination: other)
                        : JoinLink(table: table, source: other, destination: object.objectID)
            }
            for id in state.added { payload.addedLinks.append(link(id)) }
            for id in state.removed { payload.removedLinks.append(link(id)) }
        }
    }

    /// Adopts what the save produced: permanent IDs, versions, settled conflicts; clears changes.
    func apply(_ outcome: CommitOutcome, payload: CommitPayload) {
        let saved = Array(inserted.values) + Array(updated.values)
        let mapping = outcome.changeSet.permanentIDs
        for (temporary, permanent) in mapping {
            aliases[temporary] = permanent
            guard let object = registry.removeValue(forKey: temporary) else { continue }
            if let earlier = registry[permanent], earlier !== object { earlier.owningContext = nil }
            object.objectID = permanent
            registry[permanent] = object
        }
        if !mapping.isEmpty {
            // What saved objects added and removed is cleared below: only what stays is remapped.
            for object in saved { remapReferences(in: object, mapping, includingUnsaved: object.isDeleted) }
        }
        for object in deleted.values {
            registry.removeValue(forKey: object.objectID)
            object.owningContext = nil
        }
        if !deleted.isEmpty && !model.hiddenKeys.isEmpty { forgetDeletedMembers(Set(deleted.keys)) }
        for object in saved where !object.isDeleted {
            if let version = outcome.versions[object.objectID] { object.version = version }
            if let resolved = outcome.resolved[object.objectID] {
                object.install(resolved)
            } else if !object.isFault {
                object.committedValues = object.values
                object.committedToOne = object.toOne
            }
            for slot in object.toMany.indices {
                object.toMany[slot].added.removeAll()
                object.toMany[slot].removed.removeAll()
            }
            object.isInserted = false
            object.isMarkedUpdated = false
        }
        for id in outcome.deletedInStore {
            if let object = registry.removeValue(forKey: resolve(id)) {
                object.isDeleted = true
                object.owningContext = nil
            }
        }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
    }

    /// A to-many without an inverse has no other side for a delete to clear: the objects that
    /// listed a deleted member stop listing it (their store rows never held its key).
    private func forgetDeletedMembers(_ gone: Set<ObjectID>) {
        for object in registry.values {
            for relationship in object.entity.relationships where relationship.isToMany && relationship.inverseIndex == nil {
                if object.toMany[relationship.slot].members?.isDisjoint(with: gone) == false {
                    object.toMany[relationship.slot].members?.subtract(gone)
                }
            }
        }
    }

    /// A save with nothing to write still ends the context's changes: objects inserted and deleted
    /// before it leave the context (they never reached the store, as in Core Data), and objects
    /// marked updated whose values came back to the committed ones stop being updated.
    private func finishEmptySave() {
        apply(CommitOutcome(), payload: CommitPayload())
    }

    func remapReferences(in object: ManagedObject, _ mapping: [ObjectID: ObjectID], includingUnsaved: Bool = true) {
        for slot in object.toOne.indices {
            if let id = object.toOne[slot], let permanent = mapping[id] { object.toOne[slot] = permanent }
        }
        if let committed = object.committedToOne {
            object.committedToOne = committed.map { id in id.flatMap { mapping[$0] ?? $0 } }
        }
        for slot in object.toMany.indices {
            let remapsMembers = object.toMany[slot].members?.contains(where: \.isTemporary) == true
            let remapsAdded = includingUnsaved && object.toMany[slot].added.contains(where: \.isTemporary)
            guard remapsMembers || remapsAdded else { continue }
            var state = object.toMany[slot]
            if remapsMembers { state.members = state.members.map { Set($0.map { mapping[$0] ?? $0 }) } }
            if remapsAdded { state.added = Set(state.added.map { mapping[$0] ?? $0 }) }
            object.toMany[slot] = state
        }
    }
}
