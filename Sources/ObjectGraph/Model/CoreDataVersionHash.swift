import Foundation

/// Core Data's entity version hashes, computed the way Apple's framework computes them, so
/// that a store we write records the `NSStoreModelVersionHashes` Core Data expects for the same
/// model, and a store's recorded hashes can be matched against a model.
///
/// Every hash is SHA-256; integers go in little-endian, strings as UTF-8 without a
/// terminator, "absent" means nothing is fed in:
///
/// - **property**: name, then a 16-bit flag word (1 optional, 2 transient, 4 read-only),
///   then the property's `versionHashModifier`.
/// - **attribute**: property hash (32 bytes), `NSAttributeType` as 32 bits, then one byte 1
///   if external binary storage is allowed, one byte 1 if the value is preserved in history
///   on deletion. A derived attribute hashes only its derivation expression as
///   `NSExpression.predicateFormat` writes it (`tags.@count` becomes `count:(tags)`). A
///   composite hashes only the hashes of its leaf elements (nested composites flattened),
///   transient ones left out, sorted by name.
/// - **relationship**: property hash, destination entity name, the inverse's name (left out
///   when the relationship is its own inverse where it is declared), maxCount and minCount
///   as 32 bits each (a to-one's maxCount is 1), then two bytes 01 00 if ordered.
/// - **entity**: name, one byte for abstract, the superentity's hash, the hashes of every
///   non-transient attribute and relationship (inherited ones included) sorted by name,
///   the entity's `versionHashModifier`, then each uniqueness constraint's property names
///   joined by "." in sorted order.
///
/// Checked against stores written by Apple's Core Data (see ARCHITECTURE.md, "Core Data's
/// formats"): BSManagedDocument's `Ebook` and all 26 entities of the MoneyWell store.
///
/// ```swift
/// let hashes = try CoreDataVersionHash.entityHashes(of: descriptions)   // == NSStoreModelVersionHashes
/// ```
package enum CoreDataVersionHash {
    /// Every entity's version hash by name.
    ///
    /// - Throws: `ModelError` when a parent is missing or entities inherit in a cycle.
    package static func entityHashes(of descriptions: [EntityDescription]) throws -> [String: Data] {
        let byName = Dictionary(descriptions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var computed: [String: Data] = [:]
        for description in descriptions {
            _ = try entityHash(of: description, byName: byName, computed: &computed, visiting: [])
        }
        return computed
    }

    /// `NSStoreModelVersionHashesDigest`: SHA-512 over each entity's name and hash, in name
    /// order, written base64-encoded into newer stores' metadata.
    ///
    /// Verified on the MoneyWell store. Names are ordered by UTF-16 code units, which is what
    /// Foundation's ordering gives for the ASCII names Core Data models use.
    package static func hashesDigest(_ hashes: [String: Data]) -> Data {
        var hasher = SHA512()
        for name in hashes.keys.sorted(by: utf16Precedes) {
            hasher.update(Array(name.utf8))
            if let hash = hashes[name] { hasher.update(hash) }
        }
        return Data(hasher.finalize())
    }

    /// `NSStoreModelVersionChecksumKey`: SHA-256 over the entities' hashes in name order (the
    /// names themselves left out), written base64-encoded by the newest Core Data.
    ///
    /// Verified on CoreDataPlus's `SampleModel2_V1.sqlite` and `SampleModel2_V2.sqlite`.
    static func hashesChecksum(_ hashes: [String: Data]) -> Data {
        var hasher = SHA256()
        for name in hashes.keys.sorted(by: utf16Precedes) {
            if let hash = hashes[name] { hasher.update(hash) }
        }
        return Data(hasher.finalize())
    }

    /// The version hash of a property's common part: name, flags, modifier.
    static func propertyHash(name: String, isOptional: Bool, isTransient: Bool,
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
    package static func attributeHash(_ attribute: AttributeDescription) -> Data {
        if let expression = attribute.derivationExpression {
            // The framework hashes a derived attribute's NSExpression.predicateFormat and drops
            // the common part (checked on CoreDataPlus's SampleModel2 stores).
            var hasher = SHA256()
            hasher.update(Array(canonicalDerivationExpression(expression).utf8))
            return Data(hasher.finalize())
        }
        if attribute.type == .composite {
            // NSCompositeAttributeDescription computes its own attribute hash and then drops it:
            // only the leaf elements are fed in (Core Data's `_versionHash:inStyle:`).
            var hasher = SHA256()
            let leaves = attribute.elements.flatMap(leafElements).sorted { utf16Precedes($0.name, $1.name) }
            for element in leaves where !element.isTransient {
                hasher.update(attributeHash(element))
            }
            return Data(hasher.finalize())
        }
        var hasher = SHA256()
        hasher.update(propertyHash(name: attribute.name, isOptional: attribute.isOptional,
                                   isTransient: attribute.isTransient,
                                   versionHashModifier: attribute.versionHashModifier))
        hasher.update(littleEndian(Int32(truncatingIfNeeded: attribute.type.coreDataTypeCode)))
        if attribute.allowsExternalBinaryDataStorage { hasher.update([1]) }
        if attribute.preservesValueInHistoryOnDeletion { hasher.update([1]) }
        return Data(hasher.finalize())
    }

    /// A relationship's version hash as seen from `entity` (which declares or inherits it),
    /// among the entities `byName`.
    package static func relationshipHash(_ relationship: RelationshipDescription, of entity: EntityDescription,
                                        in byName: [String: EntityDescription]) -> Data {
        var hasher = SHA256()
        hasher.update(propertyHash(name: relationship.name, isOptional: relationship.isOptional,
                                   isTransient: false, versionHashModifier: relationship.versionHashModifier))
        hasher.update(Array(relationship.destination.utf8))
        if let inverse = includedInverseName(of: relationship, of: entity, in: byName) {
            hasher.update(Array(inverse.utf8))
        }
        // Our descriptions keep 0 for a to-one's maximum; Core Data's is 1.
        let maxCount = relationship.isToMany ? relationship.maxCount : 1
        hasher.update(littleEndian(Int32(truncatingIfNeeded: maxCount)))
        hasher.update(littleEndian(Int32(truncatingIfNeeded: relationship.minCount)))
        if relationship.isOrdered { hasher.update([1, 0]) }
        return Data(hasher.finalize())
    }

    /// A derivation expression as `NSExpression.predicateFormat` gives it back: Core Data turns
    /// a key path ending in `@count` into the function `count:`, and one ending in `@sum` or
    /// `@total` into `sum:` (`NSDerivedAttributeDescription.setDerivationExpression:`), so
    /// `pages.@count` is hashed as `count:(pages)`. Anything else is hashed as written.
    static func canonicalDerivationExpression(_ expression: String) -> String {
        let trimmed = expression.trimmingCharacters(in: .whitespaces)
        for (suffix, function) in [(".@count", "count:"), (".@sum", "sum:"), (".@total", "sum:")] where trimmed.hasSuffix(suffix) {
            let path = String(trimmed.dropLast(suffix.count))
            let isKeyPath = !path.isEmpty && path.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
            if isKeyPath { return "\(function)(\(path))" }
        }
        return trimmed
    }

    /// An element's leaves: itself, or a nested composite's own leaves, with their plain names.
    private static func leafElements(_ element: AttributeDescription) -> [AttributeDescription] {
        element.type == .composite ? element.elements.flatMap(leafElements) : [element]
    }

    // MARK: - Internals

    private static func entityHash(of entity: EntityDescription, byName: [String: EntityDescription],
                                   computed: inout [String: Data], visiting: [String]) throws -> Data {
        if let known = computed[entity.name] { return known }
        guard !visiting.contains(entity.name) else {
            throw ModelError("entities \((visiting + [entity.name]).joined(separator: ", ")) inherit from each other in a cycle")
        }
        var hasher = SHA256()
        hasher.update(Array(entity.name.utf8))
        hasher.update([entity.isAbstract ? 1 : 0])
        if let parentName = entity.parent {
            guard let parent = byName[parentName] else {
                throw ModelError("entity \(entity.name) has parent \(parentName), which is not in the model")
            }
            hasher.update(try entityHash(of: parent, byName: byName, computed: &computed,
                                         visiting: visiting + [entity.name]))
        }
        for property in hashedProperties(of: entity, byName: byName) {
            hasher.update(property.hash)
        }
        if let modifier = entity.versionHashModifier {
            hasher.update(Array(modifier.utf8))
        }
        // `unique: true` on an attribute is shorthand for a constraint on it alone.
        let lists = entity.uniquenessConstraints + entity.attributes.filter(\.isUnique).map { [$0.name] }
        for constraint in lists.map({ $0.joined(separator: ".") }).sorted(by: utf16Precedes) where !constraint.isEmpty {
            hasher.update(Array(constraint.utf8))
        }
        let hash = Data(hasher.finalize())
        computed[entity.name] = hash
        return hash
    }

    /// Non-transient attributes and relationships, own and inherited, sorted by name.
    private static func hashedProperties(of entity: EntityDescription,
                                         byName: [String: EntityDescription]) -> [(name: String, hash: Data)] {
        var properties: [(name: String, hash: Data)] = []
        var seen: Set<String> = []
        for owner in [entity] + ancestors(of: entity, in: byName) {
            for attribute in owner.attributes where !attribute.isTransient && seen.insert(attribute.name).inserted {
                properties.append((attribute.name, attributeHash(attribute)))
            }
            for relationship in owner.relationships where seen.insert(relationship.name).inserted {
                properties.append((relationship.name, relationshipHash(relationship, of: entity, in: byName)))
            }
        }
        return properties.sorted { utf16Precedes($0.name, $1.name) }
    }

    /// Parent first, then its parent, …; stops at a missing parent or a cycle.
    static func ancestors(of entity: EntityDescription, in byName: [String: EntityDescription]) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var seen: Set<String> = [entity.name]
        var parentName = entity.parent
        while let name = parentName, seen.insert(name).inserted, let parent = byName[name] {
            result.append(parent)
            parentName = parent.parent
        }
        return result
    }

    /// The inverse name the framework feeds in, or `nil`.
    ///
    /// Core Data resolves the inverse in the destination entity and leaves it out when it is
    /// the relationship itself. For an inherited relationship it asks the entity that
    /// declares it, so an inherited self-inverse (MoneyWell's `transferSibling` in the
    /// subentities of `Activity`) is left out too.
    private static func includedInverseName(of relationship: RelationshipDescription, of entity: EntityDescription,
                                            in byName: [String: EntityDescription]) -> String? {
        guard let inverse = relationship.inverse,
              let destination = byName[relationship.destination],
              ([destination] + ancestors(of: destination, in: byName)).contains(where: { owner in
                  owner.relationships.contains { $0.name == inverse }
              })
        else { return nil }
        guard inverse == relationship.name else { return inverse }
        if relationship.destination == entity.name { return nil }
        let declaring = ancestors(of: entity, in: byName).last { owner in
            owner.relationships.contains { $0.name == relationship.name }
        }
        if let declaring, relationship.destination == declaring.name { return nil }
        return inverse
    }

    private static func littleEndian(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24)]
    }

    /// `NSString.compare(_:)` order for the names models use: by UTF-16 code unit.
    static func utf16Precedes(_ left: String, _ right: String) -> Bool {
        left.utf16.lexicographicallyPrecedes(right.utf16)
    }
}

extension AttributeType {
    /// Core Data's `NSAttributeType` raw value, which version hashes feed in.
    var coreDataTypeCode: Int {
        switch self {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .undefined: 0
        case .objectID: 2000
        case .composite: 2100
        }
    }
}
