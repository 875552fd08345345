import Foundation
import SQLiteDB
import Synchronization

/// The identity of an object: its entity and its primary key (`Z_PK`).
///
/// `ObjectID` is `Sendable`: pass it between contexts and look the object up there.
/// An object inserted but not yet saved has a temporary ID (a negative key); saving gives it
/// its permanent key, and a context still resolves the temporary ID afterwards.
///
/// ```swift
/// let id = photo.objectID
/// let same = try otherContext.existingObject(with: id)
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The entity number (`Z_ENT`) of the object's own entity.
    package let entityNumber: Int
    /// `Z_PK` once saved; negative while temporary.
    package let primaryKey: Int64

    /// The ID of row `primaryKey` of entity `entityNumber`.
    public init(entityNumber: Int, primaryKey: Int64) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
    }

    package var isTemporary: Bool { primaryKey < 0 }

    // One word into the hasher instead of two: IDs are hashed on every registry lookup and
    // relationship change. Equal IDs give equal words; unequal ones rarely collide.
    /// Hashes the entity and key as one word.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(bitPattern: primaryKey) ^ (UInt64(truncatingIfNeeded: entityNumber) &<< 48))
    }

    /// The entity number and key, with `t` for a temporary ID.
    public var description: String {
        isTemporary ? "<entity \(entityNumber) t\(-primaryKey)>" : "<entity \(entityNumber) p\(primaryKey)>"
    }

    /// Core Data's URI form: `x-coredata://<store UUID>/<Entity>/p<key>` (`t` for temporary IDs).
    package func uriRepresentation(storeUUID: String, entityName: String) -> String {
        "x-coredata://\(storeUUID)/\(entityName)/\(isTemporary ? "t\(-primaryKey)" : "p\(primaryKey)")"
    }

    /// By entity number, then key: a stable order for IDs.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.entityNumber, lhs.primaryKey) < (rhs.entityNumber, rhs.primaryKey)
    }

    private static let temporaryCounter = Atomic<Int64>(0)

    /// A new temporary ID, unique in this process.
    static func temporary(entityNumber: Int) -> ObjectID {
        let next = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return ObjectID(entityNumber: entityNumber, primaryKey: -next)
    }
}

/// The committed state of one object as its source holds it: what a fault loads.
struct ObjectSnapshot: Sendable {
    let id: ObjectID
    /// `Z_OPT` as read; 0 when the object has never been saved.
    let version: Int64
    /// Attribute values by slot, in stored form (transient slots hold NULL).
    let values: [SQLiteValue]
    /// To-one targets by slot.
    let toOne: [ObjectID?]
}
