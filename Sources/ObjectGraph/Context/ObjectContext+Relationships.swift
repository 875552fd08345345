import Foundation

/// Relationship changes keep both sides in step, as Core Data's inverse management does:
/// setting `photo.place` adds the photo to `place.photos` and removes it from the old place's.
extension ObjectContext {
    func setToOne(of object: ManagedObject, index: Int, to target: ManagedObject?) throws {
        let relationship = object.entity.relationships[index]
        try checkMember(target, for: object)
        try loadFault(object)
        let old = object.toOne[relationship.slot]
        let new = target?.objectID
        guard old != new else { return }
        let previous = old.flatMap { registeredOrFault($0) }
        if let inverse = relationship.inverseIndex {
            // Everything the inverse bookkeeping touches is loaded before anything changes, so
            // that a load failure leaves both sides as they were.
            if let previous { try loadForDetach(from: previous, inverse: inverse) }
            if let target { try loadForAttach(object, to: target, inverse: inverse, forwardIndex: index) }
        }
        willChange(object)
        object.toOne[relationship.slot] = new
        objectDidChange(object)
        guard let inverse = relationship.inverseIndex else { return }
        if let previous { try detach(object.objectID, from: previous, inverse: inverse) }
        if let target { try attach(object, to: target, inverse: inverse, forwardIndex: index) }
    }

    func setToMany<Targets: Collection>(of object: ManagedObject, index: Int, to targets: Targets) throws
        where Targets.Element: ManagedObject {
        for target in targets { try checkMember(target, for: object) }
        let relationship = object.entity.relationships[index]
        let current = try loadedToManyIDs(of: object, index: index)
        let desired = Set(targets.map(\.objectID))
        let leaving = current.subtracting(desired).compactMap { registeredOrFault($0) }
        if let inverse = relationship.inverseIndex {
            for target in targets where !current.contains(target.objectID) {
                try loadForAttach(object, to: target, inverse: inverse, forwardIndex: index)
            }
            for target in leaving { try loadForDetach(from: target, inverse: inverse) }
        }
        // Room for the new members at once, rather than growing the sets one insert at a time.
        object.toMany[relationship.slot].reserveCapacity(targets.count)
        if current.isEmpty {
            // Nothing to unlink (a new object, typically): `link` for each target, with the
            // object's own bookkeeping done once rather than per target.
            willChange(object)
            var changed = false
            for target in targets where object.toMany[relationship.slot].members?.contains(target.objectID) != true {
                object.toMany[relationship.slot].insert(target.objectID)
                changed = true
                if let inverse = relationship.inverseIndex { try attach(object, to: target, inverse: inverse, forwardIndex: index) }
            }
            if changed { objectDidChange(object) }
            return
        }
        for target in leaving { try unlink(object, index: index, from: target) }
        for target in targets where !current.contains(target.objectID) {
            try link(object, index: index, to: target)
        }
    }

    /// Adds `target` to the to-many relationship `index` of `object`.
    func link(_ object: ManagedObject, index: Int, to target: ManagedObject) throws {
        let relationship = object.entity.relationships[index]
        try checkMember(target, for: object)
        if object.toMany[relationship.slot].members?.contains(target.objectID) == true { return }
        if let inverse = relationship.inverseIndex { try loadForAttach(object, to: target, inverse: inverse, forwardIndex: index) }
        willChange(object)
        object.toMany[relationship.slot].insert(target.objectID)
        objectDidChange(object)
        if let inverse = relationship.inverseIndex { try attach(object, to: target, inverse: inverse, forwardIndex: index) }
    }

    /// Removes `target` from the to-many relationship `index` of `object`.
    func unlink(_ object: ManagedObject, index: Int, from target: ManagedObject) throws {
        let relationship = object.entity.relationships[index]
        if let inverse = relationship.inverseIndex { try loadForDetach(from: target, inverse: inverse) }
        willChange(object)
        object.toMany[relationship.slot].remove(target.objectID)
        objectDidChange(object)
        if let inverse = relationship.inverseIndex { try detach(object.objectID, from: target, inverse: inverse) }
    }

    /// Loads what `attach` reads: `target` when its inverse is a to-one, and the partner it
    /// leaves when the forward side is a to-one too.
    private func loadForAttach(_ object: ManagedObject, to target: ManagedObject, inverse: Int, forwardIndex: Int) throws {
        guard !target.entity.relationships[inverse].isToMany else { return }
        try loadFault(target)
        guard !object.entity.relationships[forwardIndex].isToMany,
              let previous = target.toOne[target.entity.relationships[inverse].slot], previous != object.objectID,
              let earlier = registeredOrFault(previous) else { return }
        try loadFault(earlier)
    }

    /// Loads what `detach` reads: `target` when its inverse is a to-one.
    private func loadForDetach(from target: ManagedObject, inverse: Int) throws {
        if !target.entity.relationships[inverse].isToMany { try loadFault(target) }
    }

    /// Makes `target`'s inverse relationship include (to-many) or point at (to-one) `object`.
    func attach(_ object: ManagedObject, to target: ManagedObject, inverse: Int, forwardIndex: Int) throws {
        let inverseRelationship = target.entity.relationships[inverse]
        if inverseRelationship.isToMany {
            willChange(target)
            target.toMany[inverseRelationship.slot].insert(object.objectID)
            objectDidChange(target)
            return
        }
        try loadForAttach(object, to: target, inverse: inverse, forwardIndex: forwardIndex)
        willChange(target)
        let previous = target.toOne[inverseRelationship.slot]
        guard previous != object.objectID else { return }
        if let previous, let earlier = registeredOrFault(previous) {
            // The target leaves its former partner: clear the forward side there.
            let forward = object.entity.relationships[forwardIndex]
            willChange(earlier)
            if forward.isToMany {
                earlier.toMany[forward.slot].remove(target.objectID)
            } else if earlier.toOne[forward.slot] == target.objectID {
                earlier.toOne[forward.slot] = nil
            }
            objectDidChange(earlier)
        }
        target.toOne[inverseRelationship.slot] = object.objectID
        objectDidChange(target)
    }

    /// Makes `target`'s inverse relationship forget `id`.
    func detach(_ id: ObjectID, from target: ManagedObject, inverse: Int) throws {
        let inverseRelationship = target.entity.relationships[inverse]
        if inverseRelationship.isToMany {
            willChange(target)
            target.toMany[inverseRelationship.slot].remove(id)
            objectDidChange(target)
            return
        }
        try loadFault(target)
        willChange(target)
        if target.toOne[inverseRelationship.slot] == id {
            target.toOne[inverseRelationship.slot] = nil
            objectDidChange(target)
        }
    }

    private func checkMember(_ target: ManagedObject?, for object: ManagedObject) throws {
        guard let target else { return }
        guard target.owningContext === self, object.owningContext === self else {
            throw ContextError("\(target) belongs to another context than \(object)")
        }
    }

    /// Loads a to-many relationship of many objects with one query (relationship prefetching).
    ///
    /// - Throws: `ContextError` for an unknown relationship, `ObjectLoadError` or `SQLiteError`
    ///   when the store fails to answer.
    public func prefetch(_ relationshipName: String, of objects: [ManagedObject]) throws {
        try reportingLoadFailures { try prefetchRelationship(relationshipName, of: objects) }
    }

    func prefetchRelationship(_ relationshipName: String, of objects: [ManagedObject]) throws {
        var byEntity: [Int: [ManagedObject]] = [:]
        for object in objects where object.owningContext === self { byEntity[object.entity.number, default: []].append(object) }
        for (_, group) in byEntity {
            guard let relationship = group.first?.entity.relationship(named: relationshipName) else {
                throw ContextError("\(group.first?.entity.name ?? "?") has no relationship named \(relationshipName)")
            }
            if relationship.isToMany {
                let unloaded = group.filter { $0.toMany[relationship.slot].members == nil && !$0.objectID.isTemporary }
                guard !unloaded.isEmpty else { continue }
                let related: [Int64: [ObjectID]]
                if source === coordinator {
                    related = try coordinator.withStore { store in
                        try store.relatedIDs(of: unloaded.map(\.objectID.primaryKey), relationship: relationship)
                    }
                } else {
                    var collected: [Int64: [ObjectID]] = [:]
                    for object in unloaded {
                        collected[object.objectID.primaryKey] = try source.relatedIDs(of: object.objectID, relationship: relationship.index)
                    }
                    related = collected
                }
                for object in unloaded { object.toMany[relationship.slot].load((related[object.objectID.primaryKey] ?? []).map(resolve)) }
                let targets = Set(related.values.joined())
                try loadFaults(Array(targets))
            } else {
                var targets: [ObjectID] = []
                for object in group {
                    try loadFault(object)
                    if let target = object.toOne[relationship.slot] { targets.append(target) }
                }
                try loadFaults(Array(Set(targets)))
            }
        }
    }

    /// Registers and loads the objects for `ids` in one query per table.
    func loadFaults(_ ids: [ObjectID]) throws {
        let needed = ids.map(resolve).filter { id in registry[id].map(\.isFault) ?? true }.filter { !$0.isTemporary }
        guard !needed.isEmpty else { return }
        for snapshot in try source.snapshots(of: needed) { _ = register(snapshot) }
    }
}
