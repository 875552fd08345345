import Foundation
import SQLiteDB

/// A resolved attribute: its declaration plus where it lives in memory and on disk.
///
/// A class, not a struct: saving and faulting look attributes up for every object, and copying
/// a struct out of the entity's array retained each of its strings every time.
public final class EntityAttribute: Sendable {
    package let declaration: AttributeDescription
    /// Index into an object's attribute values.
    package let slot: Int
    /// The column in the hierarchy's table; nil for transient attributes.
    public let column: String?
    /// The number of the entity that declares it (an ancestor for inherited attributes).
    package let declaringEntity: Int
    /// For an element of a composite attribute, the composite's name: the element's own name is
    /// its path from there (`location.latitude`).
    public let composite: String?
    /// The attribute's name (a composite's element: its path).
    public var name: String { declaration.name }
    /// The attribute's type.
    public var type: AttributeType { declaration.type }

    init(declaration: AttributeDescription, slot: Int, column: String?, declaringEntity: Int, composite: String? = nil) {
        self.declaration = declaration
        self.slot = slot
        self.column = column
        self.declaringEntity = declaringEntity
        self.composite = composite
    }
}

/// A composite attribute of an entity: its declaration (with its elements) and who declares it.
public struct EntityComposite: Sendable {
    package let declaration: AttributeDescription
    /// The number of the entity that declares it (an ancestor for an inherited composite).
    package let declaringEntity: Int
    /// The composite's name.
    public var name: String { declaration.name }
}

/// How a relationship is kept in SQLite, in Core Data's layout.
package enum RelationshipStorage: Sendable, Equatable {
    /// A to-one: the target's primary key in `column`; `entityColumn` holds the target's `Z_ENT`
    /// when the destination has subentities.
    case foreignKey(column: String, entityColumn: String?)
    /// A to-many kept by the destination's rows, which hold this object's key in `column`: the
    /// inverse to-one's column, or, for a to-many without an inverse (`isHidden`), the column
    /// Core Data adds to the destination's table for it (`Z<n><NAME>`, no property of its own).
    case inverseForeignKey(column: String, isHidden: Bool = false)
    /// A many-to-many: rows of a join table pair this object's key with the destination's.
    case joinTable(table: String, sourceColumn: String, destinationColumn: String)
}

/// A resolved relationship (a class for the reason given at `EntityAttribute`).
public final class EntityRelationship: Sendable {
    package let declaration: RelationshipDescription
    /// Position in the entity's `relationships`.
    public let index: Int
    /// Index into an object's to-one or to-many storage, depending on `isToMany`.
    package let slot: Int
    /// The destination entity's number.
    public let destination: Int
    /// The inverse's position in the destination's `relationships`, if there is an inverse.
    package let inverseIndex: Int?
    package let storage: RelationshipStorage
    package let declaringEntity: Int
    /// The relationship's name.
    public var name: String { declaration.name }
    package let isToMany: Bool
    /// What deleting the source does to the destination objects.
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
    /// The entity's name, unique in the model.
    public let name: String
    /// Core Data's entity number (`Z_ENT`): depth first, alphabetical among siblings, from 1.
    public let number: Int
    /// Whether only subentities have objects.
    public let isAbstract: Bool
    /// The parent entity's number; nil for a root.
    public let parent: Int?
    package let root: Int
    /// Direct subentities' numbers.
    package let subentities: [Int]
    /// This entity's number and every descendant's: the `Z_ENT` values a fetch includes.
    package let hierarchy: [Int]
    /// All attributes, inherited first. A composite attribute appears as its leaf elements, each
    /// with a slot and a column of its own and named by its path (`location.latitude`).
    public let attributes: [EntityAttribute]
    /// The composite attributes as declared (inherited first): their elements' values are in
    /// `attributes`.
    package let composites: [EntityComposite]
    /// Named fetch indexes this entity declares (not inherited ones), as declared.
    public let fetchIndexes: [FetchIndexDescription]
    /// All relationships, inherited first.
    public let relationships: [EntityRelationship]
    let toOneCount: Int
    /// Each relationship's slot, by relationship index: a getter reads it without taking a
    /// reference to the relationship (a retain and a release on every read of a to-one).
    let relationshipSlots: [Int]
    let toManyCount: Int
    /// Uniqueness constraints as attribute slots.
    public let uniquenessConstraints: [[Int]]
    /// The fetch indexes this entity declares (not its ancestors'), resolved to its table's
    /// columns as the store keeps them (`Z_<Entity>_<name>`).
    let storedFetchIndexes: [FetchIndex]
    /// The table of this entity's hierarchy (`Z` + the root entity's name in capitals).
    public let table: String
    package let renamingIdentifier: String?
    /// A SHA-256 over the entity's definition; equal hashes mean the same schema. Worked out
    /// for the whole model at the first question (`ModelVersionHashes`).
    public var versionHash: Data { versionHashes.hash(of: name) }
    /// The model's version hashes, shared by its entities.
    let versionHashes: ModelVersionHashes
    let objectClass: ManagedObject.Type
    let attributeSlots: [String: Int]
    /// Composite attributes and the composites nested in them, by path (`size`, `size.inner`):
    /// the key paths that lead to elements.
    let compositePaths: Set<String>
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
         uniquenessConstraints: [[Int]], table: String, renamingIdentifier: String?, versionHashes: ModelVersionHashes,
         objectClass: ManagedObject.Type, wrapperTargets: [WrapperTarget],
         composites: [EntityComposite] = [], fetchIndexes: [FetchIndexDescription] = [],
         storedFetchIndexes: [FetchIndex] = []) {
        self.name = name
        self.number = number
        self.isAbstract = isAbstract
        self.parent = parent
        self.root = root
        self.subentities = subentities
        self.hierarchy = hierarchy
        self.attributes = attributes
        self.composites = composites
        self.fetchIndexes = fetchIndexes
        self.relationships = relationships
        self.toOneCount = relationships.filter { !$0.isToMany }.count
        self.relationshipSlots = relationships.map(\.slot)
        self.toManyCount = relationships.filter(\.isToMany).count
        self.emptyToMany = Array(repeating: ToManyState(), count: toManyCount)
        self.nullValues = Array(repeating: .null, count: attributes.count)
        self.nilToOne = Array(repeating: nil, count: toOneCount)
        self.uniquenessConstraints = uniquenessConstraints
        self.storedFetchIndexes = storedFetchIndexes
        self.table = table
        self.renamingIdentifier = renamingIdentifier
        self.versionHashes = versionHashes
        self.objectClass = objectClass
        self.attributeSlots = Dictionary(attributes.map { ($0.name, $0.slot) }, uniquingKeysWith: { first, _ in first })
        self.relationshipIndexes = Dictionary(relationships.map { ($0.name, $0.index) }, uniquingKeysWith: { first, _ in first })
        self.wrapperTargets = wrapperTargets
        // Saving checks these for every changed object: worked out once, not per object.
        self.requiredAttributeSlots = attributes.filter { !$0.declaration.isOptional && !$0.declaration.isTransient }.map(\.slot)
        var paths = Set<String>()
        for attribute in attributes where attribute.composite != nil {
            var components = attribute.name.split(separator: ".").map(String.init)
            components.removeLast()
            while !components.isEmpty {
                paths.insert(components.joined(separator: "."))
                components.removeLast()
            }
        }
        self.compositePaths = paths.union(composites.map(\.name))
        self.defaultValues = attributes.compactMap { attribute in attribute.declaration.defaultValue.map { (attribute.slot, $0) } }
        self.validatedRelationships = relationships.filter { relationship in
            let declaration = relationship.declaration
            return relationship.isToMany ? declaration.minCount > 0 || declaration.maxCount > 0 || !declaration.isOptional
                                         : !declaration.isOptional
        }.map(\.index)
    }

    /// The attribute named `name`, inherited ones included; nil when there is none.
    public func attribute(named name: String) -> EntityAttribute? {
        attributeSlots[name].map { attributes[$0] }
    }

    package func relationship(named name: String) -> EntityRelationship? {
        relationshipIndexes[name].map { relationships[$0] }
    }

    /// The key that starts at `path[position]`, moving `position` past it: a composite's
    /// element spans several components of a key path (`size`, `inner`, `depth` is the one
    /// attribute `size.inner.depth`).
    func key(in path: [String], at position: inout Int) -> String {
        var key = path[position]
        while compositePaths.contains(key), position + 1 < path.count {
            position += 1
            key += "." + path[position]
        }
        position += 1
        return key
    }

    /// True when `number` is this entity or one of its descendants.
    package func includes(_ number: Int) -> Bool { hierarchy.contains(number) }

    /// The name, number and table, for messages.
    public var description: String { "\(name) (entity \(number), table \(table))" }
}
