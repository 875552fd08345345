import Foundation
import SQLiteDB

/// The state of every object a save touches, taken before it touches it, so that a failed save
/// leaves the context exactly as it was.
final class SaveJournal {
    private struct Entry {
        let object: ManagedObject
        let values: [SQLiteValue]
        let toOne: [ObjectID?]
        let toMany: [ToManyState]
        let committedValues: [SQLiteValue]?
        let committedToOne: [ObjectID?]?
        let isFault: Bool
        let isDeleted: Bool
        let isMarkedUpdated: Bool
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    private let updated: [ObjectID: ManagedObject]
    private let deleted: [ObjectID: ManagedObject]
    private let registry: ObjectRegistry

    init(context: ObjectContext) {
        updated = context.updated
        deleted = context.deleted
        registry = context.registry
    }

    func record(_ object: ManagedObject, in context: ObjectContext) {
        let key = ObjectIdentifier(object)
        guard entries[key] == nil else { return }
        entries[key] = Entry(object: object, values: object.values, toOne: object.toOne, toMany: object.toMany,
                             committedValues: object.committedValues, committedToOne: object.committedToOne,
                             isFault: object.isFault, isDeleted: object.isDeleted, isMarkedUpdated: object.isMarkedUpdated)
    }

    func restore(_ context: ObjectContext) {
        for entry in entries.values {
            let object = entry.object
            object.values = entry.values
            object.toOne = entry.toOne
            object.toMany = entry.toMany
            object.committedValues = entry.committedValues
            object.committedToOne = entry.committedToOne
            object.isFault = entry.isFault
            object.isDeleted = entry.isDeleted
            object.isMarkedUpdated = entry.isMarkedUpdated
        }
        context.updated = updated
        context.deleted = deleted
        context.registry = registry
    }
}
