import Foundation

/// Core Data's entity version hashes, computed the way Apple's framework computes them, so
/// a store's `NSStoreModelVersionHashes` can be matched against a model read from XML.
///
/// Every hash is SHA-256; integers go in little-endian, strings as UTF-8 without a
/// terminator, "absent" means nothing is fed in:
///
/// - **property**: name, then a 16-bit flag word (1 optional, 2 transient, 4 read-only),
///   then the property's `versionHashModifier`.
/// - **attribute**: property hash (32 bytes), `NSAttributeType` as 32 bits, then one byte 1
///   if external binary storage is allowed, one byte 1 if the value is preserved in history
///   on deletion. A derived attribute hashes only its derivation expression (see below).
/// - **relationship**: property hash, destination entity name, the inverse's name (left out
///   when the relationship is its own inverse where it is declared), maxCount and minCount
///   as 32 bits each, then two bytes 01 00 if ordered.
/// - **entity**: name, one byte for abstract, the superentity's hash, the hashes of every
///   non-transient attribute and relationship (inherited ones included) sorted by name,
///   the entity's `versionHashModifier`, then each uniqueness constraint's property names
///   joined by "." in sorted order.
///
/// Checked against real stores written by Apple's Core Data: the BSManagedDocument
/// `Ebook` entity (framework 407, 2012) and all 26 entities of the MoneyWell store
/// (framework 977: abstract entities, two levels of inheritance, to-one and to-many
/// relationships, a self-inverse one, Decimal/Date/Transformable/Integer attributes).
/// Parts no fixture covers (transient, ordered, modifiers, uniqueness constraints, external
/// storage, derived attributes) follow the framework's code but are unverified.
///
/// ```swift
/// let model = try XCDataModelReader.read(at: modelURL)
/// let hashes = try CoreDataVersionHash.entityHashes(in: model)   // == NSStoreModelVersionHashes
/// ```
public enum CoreDataVersionHash {
    /// The version hash of one entity of `model` (32 bytes).
    ///
    /// - Throws: `XCDataModelError` if the entity, its ancestors or an attribute type is
    ///   unknown, or the inheritance has a cycle.
    public static func entityHash(of entity: XCEntity, in model: XCDataModelFile) throws -> Data {
        var computed: [String: Data] = [:]
        return try entityHash(of: entity, in: model, computed: &computed, visiting: [])
    }

    /// The version hash of the entity named `name`.
    public static func entityHash(named name: String, in model: XCDataModelFile) throws -> Data {
        guard let entity = model.entity(named: name) else {
            throw XCDataModelError(.unknownReference(kind: "version hash", name: name, owner: "model"))
        }
        return try entityHash(of: entity, in: model)
    }

    /// Every entity's version hash by name: what a store's `NSStoreModelVersionHashes` holds.
    public static func entityHashes(in model: XCDataModelFile) throws -> [String: Data] {
        var computed: [String: Data] = [:]
        for entity in model.entities {
            _ = try entityHash(of: entity, in: model, computed: &computed, visiting: [])
        }
        return computed
    }

    /// `NSStoreModelVersionHashesDigest`: SHA-512 over each entity's name and hash, in name
    /// order, written base64-encoded into newer stores' metadata.
    ///
    /// Verified on the MoneyWell store. Names are ordered by UTF-16 code units, which is what
    /// Foundation's ordering gives for the ASCII names Core Data models use.
    public static func hashesDigest(_ hashes: [String: Data]) -> Data {
        var hasher = SHA512()
        for name in hashes.keys.sorted(by: utf16Precedes) {
            hasher.update(Array(name.utf8))
            if let hash = hashes[name] { hasher.update(hash) }
        }
        return Data(hasher.finalize())
    }

    /// The version hash of a property's common part: name, flags, modifier.
    public static func propertyHash(name: String, isOptional: Bool, isTransient: Bool,
                                    isReadOnly: Bool = false, versionHashModifier: String?) -> Data {
        var hasher = SHA256()
        hasher.update(Array(name.utf8))
        let flags: UInt16 = (isOptional ? 1 : 0) | (isTransient ? 2 : 0) | (isReadOnly ? 4 : 0)
        hasher.update([UInt8(truncatingIfNeeded: flags), UInt8(truncatingIfNeeded: flags >> 8)])
        if let versionHashModifier {
            hasher.update(Array(versionHashModifier.utf8))
        }
        return Data(hasher.finalize())
    }

    /// An attribute's version hash.
    ///
    /// - Throws: `XCDataModelError.Kind.unknownAttributeType` for a type we have no code for.
    public static func attributeHash(_ attribute: XCAttribute, entityName: String = "") throws -> Data {
        guard let typeCode = attribute.attributeTypeCode else {
            throw XCDataModelError(.unknownAttributeType(entity: entityName, attribute: attribute.name,
                                                         type: attribute.attributeType))
        }
        if attribute.isDerived {
            // The framework hashes a derived attribute's NSExpression.predicateFormat and drops
            // the common part; the XML string equals that format only when written canonically.
            var hasher = SHA256()
            hasher.update(Array((attribute.derivationExpression ?? "").utf8))
            return Data(hasher.finalize())
        }
        var hasher = SHA256()
        hasher.update(propertyHash(name: attribute.name, isOptional: attribute.isOptional,
                                   isTransient: attribute.isTransient,
                                   versionHashModifier: attribute.versionHashModifier))
        hasher.update(littleEndian(Int32(truncatingIfNeeded: typeCode)))
        if attribute.allowsExternalBinaryDataStorage { hasher.update([1]) }
        if attribute.preservesValueInHistoryOnDeletion { hasher.update([1]) }
        return Data(hasher.finalize())
    }

    /// A relationship's version hash as seen from `entity` (which declares or inherits it).
    public static func relationshipHash(_ relationship: XCRelationship, of entity: XCEntity,
                                        in model: XCDataModelFile) -> Data {
        var hasher = SHA256()
        hasher.update(propertyHash(name: relationship.name, isOptional: relationship.isOptional,
                                   isTransient: relationship.isTransient,
                                   versionHashModifier: relationship.versionHashModifier))
        hasher.update(Array(relationship.destinationEntity.utf8))
        if let inverse = includedInverseName(of: relationship, of: entity, in: model) {
            hasher.update(Array(inverse.utf8))
        }
        hasher.update(littleEndian(Int32(truncatingIfNeeded: relationship.maxCount)))
        hasher.update(littleEndian(Int32(truncatingIfNeeded: relationship.minCount)))
        if relationship.isOrdered { hasher.update([1, 0]) }
        return Data(hasher.finalize())
    }

    // MARK: - Internals

    private static func entityHash(of entity: XCEntity, in model: XCDataModelFile,
                                   computed: inout [String: Data], visiting: [String]) throws -> Data {
        if let known = computed[entity.name] { return known }
        guard !visiting.contains(entity.name) else {
            throw XCDataModelError(.inheritanceCycle(visiting + [entity.name]))
        }
        var hasher = SHA256()
        hasher.update(Array(entity.name.utf8))
        hasher.update([entity.isAbstract ? 1 : 0])
        if let parentName = entity.parentEntity {
            guard let parent = model.entity(named: parentName) else {
                throw XCDataModelError(.missingParentEntity(entity: entity.name, parent: parentName))
            }
            hasher.update(try entityHash(of: parent, in: model, computed: &computed,
                                         visiting: visiting + [entity.name]))
        }
        for property in try hashedProperties(of: entity, in: model) {
            hasher.update(property.hash)
        }
        if let modifier = entity.versionHashModifier {
            hasher.update(Array(modifier.utf8))
        }
        let constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }
        for constraint in constraints.sorted(by: utf16Precedes) where !constraint.isEmpty {
            hasher.update(Array(constraint.utf8))
        }
        let hash = Data(hasher.finalize())
        computed[entity.name] = hash
        return hash
    }

    /// Non-transient attributes and relationships, own and inherited, sorted by name.
    private static func hashedProperties(of entity: XCEntity,
                                         in model: XCDataModelFile) throws -> [(name: String, hash: Data)] {
        var properties: [(name: String, hash: Data)] = []
        var seen: Set<String> = []
        for owner in [entity] + model.ancestors(of: entity) {
            for attribute in owner.attributes where !attribute.isTransient && seen.insert(attribute.name).inserted {
                properties.append((attribute.name, try attributeHash(attribute, entityName: owner.name)))
            }
            for relationship in owner.relationships
            where !relationship.isTransient && seen.insert(relationship.name).inserted {
                properties.append((relationship.name, relationshipHash(relationship, of: entity, in: model)))
            }
        }
        return properties.sorted { utf16Precedes($0.name, $1.name) }
    }

    /// The inverse name the framework feeds in, or `nil`.
    ///
    /// Core Data resolves the inverse in the destination entity and leaves it out when it is
    /// the relationship itself. For an inherited relationship it asks the entity that
    /// declares it, so an inherited self-inverse (MoneyWell's `transferSibling` in the
    /// subentities of `Activity`) is left out too.
    private static func includedInverseName(of relationship: XCRelationship, of entity: XCEntity,
                                            in model: XCDataModelFile) -> String? {
        guard let inverse = relationship.inverseName,
              let destination = model.entity(named: relationship.destinationEntity),
              ([destination] + model.ancestors(of: destination)).contains(where: {
                  $0.relationship(named: inverse) != nil
              })
        else { return nil }
        guard inverse == relationship.name else { return inverse }
        if relationship.destinationEntity == entity.name { return nil }
        let declaring = model.ancestors(of: entity).last { $0.relationship(named: relationship.name) != nil }
        if let declaring, relationship.destinationEntity == declaring.name { return nil }
        return inverse
    }

    private static func littleEndian(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24)]
    }

    /// `NSString.compare(_:)` order for the names models use: by UTF-16 code unit.
    private static func utf16Precedes(_ left: String, _ right: String) -> Bool {
        left.utf16.lexicographicallyPrecedes(right.utf16)
    }
}
