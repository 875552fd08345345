import Foundation
import SQLiteDB

/// A resolved attribute: its declaration plus where it lives in memory and on disk.
///
/// A class, not a struct: saving and faulting look attributes up for every object, and copying
/// a struct out of the entity's array retained each of its strings every time.
public final class EntityAttribute: Sendable {
    public let declaration: AttributeDescription
    /// Index into an object's attribute values.
    public let slot: Int
    /// The column in the hierarchy's table; nil for transient attributes.
    public let column: String?
    /// The number of the entity that declares it (an ancestor for inherited attributes).
    public let declaringEntity: Int
    public var name: String { declaration.name }
    public var type: AttributeType { declaration.type }

    init(declaration: AttributeDescription, slot: Int, column: String?, declaringEntity: Int) {
        self.declaration = declaration
        self.slot = slot
        self.column = column
        self.declaringEntity = declaringEntity
    }
}

/// How a relationship is kept in SQLite, in Core Data's layout.
public enum RelationshipStorage: Sendable, Equatable {
    /// A to-one: the target's primary key in `column`; `entityColumn` holds the target's `Z_ENT`
    /// when the destination has subentities.
    case foreignKey(column: String, entityColumn: String?)
    /// A to-many whose inverse is a to-one: the destination's rows point back here.
    case inverseForeignKey
    /// A many-to-many: rows of a join table pair this object's key with the destination's.
    case joinTable(table: String, sourceColumn: String, destinationColumn: String)
}

/// A resolved relationship (a class for the reason given at `EntityAttribute`).
public final class EntityRelationship: Sendable {
    public let declaration: RelationshipDescription
    /// Position in the entity's `relationships`.
    public let index: Int
    /// Index into an object's to-one or to-many storage, depending on `isToMany`.
    public let slot: Int
    /// The destination entity's number.
    public let destination: Int
    /// The inverse's position in the destination's `relationships`, if there is an inverse.
    public let inverseIndex: Int?
    public let storage: RelationshipStorage
    public let declaringEntity: Int
    public var name: String { declaration.name }
    public let isToMany: Bool
    public var deleteRule: DeleteRule { declaration.deleteRule }

    init(declaration: RelationshipDescription, index: Int, slot: Int, destination: Int, inverseIndex: Int?,
         storage: RelationshipStorage, declaringEntity: Int) {
        self.declaration = declaration
        self.index = index
        self.slot = slot
        self.destination = destination
        self.inverseIndex = inverseIndex
        self.storage = storage
        self.declaringEntity = declaringEntity
        self.isToMany = declaration.isToMany
    }
}

/// Where a property wrapper of an object's class points.
@usableFromInline
enum WrapperTarget: Sendable {
    case attribute(Int)
    case relationship(Int)
}

/// An entity of a resolved model: numbered as Core Data numbers it, with every inherited
/// property, its table and columns.
public final class Entity: Sendable, CustomStringConvertible {
    public let name: String
    /// Core Data's entity number (`Z_ENT`): depth first, alphabetical among siblings, from 1.
    public let number: Int
    public let isAbstract: Bool
    public let parent: Int?
    public let root: Int
    /// Direct subentities' numbers.
    public let subentities: [Int]
    /// This entity's number and every descendant's: the `Z_ENT` values a fetch includes.
    public let hierarchy: [Int]
    /// All attributes, inherited first.
    public let attributes: [EntityAttribute]
    /// All relationships, inherited first.
    public let relationships: [EntityRelationship]
    public let toOneCount: Int
    public let toManyCount: Int
    /// Uniqueness constraints as attribute slots.
    public let uniquenessConstraints: [[Int]]
    /// The fetch indexes this entity declares (not its ancestors'), with their columns.
    public let fetchIndexes: [FetchIndex]
    /// The table of this entity's hierarchy (`Z` + the root entity's name in capitals).
    public let table: String
    public let renamingIdentifier: String?
    /// A SHA-256 over the entity's definition; equal hashes mean the same schema.
    public let versionHash: Data
    public let objectClass: ManagedObject.Type
    let attributeSlots: [String: Int]
    let relationshipIndexes: [String: Int]
    @usableFromInline let wrapperTargets: [WrapperTarget]
    /// Slots of attributes a save requires a value for (neither optional nor transient).
    let requiredAttributeSlots: [Int]
    /// Relationships a save validates: required to-ones, to-manys with a count rule.
    let validatedRelationships: [Int]
    /// Attribute defaults a new object starts with, by slot.
    let defaultValues: [(slot: Int, value: SQLiteValue)]
    /// The state a new object starts from: every object shares these arrays until it changes
    /// one (copy on write), so making one costs no allocation for them.
    let emptyToMany: [ToManyState]
    let nullValues: [SQLiteValue]
    let nilToOne: [ObjectID?]

    init(name: String, number: Int, isAbstract: Bool, parent: Int?, root: Int, subentities: [Int],
         hierarchy: [Int], attributes: [EntityAttribute], relationships: [EntityRelationship],
         uniquenessConstraints: [[Int]], fetchIndexes: [FetchIndex] = [], table: String, renamingIdentifier: String?,
         versionHash: Data, objectClass: ManagedObject.Type, wrapperTargets: [WrapperTarget]) {
        self.name = name
        self.number = number
        self.isAbstract = isAbstract
        self.parent = parent
        self.root = root
        self.subentities = subentities
        self.hierarchy = hierarchy
        self.attributes = attributes
        self.relationships = relationships
        self.toOneCount = relationships.filter { !$0.isToMany }.count
        self.toManyCount = relationships.filter(\.isToMany).count
        self.emptyToMany = Array(repeating: ToManyState(), count: toManyCount)
        self.nullValues = Array(repeating: .null, count: attributes.count)
        self.nilToOne = Array(repeating: nil, count: toOneCount)
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.table = table
        self.renamingIdentifier = renamingIdentifier
        self.versionHash = versionHash
        self.objectClass = objectClass
        self.attributeSlots = Dictionary(attributes.map { ($0.name, $0.slot) }, uniquingKeysWith: { first, _ in first })
        self.relationshipIndexes = Dictionary(relationships.map { ($0.name, $0.index) }, uniquingKeysWith: { first, _ in first })
        self.wrapperTargets = wrapperTargets
        // Saving checks these for every changed object: worked out once, not per object.
        self.requiredAttributeSlots = attributes.filter { !$0.declaration.isOptional && !$0.declaration.isTransient }.map(\.slot)
        self.defaultValues = attributes.compactMap { attribute in attribute.declaration.defaultValue.map { (attribute.slot, $0) } }
        self.validatedRelationships = relationships.filter { relationship in
            let declaration = relationship.declaration
            return relationship.isToMany ? declaration.minCount > 0 || declaration.maxCount > 0 || !declaration.isOptional
                                         : !declaration.isOptional
        }.map(\.index)
    }

    public func attribute(named name: String) -> EntityAttribute? {
        attributeSlots[name].map { attributes[$0] }
    }

    public func relationship(named name: String) -> EntityRelationship? {
        relationshipIndexes[name].map { relationships[$0] }
    }

    /// True when `number` is this entity or one of its descendants.
    public func includes(_ number: Int) -> Bool { hierarchy.contains(number) }

    public var description: String { "\(name) (entity \(number), table \(table))" }
}
