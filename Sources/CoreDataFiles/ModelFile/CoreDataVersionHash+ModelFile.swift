import Foundation
import ObjectGraph

/// Version hashes of a model file's entities: the file's entities become the object graph's
/// descriptions (every flag the hash covers carried over) and are hashed as the object graph
/// hashes the models it writes stores with, so both always agree.
///
/// ```swift
/// let file = try XCDataModelReader.read(at: modelURL)
/// let hashes = try CoreDataVersionHash.entityHashes(in: file)   // == NSStoreModelVersionHashes
/// ```
extension CoreDataVersionHash {
    /// The version hash of one entity of `model` (32 bytes).
    ///
    /// - Throws: `XCDataModelError` if the entity, its ancestors or a stored attribute's type
    ///   is unknown, or the inheritance has a cycle.
    package static func entityHash(of entity: XCEntity, in model: XCDataModelFile) throws -> Data {
        try entityHash(named: entity.name, in: model)
    }

    /// The version hash of the entity named `name`.
    package static func entityHash(named name: String, in model: XCDataModelFile) throws -> Data {
        guard model.entity(named: name) != nil else {
            throw XCDataModelError(.unknownReference(kind: "version hash", name: name, owner: "model"))
        }
        guard let hash = try entityHashes(in: model)[name] else {
            throw XCDataModelError(.unknownReference(kind: "version hash", name: name, owner: "model"))
        }
        return hash
    }

    /// Every entity's version hash by name: what a store's `NSStoreModelVersionHashes` holds.
    package static func entityHashes(in model: XCDataModelFile) throws -> [String: Data] {
        try checkInheritance(of: model)
        return try entityHashes(of: model.entities.map { try EntityDescription(xcEntity: $0, in: model) })
    }

    /// An attribute's version hash; a composite's needs the model that defines its composite.
    ///
    /// - Throws: `XCDataModelError.Kind.unknownAttributeType` for a type we have no code for,
    ///   `.unknownReference` for a composite `model` does not define.
    package static func attributeHash(_ attribute: XCAttribute, entityName: String = "",
                                     in model: XCDataModelFile? = nil) throws -> Data {
        attributeHash(try AttributeDescription(xcAttribute: attribute, entityName: entityName, in: model))
    }

    /// A relationship's version hash as seen from `entity` (which declares or inherits it).
    package static func relationshipHash(_ relationship: XCRelationship, of entity: XCEntity,
                                        in model: XCDataModelFile) -> Data {
        // Only names, inverses and parents matter here: attribute types are not looked at.
        var byName: [String: EntityDescription] = [:]
        for candidate in model.entities where byName[candidate.name] == nil {
            byName[candidate.name] = EntityDescription(relationshipsOf: candidate)
        }
        return relationshipHash(RelationshipDescription(hashing: relationship),
                                of: EntityDescription(relationshipsOf: entity), in: byName)
    }

    /// Missing parents and cycles, reported as the model file's errors.
    private static func checkInheritance(of model: XCDataModelFile) throws {
        for entity in model.entities {
            var chain = [entity.name]
            var parentName = entity.parentEntity
            while let name = parentName {
                guard !chain.contains(name) else { throw XCDataModelError(.inheritanceCycle(chain + [name])) }
                guard let parent = model.entity(named: name) else {
                    throw XCDataModelError(.missingParentEntity(entity: chain.last ?? entity.name, parent: name))
                }
                chain.append(name)
                parentName = parent.parentEntity
            }
        }
    }
}

extension EntityDescription {
    /// Name, parent, abstractness, modifier and stored relationships only.
    init(relationshipsOf entity: XCEntity) {
        self.init(name: entity.name, parent: entity.parentEntity, isAbstract: entity.isAbstract,
                  relationships: entity.relationships.filter { !$0.isTransient }.map { RelationshipDescription(hashing: $0) },
                  renamingIdentifier: entity.renamingIdentifier, versionHashModifier: entity.versionHashModifier)
    }
}

extension RelationshipDescription {
    init(hashing relationship: XCRelationship) {
        self.init(name: relationship.name, destination: relationship.destinationEntity, inverse: relationship.inverseName,
                  isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                  deleteRule: DeleteRule(coreDataName: relationship.deletionRule), isOptional: relationship.isOptional,
                  // Kept as written even on a to-one (Xcode 4 writes 1 there): the version hash covers it.
                  minCount: relationship.minCount,
                  maxCount: relationship.isToMany ? relationship.maxCount : 0,
                  renamingIdentifier: relationship.renamingIdentifier,
                  versionHashModifier: relationship.versionHashModifier)
    }
}
