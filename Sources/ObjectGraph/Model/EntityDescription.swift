import Foundation
import SQLiteDB

/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, Sendable, Codable {
    /// Clear the inverse relationship of the related objects (the default).
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete while related objects exist.
    case deny
    /// Leave related objects alone (Core Data's "No Action"); may leave dangling references.
    case noAction
}

/// An attribute of an entity, as declared.
///
/// ```swift
/// AttributeDescription(name: "title", type: .string, isOptional: true)
/// ```
public struct AttributeDescription: Sendable, Equatable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// The default in stored form (see `AttributeValue.storedValue`), applied to new objects
    /// and, by migration, to existing rows.
    public var defaultValue: SQLiteValue?
    public var isIndexed: Bool
    /// Shorthand for a uniqueness constraint on this attribute alone.
    public var isUnique: Bool
    /// Transient attributes live in memory only and have no column.
    public var isTransient: Bool
    /// The attribute's name in the model it migrates from, when it was renamed.
    public var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`: changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Core Data's "Allows External Storage" (large values in files beside the store).
    public var allowsExternalBinaryDataStorage: Bool
    /// Core Data's "Preserve After Deletion": the value is kept in persistent history.
    public var preservesValueInHistoryOnDeletion: Bool
    /// A derived attribute's expression (`canonical:title`, `tags.@count`), as the model file
    /// writes it; nil for an ordinary attribute.
    public var derivationExpression: String?

    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: SQLiteValue? = nil,
                isIndexed: Bool = false, isUnique: Bool = false, isTransient: Bool = false,
                renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
                derivationExpression: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.isUnique = isUnique
        self.isTransient = isTransient
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.derivationExpression = derivationExpression
    }
}

/// A relationship of an entity, as declared.
///
/// ```swift
/// RelationshipDescription(name: "place", destination: "Place", inverse: "photos")
/// ```
public struct RelationshipDescription: Sendable, Equatable {
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name on the destination entity.
    public var inverse: String?
    public var isToMany: Bool
    /// Ordered to-many relationships are read like unordered ones.
    public var isOrdered: Bool
    public var deleteRule: DeleteRule
    public var isOptional: Bool
    /// Fewest related objects a to-many allows (0: no minimum).
    public var minCount: Int
    /// Most related objects a to-many allows (0: no maximum).
    public var maxCount: Int
    public var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`.
    public var versionHashModifier: String?
    /// For a many-to-many read from an existing store: its join table as the store names it,
    /// with this side's keys in `sourceColumn`. Nil: the table Core Data's rules name.
    public var storedJoinTable: ObjectModel.JoinTable.Layout?

    public init(name: String, destination: String, inverse: String?, isToMany: Bool = false,
                isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
                minCount: Int = 0, maxCount: Int = 0, renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.storedJoinTable = nil
    }
}

/// An entity as declared, before the model resolves it; the programmatic way to build a model.
///
/// ```swift
/// let ebook = EntityDescription(name: "Ebook", attributes: [
///     AttributeDescription(name: "title", type: .string),
///     AttributeDescription(name: "contents", type: .binary),
/// ])
/// let model = try ObjectModel(entities: [ebook])
/// ```
public struct EntityDescription: Sendable {
    public var name: String
    /// The parent entity's name, for inheritance (one table per hierarchy, as Core Data does).
    public var parent: String?
    public var isAbstract: Bool
    /// This entity's own attributes (not its parent's).
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]
    /// Each constraint lists attribute names whose values together are unique.
    public var uniquenessConstraints: [[String]]
    /// Compound indexes over attribute names.
    public var indexes: [[String]]
    /// The class for instances; `ManagedObject` itself when the model was built from data.
    public var objectClass: ManagedObject.Type
    /// The entity's name in the model it migrates from, when it was renamed.
    public var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`.
    public var versionHashModifier: String?
    /// For classes with property wrappers: the property name of each wrapper, by the order in
    /// which an instance initialises them.
    var wrapperOrder: [String]

    public init(name: String, parent: String? = nil, isAbstract: Bool = false,
                attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
                uniquenessConstraints: [[String]] = [], indexes: [[String]] = [],
                objectClass: ManagedObject.Type = ManagedObject.self, renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.objectClass = objectClass
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.wrapperOrder = []
    }
}

/// A model that cannot be built, with what is wrong and where.
public struct ModelError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "Invalid model: \(message)" }
}
