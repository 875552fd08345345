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
    /// The attribute's name, unique in its entity and its ancestors.
    public var name: String
    /// What the attribute holds.
    public var type: AttributeType
    package var isOptional: Bool
    /// The default in stored form (see `AttributeValue.storedValue`), applied to new objects
    /// and, by migration, to existing rows.
    package var defaultValue: SQLiteValue?
    package var isIndexed: Bool
    /// Shorthand for a uniqueness constraint on this attribute alone.
    package var isUnique: Bool
    /// Transient attributes live in memory only and have no column.
    package var isTransient: Bool
    /// The attribute's name in the model it migrates from, when it was renamed.
    package var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`: changes the version hash without changing the schema.
    package var versionHashModifier: String?
    /// Core Data's "Allows External Storage" (large values in files beside the store).
    package var allowsExternalBinaryDataStorage: Bool
    /// Core Data's "Preserve After Deletion": the value is kept in persistent history.
    package var preservesValueInHistoryOnDeletion: Bool
    /// A derived attribute's expression (`canonical:(title)`, `tags.@count`), as the model file
    /// writes it; nil for an ordinary attribute.
    public var derivationExpression: String?
    /// A composite attribute's elements (type `.composite`), in the order the composite declares
    /// them; an element may itself be a composite. Empty for every other type.
    public var elements: [AttributeDescription]
    /// Whether the store keeps the attribute's text in its entity's full-text search index
    /// (`ObjectContext.search`); only stored string attributes can be. Not part of the version
    /// hash: Core Data has no such flag, and the index is not a table of the model.
    public var isSearchable: Bool

    /// An attribute with these options; optional and without a default unless told.
    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: SQLiteValue? = nil,
                isIndexed: Bool = false, isUnique: Bool = false, isTransient: Bool = false,
                renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
                derivationExpression: String? = nil, elements: [AttributeDescription] = [],
                isSearchable: Bool = false) {
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
        self.elements = elements
        self.isSearchable = isSearchable
    }

    /// A composite's leaf elements, depth first, each named by its path from the composite
    /// (`location.latitude`, `size.inner.width`); empty for any other type.
    var flattenedElements: [AttributeDescription] {
        elements.flatMap { element -> [AttributeDescription] in
            var leaves = element.type == .composite ? element.flattenedElements : [element]
            for index in leaves.indices { leaves[index].name = name + "." + leaves[index].name }
            return leaves
        }
    }
}

/// A relationship of an entity, as declared.
///
/// ```swift
/// RelationshipDescription(name: "place", destination: "Place", inverse: "photos")
/// ```
public struct RelationshipDescription: Sendable, Equatable {
    /// The relationship's name, unique in its entity and its ancestors.
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name on the destination entity; nil for none. A to-many
    /// without an inverse is kept as Core Data keeps it: the destination's table holds the
    /// owner's key in a column of its own, `Z<owner entity number><NAME>`.
    public var inverse: String?
    package var isToMany: Bool
    /// Ordered to-many relationships are read like unordered ones.
    package var isOrdered: Bool
    /// What deleting the source does to the destination objects.
    public var deleteRule: DeleteRule
    package var isOptional: Bool
    /// Fewest related objects a to-many allows (0: no minimum).
    public var minCount: Int
    /// Most related objects a to-many allows (0: no maximum).
    public var maxCount: Int
    package var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`.
    package var versionHashModifier: String?
    /// For a many-to-many read from an existing store: its join table as the store names it,
    /// with this side's keys in `sourceColumn`. Nil: the table Core Data's rules name.
    public var storedJoinTable: ObjectModel.JoinTable.Layout?
    /// A string attribute of the destination whose values are searched with this object (a
    /// tag's `name` with its photo); nil for none. Only to-ones and many-to-manys can carry
    /// one. Not part of the version hash (see `AttributeDescription.isSearchable`).
    public var searchableAttribute: String?

    /// A relationship to `destination` (an entity's name) with `inverse` on the other side.
    public init(name: String, destination: String, inverse: String?, isToMany: Bool = false,
                isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
                minCount: Int = 0, maxCount: Int = 0, renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil, searchableAttribute: String? = nil) {
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
        self.searchableAttribute = searchableAttribute
    }
}

/// A named index of an entity (Core Data's `NSFetchIndexDescription`, Xcode's `<fetchIndex>`):
/// its elements in order, each a property (or an expression) with its sort order.
///
/// The store writes it as Core Data does, `CREATE INDEX Z_<Entity>_<name> ON <table> (<column>
/// COLLATE BINARY ASC, …)`; a `.rTree` index is an R-tree over its elements.
///
/// ```swift
/// FetchIndexDescription(name: "byMakerAndNumberPlate",
///                       elements: [.init(property: "maker"), .init(property: "numberPlate")])
/// ```
public struct FetchIndexDescription: Sendable, Equatable, Hashable {
    /// How an element is indexed: Core Data's `NSFetchIndexElementType`.
    public enum ElementType: String, Sendable, Hashable, Codable {
        /// A B-tree (`Binary` in the model file), the usual kind.
        case binary
        /// An R-tree (`RTree`), for ranges such as a bounding box.
        case rTree
    }

    /// One column of the index.
    public struct Element: Sendable, Equatable, Hashable {
        /// The attribute or relationship indexed; nil for an expression element.
        public var property: String?
        /// An expression indexed instead of a property, as the model file writes it.
        public var expression: String?
        /// The kind of index: binary (B-tree) or R-tree.
        public var type: ElementType
        package var isAscending: Bool

        /// An element over `property` (or `expression`), of index `type`, in `isAscending` order.
        public init(property: String?, expression: String? = nil, type: ElementType = .binary, isAscending: Bool = true) {
            self.property = property
            self.expression = expression
            self.type = type
            self.isAscending = isAscending
        }
    }

    /// The name the model gives it (`byMakerAndNumberPlate`).
    public var name: String
    /// Its elements, in index order.
    public var elements: [Element]

    /// A fetch index named `name` over `elements`.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }

    /// The properties indexed, in order (expression elements left out).
    package var propertyNames: [String] { elements.compactMap(\.property) }
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
    /// The entity's name, unique in the model.
    public var name: String
    /// The parent entity's name, for inheritance (one table per hierarchy, as Core Data does).
    public var parent: String?
    /// Whether only subentities have objects.
    public var isAbstract: Bool
    /// This entity's own attributes (not its parent's).
    public var attributes: [AttributeDescription]
    /// This entity's own relationships (not its parent's).
    public var relationships: [RelationshipDescription]
    /// Each constraint lists attribute names whose values together are unique.
    public var uniquenessConstraints: [[String]]
    /// Compound indexes over attribute names (Xcode 4–8's `<compoundIndexes>`, and the properties
    /// of each fetch index, for code that reads them as lists).
    public var indexes: [[String]]
    /// Named fetch indexes with their elements' orders (Xcode 9's `<fetchIndex>`), as declared by
    /// this entity: what the store's `CREATE INDEX Z_<Entity>_<name>` statements are made from.
    public var fetchIndexes: [FetchIndexDescription]
    /// The class for instances; `ManagedObject` itself when the model was built from data.
    var objectClass: ManagedObject.Type
    /// The entity's name in the model it migrates from, when it was renamed.
    package var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`.
    package var versionHashModifier: String?
    /// For classes with property wrappers: the property name of each wrapper, by the order in
    /// which an instance initialises them.
    var wrapperOrder: [String]

    /// An entity description; the model resolves parents, inverses and numbers when it is built.
    public init(name: String, parent: String? = nil, isAbstract: Bool = false,
                attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
                uniquenessConstraints: [[String]] = [], indexes: [[String]] = [],
                fetchIndexes: [FetchIndexDescription] = [],
                objectClass: ManagedObject.Type = ManagedObject.self, renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.fetchIndexes = fetchIndexes
        self.objectClass = objectClass
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.wrapperOrder = []
    }
}

/// A model that cannot be built, with what is wrong and where.
package struct ModelError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { "Invalid model: \(message)" }
}
