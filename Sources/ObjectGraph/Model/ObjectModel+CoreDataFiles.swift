import Foundation
import SQLiteDB

extension ObjectModel {
    /// Loads a model from a Core Data model file: a `.xcdatamodeld` folder (its current
    /// version), a `.xcdatamodel` folder or its `contents` file.
    ///
    /// ```swift
    /// let model = try ObjectModel(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
    /// ```
    /// - Throws: `XCDataModelError` for an unreadable file, `ModelError` for a model we cannot use.
    public convenience init(contentsOf url: URL) throws {
        let file = try XCDataModelReader.read(at: url)
        try self.init(file: file)
    }

    /// Builds a model from a parsed Core Data model file.
    public convenience init(file: XCDataModelFile) throws {
        try self.init(entities: file.entities.map { try EntityDescription(xcEntity: $0) },
                      versionIdentifier: file.versionIdentifier ?? "")
    }
}

extension EntityDescription {
    /// The entity as a Core Data model file would declare it.
    var xcEntity: XCEntity {
        XCEntity(
            name: name, representedClassName: name, parentEntity: parent, isAbstract: isAbstract,
            attributes: attributes.map { attribute in
                XCAttribute(name: attribute.name, attributeType: attribute.type.coreDataName,
                            isOptional: attribute.isOptional, isTransient: attribute.isTransient,
                            isIndexed: attribute.isIndexed, renamingIdentifier: attribute.renamingIdentifier)
            },
            relationships: relationships.map { relationship in
                XCRelationship(name: relationship.name, destinationEntity: relationship.destination,
                               inverseName: relationship.inverse, inverseEntity: relationship.inverse == nil ? nil : relationship.destination,
                               isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                               isOptional: relationship.isOptional, deletionRule: relationship.deleteRule.coreDataName,
                               minCount: relationship.minCount,
                               maxCount: relationship.isToMany ? relationship.maxCount : 1,
                               renamingIdentifier: relationship.renamingIdentifier)
            },
            uniquenessConstraints: uniquenessConstraints + attributes.filter(\.isUnique).map { [$0.name] },
            renamingIdentifier: renamingIdentifier)
    }

    /// The entity a Core Data model file declares.
    ///
    /// - Throws: `ModelError` for attribute types this framework cannot store.
    init(xcEntity entity: XCEntity) throws {
        self.init(name: entity.name, parent: entity.parentEntity, isAbstract: entity.isAbstract,
                  renamingIdentifier: entity.renamingIdentifier)
        for attribute in entity.attributes {
            guard let type = AttributeType(coreDataName: attribute.attributeType) else {
                throw ModelError("attribute \(entity.name).\(attribute.name) has type \(attribute.attributeType), which a SQLite store cannot hold")
            }
            attributes.append(AttributeDescription(
                name: attribute.name, type: type, isOptional: attribute.isOptional,
                defaultValue: Self.defaultValue(of: attribute, type: type), isIndexed: attribute.isIndexed,
                isTransient: attribute.isTransient, renamingIdentifier: attribute.renamingIdentifier))
        }
        for relationship in entity.relationships where !relationship.isTransient {
            relationships.append(RelationshipDescription(
                name: relationship.name, destination: relationship.destinationEntity, inverse: relationship.inverseName,
                isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                deleteRule: DeleteRule(coreDataName: relationship.deletionRule), isOptional: relationship.isOptional,
                // Kept as written even on a to-one (Xcode 4 writes 1 there): the version hash covers it.
                minCount: relationship.minCount,
                maxCount: relationship.isToMany ? relationship.maxCount : 0,
                renamingIdentifier: relationship.renamingIdentifier))
        }
        uniquenessConstraints = entity.uniquenessConstraints
        indexes = entity.compoundIndexes + entity.indexes.map { $0.elements.compactMap(\.property) }
    }

    private static func defaultValue(of attribute: XCAttribute, type: AttributeType) -> SQLiteValue? {
        if type == .date, let interval = attribute.defaultDateTimeInterval { return .real(interval) }
        guard let text = attribute.defaultValueString else { return nil }
        switch type {
        case .boolean:
            return .integer(["yes", "true", "1"].contains(text.lowercased()) ? 1 : 0)
        case .date:
            return Double(text).map { .real($0) }
        default:
            return SQLiteValue.coerce(.text(text), to: type)
        }
    }
}

extension DeleteRule {
    var coreDataName: String {
        switch self {
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        case .noAction: "No Action"
        }
    }

    init(coreDataName: String) {
        switch coreDataName {
        case "Cascade": self = .cascade
        case "Deny": self = .deny
        case "No Action": self = .noAction
        default: self = .nullify
        }
    }
}

/// Version hashes computed as Apple's Core Data computes them, so that stores we write carry
/// the hashes Core Data expects for the same model.
enum EntityVersionHash {
    static func hashes(of descriptions: [EntityDescription]) -> [String: Data] {
        let file = XCDataModelFile(entities: descriptions.map(\.xcEntity))
        return (try? CoreDataVersionHash.entityHashes(in: file)) ?? [:]
    }
}
