import Foundation
import ObjectGraph

/// One version of a Core Data model as Xcode wrote it (`<model>` in a `.xcdatamodel/contents`).
///
/// Plain values, close to the XML: names stay names (a relationship knows its destination
/// by name), attribute types stay the strings Xcode writes. `XCDataModelReader` fills it in
/// and checks that it hangs together; the object graph's own model types are built from it.
///
/// ```swift
/// let model = try XCDataModelReader.read(at: URL(fileURLWithPath: "Model.xcdatamodeld"))
/// let ebook = model.entity(named: "Ebook")
/// ```
public struct XCDataModelFile: Sendable, Equatable {
    /// Entities in the order the file lists them (Xcode writes them sorted by name).
    public var entities: [XCEntity]
    /// `userDefinedModelVersionIdentifier`: `""` when Xcode wrote it empty, `nil` when absent.
    /// Core Data copies it into a store's `NSStoreModelVersionIdentifiers` as it is.
    public var versionIdentifier: String?
    /// The `<model>` element's bookkeeping attributes, as written.
    package var documentVersion: String?
    var lastSavedToolsVersion: String?
    var systemVersion: String?
    var minimumToolsVersion: String?
    var sourceLanguage: String?
    /// Named subsets of the entities (`<configuration>`).
    public var configurations: [XCConfiguration]
    /// Model-level fetch request templates (`<fetchRequest>` under `<model>`).
    public var fetchRequests: [XCFetchRequest]
    /// Composite attribute types (`<composite>`, Xcode 15), which attributes of type
    /// "Composite" name.
    package var composites: [XCComposite]

    /// A model file with these contents, as the reader would return it.
    public init(entities: [XCEntity] = [], versionIdentifier: String? = nil,
                documentVersion: String? = nil, lastSavedToolsVersion: String? = nil,
                systemVersion: String? = nil, minimumToolsVersion: String? = nil,
                sourceLanguage: String? = nil, configurations: [XCConfiguration] = [],
                fetchRequests: [XCFetchRequest] = [], composites: [XCComposite] = []) {
        self.entities = entities
        self.versionIdentifier = versionIdentifier
        self.documentVersion = documentVersion
        self.lastSavedToolsVersion = lastSavedToolsVersion
        self.systemVersion = systemVersion
        self.minimumToolsVersion = minimumToolsVersion
        self.sourceLanguage = sourceLanguage
        self.configurations = configurations
        self.fetchRequests = fetchRequests
        self.composites = composites
    }

    /// The entity with this exact name, if any.
    public func entity(named name: String) -> XCEntity? {
        entities.first { $0.name == name }
    }

    /// The entity's superentities, nearest first; stops at a missing name or a cycle.
    package func ancestors(of entity: XCEntity) -> [XCEntity] {
        var result: [XCEntity] = []
        var seen: Set<String> = [entity.name]
        var parentName = entity.parentEntity
        while let name = parentName, !seen.contains(name), let parent = self.entity(named: name) {
            result.append(parent)
            seen.insert(name)
            parentName = parent.parentEntity
        }
        return result
    }

    /// The composite with this exact name, if any.
    public func composite(named name: String) -> XCComposite? {
        composites.first { $0.name == name }
    }

    /// The entities whose `parentEntity` is this one, sorted by name.
    package func subentities(of entity: XCEntity) -> [XCEntity] {
        entities.filter { $0.parentEntity == entity.name }.sorted { $0.name < $1.name }
    }
}

/// An `<entity>`: a table's worth of objects.
public struct XCEntity: Sendable, Equatable {
    /// The entity's name, unique in the model.
    public var name: String
    /// The class Xcode generates or the app names; `nil` means `NSManagedObject`.
    var representedClassName: String?
    /// The superentity's name (`parentEntity`).
    package var parentEntity: String?
    /// Whether the entity is abstract: only its subentities have objects.
    public var isAbstract: Bool
    /// Attributes declared on this entity (not inherited ones), in file order.
    public var attributes: [XCAttribute]
    /// Relationships declared on this entity (not inherited ones), in file order.
    public var relationships: [XCRelationship]
    /// Fetched properties declared on this entity.
    public var fetchedProperties: [XCFetchedProperty]
    /// Each constraint lists the property names that must be unique together.
    public var uniquenessConstraints: [[String]]
    /// `<fetchIndex>` elements (Xcode 9 and later).
    public var indexes: [XCIndex]
    /// `<compoundIndexes>` (Xcode 4 to 8): each lists property names.
    public var compoundIndexes: [[String]]
    /// `elementID` in the XML; Xcode's inspector calls it "Renaming ID".
    package var renamingIdentifier: String?
    package var versionHashModifier: String?
    package var userInfo: [String: String]

    /// An entity with these values, as the reader would return it.
    public init(name: String, representedClassName: String? = nil, parentEntity: String? = nil,
                isAbstract: Bool = false, attributes: [XCAttribute] = [],
                relationships: [XCRelationship] = [], fetchedProperties: [XCFetchedProperty] = [],
                uniquenessConstraints: [[String]] = [], indexes: [XCIndex] = [],
                compoundIndexes: [[String]] = [], renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.representedClassName = representedClassName
        self.parentEntity = parentEntity
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.compoundIndexes = compoundIndexes
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    /// Names of the attributes, relationships and fetched properties declared here.
    package var propertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name)
    }

    /// The declared attribute with this name, if any.
    public func attribute(named name: String) -> XCAttribute? {
        attributes.first { $0.name == name }
    }

    /// The declared relationship with this name, if any.
    package func relationship(named name: String) -> XCRelationship? {
        relationships.first { $0.name == name }
    }
}

/// An `<attribute>`.
///
/// Every flag is `false` unless the XML says `"YES"`: in particular an attribute without
/// `optional="YES"` is required. Every Xcode from 4 on writes `documentVersion="1.0"` and
/// writes `optional="YES"` on optional properties only; Apple's version hash of the
/// BSManagedDocument store (Xcode 4.5, no `optional` at all) matches only if both of its
/// attributes are required.
public struct XCAttribute: Sendable, Equatable {
    /// The attribute's name, unique in its entity.
    public var name: String
    /// As written: "String", "Integer 16", …, "Transformable", "Object ID", "Composite" or
    /// "Undefined" (also what Xcode means by leaving `attributeType` out, as it does for an
    /// Undefined transient).
    public var attributeType: String
    /// For a "Composite" attribute, the `<composite>` it is (`composite="…"`).
    var compositeName: String?
    package var isOptional: Bool
    package var isTransient: Bool
    /// `indexed="YES"` (Xcode 4 to 8; later models use `XCEntity.indexes`).
    package var isIndexed: Bool
    /// `spotlightIndexingEnabled="YES"`.
    var isIndexedBySpotlight: Bool
    /// `storedInTruthFile="YES"` ("Store in External Record File").
    var isStoredInExternalRecord: Bool
    package var defaultValueString: String?
    /// Seconds since 2001-01-01 UTC, for Date attributes.
    var defaultDateTimeInterval: Double?
    var minValueString: String?
    var maxValueString: String?
    var minDateTimeInterval: Double?
    var maxDateTimeInterval: Double?
    var regularExpressionString: String?
    /// Whether Xcode generates a scalar property (`usesScalarValueType`); nothing stored depends on it.
    public var usesScalarValueType: Bool
    package var allowsExternalBinaryDataStorage: Bool
    var allowsCloudEncryption: Bool
    /// `preserveAfterDeletion="YES"`: kept in persistent history tombstones.
    package var preservesValueInHistoryOnDeletion: Bool
    var valueTransformerName: String?
    var customClassName: String?
    /// `derived="YES"` with its `derivationExpression` (Xcode 11 and later).
    var isDerived: Bool
    /// The key path or expression a derived attribute is computed from, as written (`pages.@count`).
    public var derivationExpression: String?
    /// `elementID`: the name this attribute had in the model it migrates from.
    package var renamingIdentifier: String?
    package var versionHashModifier: String?
    package var userInfo: [String: String]

    /// An attribute with these values, as the reader would return it.
    public init(name: String, attributeType: String, isOptional: Bool = false,
                isTransient: Bool = false, isIndexed: Bool = false,
                isIndexedBySpotlight: Bool = false, isStoredInExternalRecord: Bool = false,
                defaultValueString: String? = nil, defaultDateTimeInterval: Double? = nil,
                minValueString: String? = nil, maxValueString: String? = nil,
                minDateTimeInterval: Double? = nil, maxDateTimeInterval: Double? = nil,
                regularExpressionString: String? = nil, usesScalarValueType: Bool = false,
                allowsExternalBinaryDataStorage: Bool = false, allowsCloudEncryption: Bool = false,
                preservesValueInHistoryOnDeletion: Bool = false, valueTransformerName: String? = nil,
                customClassName: String? = nil, isDerived: Bool = false,
                derivationExpression: String? = nil, renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil, userInfo: [String: String] = [:],
                compositeName: String? = nil) {
        self.name = name
        self.attributeType = attributeType
        self.compositeName = compositeName
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.isIndexedBySpotlight = isIndexedBySpotlight
        self.isStoredInExternalRecord = isStoredInExternalRecord
        self.defaultValueString = defaultValueString
        self.defaultDateTimeInterval = defaultDateTimeInterval
        self.minValueString = minValueString
        self.maxValueString = maxValueString
        self.minDateTimeInterval = minDateTimeInterval
        self.maxDateTimeInterval = maxDateTimeInterval
        self.regularExpressionString = regularExpressionString
        self.usesScalarValueType = usesScalarValueType
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.allowsCloudEncryption = allowsCloudEncryption
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.valueTransformerName = valueTransformerName
        self.customClassName = customClassName
        self.isDerived = isDerived
        self.derivationExpression = derivationExpression
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    /// Core Data's `NSAttributeType` raw value for each type name Xcode writes.
    static let attributeTypeCodes: [String: Int] = [
        "Undefined": 0, "Integer 16": 100, "Integer 32": 200, "Integer 64": 300,
        "Decimal": 400, "Double": 500, "Float": 600, "String": 700, "Boolean": 800,
        "Date": 900, "Binary": 1000, "UUID": 1100, "URI": 1200,
        "Transformable": 1800, "Object ID": 2000, "Composite": 2100,
    ]

    /// This attribute's `NSAttributeType` raw value, or `nil` for a type name we don't know.
    var attributeTypeCode: Int? {
        Self.attributeTypeCodes[attributeType]
    }
}

/// A `<relationship>`.
public struct XCRelationship: Sendable, Equatable {
    /// The relationship's name, unique in its entity.
    public var name: String
    package var destinationEntity: String
    package var inverseName: String?
    /// Written by Xcode next to `inverseName`; Core Data resolves the inverse in the destination.
    package var inverseEntity: String?
    package var isToMany: Bool
    package var isOrdered: Bool
    package var isOptional: Bool
    package var isTransient: Bool
    /// `indexed="YES"`.
    package var isIndexed: Bool
    var isIndexedBySpotlight: Bool
    /// "Nullify" (also when absent), "Cascade", "Deny" or "No Action".
    package var deletionRule: String
    /// As written, 0 when absent. Xcode 4 writes `minCount="1"` on optional to-ones too.
    public var minCount: Int
    /// As written; when absent, 1 for a to-one and 0 (no limit) for a to-many.
    public var maxCount: Int
    /// `elementID`: the name this relationship had in the model it migrates from.
    package var renamingIdentifier: String?
    package var versionHashModifier: String?
    package var userInfo: [String: String]

    /// A relationship with these values, as the reader would return it.
    public init(name: String, destinationEntity: String, inverseName: String? = nil,
                inverseEntity: String? = nil, isToMany: Bool = false, isOrdered: Bool = false,
                isOptional: Bool = false, isTransient: Bool = false, isIndexed: Bool = false,
                isIndexedBySpotlight: Bool = false, deletionRule: String = "Nullify",
                minCount: Int = 0, maxCount: Int? = nil, renamingIdentifier: String? = nil,
                versionHashModifier: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.destinationEntity = destinationEntity
        self.inverseName = inverseName
        self.inverseEntity = inverseEntity
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.isIndexedBySpotlight = isIndexedBySpotlight
        self.deletionRule = deletionRule
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    /// The deletion rules Xcode writes.
    static let deletionRules: Set<String> = ["Nullify", "Cascade", "Deny", "No Action"]
}

/// A `<fetchedProperty>`: a named fetch evaluated lazily, never stored.
public struct XCFetchedProperty: Sendable, Equatable {
    /// The fetched property's name.
    public var name: String
    package var isOptional: Bool
    /// The fetch it runs; nil when the file gives none.
    public var fetchRequest: XCFetchRequest?
    package var userInfo: [String: String]

    /// A fetched property with these values, as the reader would return it.
    public init(name: String, isOptional: Bool = false, fetchRequest: XCFetchRequest? = nil,
                userInfo: [String: String] = [:]) {
        self.name = name
        self.isOptional = isOptional
        self.fetchRequest = fetchRequest
        self.userInfo = userInfo
    }
}

/// A `<fetchRequest>`: a template under `<model>`, or the request of a fetched property.
public struct XCFetchRequest: Sendable, Equatable {
    /// The template's name (a fetched property's request has its property's).
    public var name: String
    /// The entity it fetches; nil when the file names none.
    public var entity: String?
    package var predicateString: String?
    /// Every XML attribute of the element, as written (`fetchLimit`, `resultType`, …).
    public var attributes: [String: String]

    /// A fetch request with these values, as the reader would return it.
    public init(name: String, entity: String? = nil, predicateString: String? = nil,
                attributes: [String: String] = [:]) {
        self.name = name
        self.entity = entity
        self.predicateString = predicateString
        self.attributes = attributes
    }
}

/// A `<fetchIndex>`: a named, possibly compound, index.
public struct XCIndex: Sendable, Equatable {
    /// The index's name, unique in its entity.
    public var name: String
    /// Its elements, in index order.
    public var elements: [XCIndexElement]

    /// A fetch index with these elements.
    public init(name: String, elements: [XCIndexElement]) {
        self.name = name
        self.elements = elements
    }

    /// The properties indexed, in order; expression elements are left out.
    package var propertyNames: [String] {
        elements.compactMap(\.property)
    }
}

/// A `<fetchIndexElement>`: a property (or an expression), its index type and its order.
public struct XCIndexElement: Sendable, Equatable {
    /// The indexed property's name; nil for an expression element.
    public var property: String?
    /// The indexed expression, as written; nil for a property element.
    public var expression: String?
    /// "Binary" (a B-tree) or "RTree".
    public var type: String

    /// The element types Xcode writes.
    package static let types: Set<String> = ["Binary", "RTree"]
    package var isAscending: Bool

    /// An element over `property` (or `expression`), of index `type` (`Binary` or `RTree`).
    public init(property: String?, expression: String? = nil, type: String = "Binary",
                isAscending: Bool = true) {
        self.property = property
        self.expression = expression
        self.type = type
        self.isAscending = isAscending
    }
}

/// A `<composite>` (Xcode 15): a named group of attributes that an attribute of type
/// "Composite" holds as one value. Its attributes may be composites in turn.
///
/// ```xml
/// <composite name="Location">
///     <attribute name="latitude" optional="YES" attributeType="Double"/>
///     <attribute name="longitude" optional="YES" attributeType="Double"/>
/// </composite>
/// ```
public struct XCComposite: Sendable, Equatable {
    /// The composite's name, under which its elements' paths start (`location.latitude`).
    public var name: String
    /// Its elements, in file order.
    public var attributes: [XCAttribute]

    /// A composite of these elements.
    public init(name: String, attributes: [XCAttribute] = []) {
        self.name = name
        self.attributes = attributes
    }
}

/// A `<configuration>`: a named set of entities, e.g. those a store holds.
public struct XCConfiguration: Sendable, Equatable {
    /// The configuration's name.
    public var name: String
    package var entityNames: [String]
    /// Whether Xcode marks it for CloudKit; nothing stored depends on it.
    public var usedWithCloudKit: Bool

    /// A configuration of the entities named `entityNames`.
    public init(name: String, entityNames: [String], usedWithCloudKit: Bool = false) {
        self.name = name
        self.entityNames = entityNames
        self.usedWithCloudKit = usedWithCloudKit
    }
}

/// One version inside a `.xcdatamodeld`.
public struct XCDataModelVersion: Sendable, Equatable {
    /// The folder name without `.xcdatamodel`, e.g. "Model 2".
    public var name: String
    /// The `.xcdatamodel` folder.
    public var url: URL
    /// Whether `.xccurrentversion` names it (or, without that file, it is the last version).
    var isCurrent: Bool

    /// A version named `name` in the folder at `url`.
    public init(name: String, url: URL, isCurrent: Bool) {
        self.name = name
        self.url = url
        self.isCurrent = isCurrent
    }
}
