import Foundation
import SQLiteDB

/// New objects of one entity written straight into the store, outside any context: Core
/// Data's `NSBatchInsertRequest`, for imports where making a managed object per row costs
/// more than SQLite's own work.
///
/// Properties are named once, as keys; each row is then filled by key. A row starts from the
/// attributes' default values.
///
/// ```swift
/// var insert = try BatchInsert(entityName: "Photo", in: model)
/// let unique = try insert.attribute("unique"), place = try insert.toOne("place"), tags = try insert.toMany("tags")
/// var row = insert.newRow()
/// row.set(unique, "42")
/// row[place] = paris.objectID
/// row[tags] = [beach.objectID, sunset.objectID]
/// insert.append(row)
/// let result = try coordinator.execute(insert)   // result.objectIDs[0] is the new photo
/// ```
///
/// Unlike Core Data's, the rows are checked as a save checks objects: every value must suit
/// its attribute's type, required attributes and to-ones need a value, to-many counts keep
/// their bounds, related objects must exist in the store, and unique values must be free.
/// The first broken rule fails the whole batch and nothing is written (`BatchInsertError`).
/// The change set is broadcast like a save's: new objects as inserted, related objects as
/// updated (their inverse relationships gained members; their `Z_OPT` is left alone).
///
/// Relationships a batch can set: to-ones whose inverse is a to-many (or that have none), and
/// many-to-manys. A to-many whose inverse is a to-one would move objects away from other
/// owners, and a one-to-one would unlink another object: those need a context.
public struct BatchInsert: Sendable {
    /// An attribute of the entity, named once.
    public struct AttributeKey: Sendable, Hashable {
        @usableFromInline let slot: Int
    }

    /// A to-one relationship of the entity, named once.
    public struct ToOneKey: Sendable, Hashable {
        let index: Int
        let slot: Int
    }

    /// A many-to-many relationship of the entity, named once.
    public struct ToManyKey: Sendable, Hashable {
        let index: Int
        let slot: Int
    }

    /// One new object: attribute values in stored form and related objects' IDs.
    public struct Row: Sendable {
        @usableFromInline var values: [SQLiteValue]
        var toOne: [ObjectID?]
        var toMany: [[ObjectID]]

        /// An attribute's value in stored form (`SQLiteValue`); `.null` for none.
        public subscript(key: AttributeKey) -> SQLiteValue {
            get { values[key.slot] }
            set { values[key.slot] = newValue }
        }

        /// Sets an attribute from its Swift value; nil stores NULL.
        @inlinable
        public mutating func set<Value: AttributePrimitive>(_ key: AttributeKey, _ value: Value?) {
            values[key.slot] = value?.storedValue ?? .null
        }

        /// The object a to-one relationship points at (a saved object: a permanent ID).
        public subscript(key: ToOneKey) -> ObjectID? {
            get { toOne[key.slot] }
            set { toOne[key.slot] = newValue }
        }

        /// The objects a many-to-many relationship holds (saved objects: permanent IDs).
        public subscript(key: ToManyKey) -> [ObjectID] {
            get { toMany[key.slot] }
            set { toMany[key.slot] = newValue }
        }
    }

    /// The entity whose objects the batch inserts.
    public let entity: Entity
    let model: ObjectModel
    /// The rows appended so far, in insertion order.
    public private(set) var rows: [Row] = []
    private let blankRow: Row

    /// A batch for `entityName` of `model`.
    ///
    /// - Throws: `BatchInsertError` when the model has no such entity or it is abstract.
    public init(entityName: String, in model: ObjectModel) throws {
        guard let entity = model.entity(named: entityName) else {
            throw BatchInsertError(entityName: entityName, detail: "the model has no entity named \(entityName)")
        }
        guard !entity.isAbstract else {
            throw BatchInsertError(entityName: entityName, detail: "\(entityName) is abstract: its objects cannot be made")
        }
        self.entity = entity
        self.model = model
        var values = entity.nullValues
        for (slot, value) in entity.defaultValues { values[slot] = value }
        blankRow = Row(values: values, toOne: entity.nilToOne, toMany: Array(repeating: [], count: entity.toManyCount))
    }

    /// The key of a stored attribute.
    public func attribute(_ name: String) throws -> AttributeKey {
        guard let attribute = entity.attribute(named: name) else {
            throw BatchInsertError(entityName: entity.name, property: name, detail: "is not an attribute of \(entity.name)")
        }
        guard attribute.column != nil else {
            throw BatchInsertError(entityName: entity.name, property: name, detail: "is transient: a batch insert stores nothing for it")
        }
        return AttributeKey(slot: attribute.slot)
    }

    /// The key of a to-one relationship whose inverse, if any, is a to-many.
    public func toOne(_ name: String) throws -> ToOneKey {
        let relationship = try self.relationship(name)
        guard !relationship.isToMany, case .foreignKey = relationship.storage else {
            throw BatchInsertError(entityName: entity.name, property: name, detail: "is not a to-one relationship")
        }
        if let inverse = inverse(of: relationship), !inverse.isToMany {
            throw BatchInsertError(entityName: entity.name, property: name,
                                   detail: "is one-to-one: setting it would unlink another object, which needs a context")
        }
        return ToOneKey(index: relationship.index, slot: relationship.slot)
    }

    /// The key of a many-to-many relationship.
    public func toMany(_ name: String) throws -> ToManyKey {
        let relationship = try self.relationship(name)
        guard relationship.isToMany else {
            throw BatchInsertError(entityName: entity.name, property: name, detail: "is not a to-many relationship")
        }
        guard case .joinTable = relationship.storage else {
            let detail = relationship.inverseIndex == nil
                ? "has no inverse: its members keep their owner in their own rows, which a batch insert does not write (use a context)"
                : "has a to-one inverse: set that side (it would move objects away from their owners)"
            throw BatchInsertError(entityName: entity.name, property: name, detail: detail)
        }
        return ToManyKey(index: relationship.index, slot: relationship.slot)
    }

    /// A row holding the attributes' default values and no related objects.
    public func newRow() -> Row { blankRow }

    /// Adds a row; it is checked when the batch runs.
    public mutating func append(_ row: Row) {
        rows.append(row)
    }

    package mutating func reserveCapacity(_ count: Int) {
        rows.reserveCapacity(count)
    }

    package var isEmpty: Bool { rows.isEmpty }

    private func relationship(_ name: String) throws -> EntityRelationship {
        guard let relationship = entity.relationship(named: name) else {
            throw BatchInsertError(entityName: entity.name, property: name, detail: "is not a relationship of \(entity.name)")
        }
        return relationship
    }

    func inverse(of relationship: EntityRelationship) -> EntityRelationship? {
        relationship.inverseIndex.map { model[relationship.destination].relationships[$0] }
    }
}

/// What a batch insert made.
public struct BatchInsertResult: Sendable {
    /// The new objects' IDs, in row order.
    package var objectIDs: [ObjectID]
    /// What was broadcast: the new objects, and the related objects whose inverses grew.
    package var changeSet: ChangeSet
}

/// A batch insert refused: the first row that breaks a rule, or a key that cannot be used.
///
/// `Batch insert of Photo, row 3: title is required`.
public struct BatchInsertError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The entity of the batch.
    public var entityName: String
    /// The row at fault (from 0), when a row is.
    public var row: Int?
    /// The property at fault, when one is.
    public var property: String?
    package var detail: String

    /// An error about `row` and `property` of a batch of `entityName`.
    public init(entityName: String, row: Int? = nil, property: String? = nil, detail: String) {
        self.entityName = entityName
        self.row = row
        self.property = property
        self.detail = detail
    }

    /// One line: `Batch insert of Photo, row 3: title is required`.
    public var description: String {
        "Batch insert of \(entityName)" + (row.map { ", row \($0)" } ?? "") + ": "
            + (property.map { "\($0) " } ?? "") + detail
    }
}

extension StoreCoordinator {
    /// Runs a batch insert in one transaction (a savepoint inside `performTransaction`) and
    /// broadcasts its change set; nothing is written when it throws.
    ///
    /// - Throws: `BatchInsertError`, or `SQLiteError` when SQLite fails.
    @discardableResult
    public func execute(_ insert: BatchInsert) throws -> BatchInsertResult {
        guard !isReadOnly else { throw StoreError("the store is open read-only") }
        guard insert.model === model else {
            throw BatchInsertError(entityName: insert.entity.name, detail: "the batch was made for another model")
        }
        guard !insert.isEmpty else { return BatchInsertResult(objectIDs: [], changeSet: ChangeSet()) }
        let result = try withStore { store in
            try store.recordingHistory {
                try store.connection.transaction(.immediate) {
                    let result = try store.write(insert)
                    if let history = store.history {
                        let updated = result.changeSet.updated.sorted(by: HistoryRecorder.keyOrder)
                        try history.record(inserted: result.objectIDs,
                                           updated: updated.map { ($0, result.changeSet.changedKeys[$0] ?? []) },
                                           deleted: [], tombstones: [:], author: history.defaultAuthor, contextName: nil)
                    }
                    return result
                }
            }
        }
        broadcast(result.changeSet, from: nil)
        return result
    }
}
