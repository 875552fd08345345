import Foundation
import SQLiteDB

/// What changed in a context, for its observers (fetched results controllers among them).
public struct ContextChanges: Sendable {
    package enum Reason: Sendable {
        /// The context saved its own changes.
        case saved
        /// The context merged changes saved elsewhere.
        case merged
        /// The context dropped its changes (rollback) or everything (reset).
        case discarded
    }

    package var reason: Reason
    package var changeSet: ChangeSet
}

/// Keeps an observation alive; cancel it (or release it) to stop observing.
public final class ObservationToken {
    private var cancellation: (() -> Void)?
    init(_ cancellation: @escaping () -> Void) { self.cancellation = cancellation }
    package func cancel() {
        cancellation?()
        cancellation = nil
    }
    deinit { cancellation?() }
}

extension ObjectContext {
    /// Calls `handler` after every save, merge or rollback of this context.
    ///
    /// ```swift
    /// let token = context.observeChanges { changes in print(changes.changeSet.updated) }
    /// ```
    public func observeChanges(_ handler: @escaping (ContextChanges) -> Void) -> ObservationToken {
        let key = UUID()
        observers[key] = handler
        return ObservationToken { [weak self] in self?.observers.removeValue(forKey: key) }
    }

    func notify(_ changes: ContextChanges) {
        for observer in observers.values { observer(changes) }
    }

    // MARK: Merging

    /// Merges saves committed elsewhere that this context has not seen yet; returns how many.
    ///
    /// Permanent IDs of objects this context saw as temporary are always adopted; the objects
    /// themselves are refreshed only when `automaticallyMergesChanges` is on or `force` is true.
    @discardableResult
    package func mergePendingChanges(force: Bool = false) -> Int {
        let pending = inbox.drain()
        if !pending.isEmpty { cutUndoGroup() }
        for changeSet in pending {
            adoptPermanentIDs(changeSet.permanentIDs)
            if automaticallyMergesChanges || force { merge(changeSet) }
        }
        return pending.count
    }

    func drainInbox() {
        if !inbox.isEmpty { mergePendingChanges() }
    }

    /// Merges one change set: deleted objects leave the context, updated ones not changed here
    /// turn into faults that reload on next use; observers hear about it.
    public func merge(_ changeSet: ChangeSet) {
        cutUndoGroup()
        adoptPermanentIDs(changeSet.permanentIDs)
        for id in changeSet.deleted {
            guard let object = registry.removeValue(forKey: resolve(id)) else { continue }
            inserted.removeValue(forKey: object.objectID)
            updated.removeValue(forKey: object.objectID)
            deleted.removeValue(forKey: object.objectID)
            object.isDeleted = true
            object.owningContext = nil
        }
        if !changeSet.deleted.isEmpty {
            for object in registry.values {
                for slot in object.toMany.indices where object.toMany[slot].members != nil {
                    object.toMany[slot].members?.subtract(changeSet.deleted)
                }
            }
        }
        for id in changeSet.updated {
            guard let object = registry[resolve(id)], !object.isFault, !hasRealChanges(object) else { continue }
            refresh(object, mergeChanges: false)
        }
        if changeSet.isAbridged {
            // Anything may have changed: what is held without unsaved changes reloads on next use.
            for object in Array(registry.values) where !hasRealChanges(object) {
                if object.isFault {
                    for slot in object.toMany.indices { object.toMany[slot].members = nil }
                } else {
                    refresh(object, mergeChanges: false)
                }
            }
        }
        notify(ContextChanges(reason: .merged, changeSet: changeSet))
    }

    private func adoptPermanentIDs(_ mapping: [ObjectID: ObjectID]) {
        guard mapping.contains(where: { registry[$0.key] != nil || aliases[$0.key] == nil }) else { return }
        var applied: [ObjectID: ObjectID] = [:]
        for (temporary, permanent) in mapping where aliases[temporary] == nil {
            aliases[temporary] = permanent
            applied[temporary] = permanent
            guard let object = registry.removeValue(forKey: temporary) else { continue }
            object.objectID = permanent
            registry[permanent] = object
            for set in [\ObjectContext.inserted, \.updated, \.deleted] where self[keyPath: set][temporary] != nil {
                self[keyPath: set].removeValue(forKey: temporary)
                self[keyPath: set][permanent] = object
            }
        }
        guard !applied.isEmpty else { return }
        for object in registry.values { remapReferences(in: object, applied) }
    }

    // MARK: Refreshing and discarding

    /// Reloads `object` from the source on next use. With `mergeChanges`, it reloads now and its
    /// unsaved attribute changes are reapplied on top of the fresh values; without, they are
    /// dropped. A reload that fails leaves the object as it was and is recorded (`loadError`).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.owningContext === self, !object.isInserted else { return }
        cutUndoGroup()
        if mergeChanges, !object.isFault, let committed = object.committedValues {
            let changed = object.values.indices.filter { object.values[$0] != committed[$0] }.map { ($0, object.values[$0]) }
            let toOneChanged = object.toOne.indices.filter { object.toOne[$0] != object.committedToOne?[$0] }.map { ($0, object.toOne[$0]) }
            let toMany = object.toMany
            let snapshot: ObjectSnapshot?
            do {
                snapshot = try source.snapshot(of: object.objectID)
            } catch {
                // The object keeps its stale values and its changes; the failure is recorded, so
                // that the next save refuses (`loadError`) rather than write over what it missed.
                recordLoadFailure(ObjectLoadError(objectID: object.objectID, entityName: object.entity.name,
                                                  relationship: nil, batchCount: 1, underlying: error))
                return
            }
            // A row deleted elsewhere: the changes stay, and saving them meets the conflict.
            guard let snapshot else { return }
            object.install(snapshot)
            for (slot, value) in changed { object.values[slot] = value }
            for (slot, value) in toOneChanged { object.toOne[slot] = value }
            for slot in toMany.indices {
                object.toMany[slot] = ToManyState(members: nil, added: toMany[slot].added, removed: toMany[slot].removed)
            }
            return
        }
        object.turnIntoFault()
        updated.removeValue(forKey: object.objectID)
        unfiredFaults[object.entity.root, default: []].append(object.objectID)
    }

    /// Drops every unsaved change: inserted objects leave, deleted ones come back, changed
    /// ones reload on next use.
    public func rollback() {
        // As Core Data's: the undo stack goes with the changes.
        undoManager?.removeAllActions()
        let changeSet = pendingChangeSet()
        for object in inserted.values {
            registry.removeValue(forKey: object.objectID)
            object.owningContext = nil
        }
        for object in Array(updated.values) + Array(deleted.values) where object.owningContext === self {
            object.isDeleted = false
            object.turnIntoFault()
            unfiredFaults[object.entity.root, default: []].append(object.objectID)
        }
        // Objects that point at dropped inserts hold them only in unsaved state, now gone.
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        deferredErrors.removeAll()
        clearLoadError()
        notify(ContextChanges(reason: .discarded, changeSet: changeSet))
    }

    /// Forgets every object; objects held elsewhere are no longer managed by this context.
    public func reset() {
        undoManager?.removeAllActions()
        let changeSet = pendingChangeSet()
        for object in registry.values { object.owningContext = nil }
        registry.removeAll()
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        unfiredFaults.removeAll()
        deferredErrors.removeAll()
        clearLoadError()
        _ = inbox.drain()
        notify(ContextChanges(reason: .discarded, changeSet: changeSet))
    }

    private func pendingChangeSet() -> ChangeSet {
        var changeSet = ChangeSet()
        changeSet.inserted = Set(inserted.keys)
        changeSet.updated = Set(updated.keys)
        changeSet.deleted = Set(deleted.keys)
        return changeSet
    }
}
