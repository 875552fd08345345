import Foundation
import SQLiteDB

/// How a save settles a conflict with changes another context or process saved first.
///
/// Core Data's policies, by their Core Data names:
/// - `error` (`NSErrorMergePolicy`): the save fails with `MergeConflictError`; the default.
/// - `storeTrumps` (`NSMergeByPropertyStoreTrumpMergePolicy`): per property, what the store
///   changed wins; this context's other changes are kept.
/// - `objectTrumps` (`NSMergeByPropertyObjectTrumpMergePolicy`): per property, what this context
///   changed wins; the store's other changes are kept. An insert that collides with a unique
///   constraint becomes an update of the existing row.
/// - `overwrite` (`NSOverwriteMergePolicy`): this context's objects are written whole.
/// - `rollback` (`NSRollbackMergePolicy`): this context's changes to conflicting objects are
///   dropped and the store's state is taken.
public enum MergePolicy: String, Sendable, CaseIterable {
    case error, storeTrumps, objectTrumps, overwrite, rollback

    /// True for policies that turn an insert colliding with a unique constraint into an update.
    var mergesUniqueConflicts: Bool { self != .error }
}

/// What one save changed, by object ID: what other contexts merge and observers receive.
public struct ChangeSet: Sendable, Equatable {
    package var inserted: Set<ObjectID> = []
    package var updated: Set<ObjectID> = []
    package var deleted: Set<ObjectID> = []
    /// The properties changed on each updated object, by name.
    public var changedKeys: [ObjectID: Set<String>] = [:]
    /// Temporary IDs of the saved inserts, mapped to their permanent IDs.
    package var permanentIDs: [ObjectID: ObjectID] = [:]
    /// A label for where the save came from (the saving context's name).
    public var author: String?
    /// True when the change set does not name the objects inserted and updated (nor their
    /// permanent IDs): a transaction of several saves that changed more objects than
    /// `StoreCoordinator.performTransaction` lists (a large import). Deleted objects are always
    /// named. A context merging it refreshes every object it holds without unsaved changes.
    var isAbridged = false

    /// An empty change set.
    public init() {}

    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// A new object in a save.
struct InsertRecord: Sendable {
    var id: ObjectID
    var values: [SQLiteValue]
    var toOne: [ObjectID?]
}

/// A changed object in a save.
struct UpdateRecord: Sendable {
    var id: ObjectID
    /// `Z_OPT` the change was based on; nil when the object's attributes were never loaded
    /// (a change to relationships only), which skips the optimistic-locking check.
    var baseVersion: Int64?
    /// Attribute slots changed.
    var changedSlots: [Int]
    /// To-one slots changed.
    var changedToOne: [Int]
    /// All current values and to-one targets (meaningful when `baseVersion` is not nil).
    var values: [SQLiteValue]
    var toOne: [ObjectID?]
    /// The committed values the change was based on.
    var originalValues: [SQLiteValue]
    var originalToOne: [ObjectID?]
    var changedKeys: Set<String>
}

struct DeleteRecord: Sendable {
    var id: ObjectID
    var baseVersion: Int64?
}

/// One row of a many-to-many join table, named from the owning side.
struct JoinLink: Sendable, Hashable {
    var table: String
    var source: ObjectID
    var destination: ObjectID

    // The keys tell links apart well enough; hashing the table's name too cost a string hash
    // per link (equality still compares all three).
    func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(destination)
    }
}

/// Everything one save hands to the context or store beneath.
struct CommitPayload: Sendable {
    var inserts: [InsertRecord] = []
    var updates: [UpdateRecord] = []
    var deletes: [DeleteRecord] = []
    /// Join-table rows to add and remove. Lists, not sets: only the owning side of a
    /// relationship names its links, each once (and adding a row twice is ignored anyway).
    var addedLinks: [JoinLink] = []
    var removedLinks: [JoinLink] = []
    /// The saving context's name.
    var author: String?
    /// The saving context's `transactionAuthor`, written to the store's history.
    var transactionAuthor: String?

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && addedLinks.isEmpty && removedLinks.isEmpty }
}

/// What the store (or parent context) reports back after a save.
struct CommitOutcome: Sendable {
    var changeSet = ChangeSet()
    /// New `Z_OPT` of each written object, by final ID.
    var versions: [ObjectID: Int64] = [:]
    /// Objects whose state a merge policy changed: the context adopts these snapshots.
    var resolved: [ObjectID: ObjectSnapshot] = [:]
    /// Objects a merge policy found deleted in the store.
    var deletedInStore: Set<ObjectID> = []
}

/// A save that met changes saved elsewhere first, under the `error` merge policy.
public struct MergeConflictError: Error, CustomStringConvertible, Sendable {
    package struct Conflict: Sendable, Equatable {
        package var objectID: ObjectID
        package var entityName: String
        /// `Z_OPT` in the store, or nil when the row was deleted.
        package var storedVersion: Int64?
        /// `Z_OPT` the change was based on.
        package var baseVersion: Int64
        /// Changed properties with the stored and in-memory values.
        package var storedValues: [String: SQLiteValue]
        package var objectValues: [String: SQLiteValue]
    }

    package var conflicts: [Conflict]

    /// One line listing each conflicting object with its stored and in-memory values.
    public var description: String {
        let parts = conflicts.map { conflict -> String in
            let stored = conflict.storedVersion.map { "version \($0)" } ?? "deleted"
            let keys = conflict.objectValues.keys.sorted().map { key in
                "\(key): stored \(conflict.storedValues[key] ?? .null), in memory \(conflict.objectValues[key] ?? .null)"
            }
            return "\(conflict.entityName) \(conflict.objectID) (based on version \(conflict.baseVersion), store has \(stored))"
                + (keys.isEmpty ? "" : " [" + keys.joined(separator: "; ") + "]")
        }
        return "Merge conflict: " + parts.joined(separator: ", ")
    }
}

/// A save that would break a uniqueness constraint.
public struct UniqueConstraintError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The entity whose constraint would break.
    public var entityName: String
    /// The constraint's attributes.
    public var attributes: [String]
    /// The values the object would share with another, one per attribute.
    public var values: [SQLiteValue]
    /// The object whose save would break the constraint.
    public var objectID: ObjectID

    /// One line naming the entity, the constraint and the values.
    public var description: String {
        let pairs = zip(attributes, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        return "Uniqueness constraint of \(entityName) (\(attributes.joined(separator: ", "))) violated: "
            + "another object already has \(pairs)"
    }
}
