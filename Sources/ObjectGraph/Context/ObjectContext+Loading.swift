import Foundation
import SQLiteDB

/// A fault or a to-many relationship that could not be loaded because the store (or a parent
/// context) failed to answer: an I/O error, a lock held too long, a full disk.
///
/// A load failure never turns into data. The object stays a fault (or the relationship stays
/// unloaded), so the next access tries again; the context records the failure, reports it from
/// its next throwing call, and refuses to save until `rollback()` or `reset()` (see
/// `ObjectContext.loadError`). A row that another process deleted is not a failure: as in Core
/// Data, its object reads as empty values.
///
/// ```swift
/// let photos = try context.fetch(FetchRequest<Photo>())
/// let titles = photos.map { $0.place?.name ?? "" }       // places load here, a batch at a time
/// try context.throwIfLoadFailed()                        // did any of them fail to load?
/// ```
public struct ObjectLoadError: Error, CustomStringConvertible {
    /// The object whose attributes, or whose to-many relationship, failed to load.
    public var objectID: ObjectID
    /// The name of that object's entity.
    public var entityName: String
    /// The to-many relationship that failed to load; nil when the object's attributes did.
    package var relationship: String?
    /// How many objects were loading together (a fault fires with up to 255 neighbours).
    package var batchCount: Int
    /// What the store or the parent context threw.
    package var underlying: any Error

    /// One line: what failed to load, for which object, and why.
    public var description: String {
        let key = objectID.isTemporary ? "t\(-objectID.primaryKey)" : "p\(objectID.primaryKey)"
        let what = relationship.map { "the \($0) of \(entityName) \(key)" }
            ?? "\(entityName) \(key)" + (batchCount > 1 ? " (with \(batchCount - 1) other objects)" : "")
        return "could not load \(what): \(underlying)"
    }
}

extension ObjectContext {
    // MARK: Recorded load failures

    /// The first load failure since the context was made or last rolled back or reset.
    ///
    /// Property getters cannot throw, so a fault or a to-many relationship that fails to load
    /// there reads as empty *this once* and stays unloaded; the failure is recorded here. While
    /// it is set, `save()` of any change throws it: changes made after a failed read may rest
    /// on values that were never there. `rollback()` and `reset()` clear it, and so does
    /// `clearLoadError()`.
    public var loadError: ObjectLoadError? { firstLoadFailure }

    /// Throws a load failure recorded since the last throwing call of this context reported one.
    ///
    /// `fetch`, `count`, `fetchObjectIDs`, `existingObject` and `prefetch` do this first, and
    /// throw any failure met while they run; call it yourself after reading properties, before
    /// you show or write what you read.
    ///
    /// - Throws: `ObjectLoadError`.
    public func throwIfLoadFailed() throws {
        guard let failure = unreportedLoadFailure else { return }
        unreportedLoadFailure = nil
        throw failure
    }

    /// Lets the context save again after a load failure, for a caller that knows its unsaved
    /// changes do not rest on what failed to load (`rollback()` is the safe choice otherwise).
    public func clearLoadError() {
        firstLoadFailure = nil
        unreportedLoadFailure = nil
    }

    func recordLoadFailure(_ failure: ObjectLoadError) {
        if firstLoadFailure == nil { firstLoadFailure = failure }
        if unreportedLoadFailure == nil { unreportedLoadFailure = failure }
        loadFailureCount &+= 1
    }

    /// Runs a public read: reports a failure recorded before it, and throws one met during it
    /// (predicates and sorts judged in memory fire faults through non-throwing getters).
    func reportingLoadFailures<T>(_ body: () throws -> T) throws -> T {
        try throwIfLoadFailed()
        let before = loadFailureCount
        let result = try body()
        if loadFailureCount != before { try throwIfLoadFailed() }
        return result
    }

    // MARK: Faults

    /// Loads a fault, together with up to 255 other unfired faults of the same table.
    ///
    /// A row that no longer exists (deleted by another process) leaves its object reading as
    /// empty values, as Core Data's inaccessible faults do; a save that then changes it meets a
    /// conflict, since the row is gone.
    ///
    /// - Throws: `ObjectLoadError` when the source fails; every object of the batch stays a fault.
    func loadFault(_ object: ManagedObject) throws {
        guard object.isFault else { return }
        let root = object.entity.root
        var batch = [object.objectID]
        if var waiting = unfiredFaults[root] {
            while batch.count < 256, let next = waiting.popLast() {
                if next != object.objectID, registry[next]?.isFault == true { batch.append(next) }
            }
            unfiredFaults[root] = waiting.isEmpty ? nil : waiting
        }
        let snapshots: [ObjectSnapshot]
        do {
            snapshots = try source.snapshots(of: batch)
        } catch {
            // The neighbours wait to be fired together again; the object itself is the one asked for.
            if batch.count > 1 { unfiredFaults[root, default: []].append(contentsOf: batch.dropFirst()) }
            throw ObjectLoadError(objectID: object.objectID, entityName: object.entity.name, relationship: nil,
                                  batchCount: batch.count, underlying: error)
        }
        for snapshot in snapshots {
            if let target = registry[resolve(snapshot.id)], target.isFault { target.install(snapshot) }
        }
        if object.isFault {
            // The row is gone: the object reads as empty rather than trapping, as Core Data's do.
            object.values = object.entity.nullValues
            object.committedValues = object.values
            object.committedToOne = object.toOne
            object.isFault = false
        }
    }

    /// `loadFault` for a getter or setter, which cannot throw: the failure is recorded instead.
    func fulfillFault(_ object: ManagedObject) {
        do {
            try loadFault(object)
        } catch let failure as ObjectLoadError {
            recordLoadFailure(failure)
        } catch {
            recordLoadFailure(ObjectLoadError(objectID: object.objectID, entityName: object.entity.name, relationship: nil,
                                              batchCount: 1, underlying: error))
        }
    }

    // MARK: To-many relationships

    /// The members of a to-many relationship, loading it from the source first when needed.
    ///
    /// - Throws: `ObjectLoadError` when the source fails; the relationship stays unloaded.
    func loadedToManyIDs(of object: ManagedObject, index: Int) throws -> Set<ObjectID> {
        let relationship = object.entity.relationships[index]
        if let members = object.toMany[relationship.slot].members { return members }
        try loadToManyThrowing(of: object, relationship: relationship)
        return object.toMany[relationship.slot].members ?? object.toMany[relationship.slot].added
    }

    private func loadToManyThrowing(of object: ManagedObject, relationship: EntityRelationship) throws {
        guard object.toMany[relationship.slot].members == nil else { return }
        guard !object.objectID.isTemporary else {
            object.toMany[relationship.slot].load([])
            return
        }
        let ids: [ObjectID]
        do {
            ids = try source.relatedIDs(of: object.objectID, relationship: relationship.index)
        } catch {
            throw ObjectLoadError(objectID: object.objectID, entityName: object.entity.name, relationship: relationship.name,
                                  batchCount: 1, underlying: error)
        }
        object.toMany[relationship.slot].load(ids.map(resolve))
    }

    /// Loads the members of a to-many relationship for a getter, which cannot throw: on failure
    /// the relationship stays unloaded (never an empty set recorded as loaded) and the failure
    /// is recorded.
    func loadToMany(of object: ManagedObject, relationship: EntityRelationship) {
        do {
            try loadToManyThrowing(of: object, relationship: relationship)
        } catch let failure as ObjectLoadError {
            recordLoadFailure(failure)
        } catch {
            recordLoadFailure(ObjectLoadError(objectID: object.objectID, entityName: object.entity.name,
                                              relationship: relationship.name, batchCount: 1, underlying: error))
        }
    }
}
