import Foundation

/// Resolves entity descriptions into Core Data's numbering, property slots and SQL names.
struct ModelBuilder {
    let descriptions: [EntityDescription]
    private var byName: [String: EntityDescription] = [:]

    init(_ descriptions: [EntityDescription]) {
        self.descriptions = descriptions
    }

    struct Result {
        var entities: [Entity]
        var joinTables: [ObjectModel.JoinTable]
        var hiddenKeys: [ObjectModel.HiddenKey]
        var tableColumns: [String: [ObjectModel.Column]]
    }

    /// An attribute slot as declared: a composite's leaf element is named by its path and
    /// remembers the composite.
    private struct SlotDeclaration {
        var attribute: AttributeDescription
        var declaringEntity: Int
        var composite: String?
    }

    mutating func build() throws -> Result {
        for description in descriptions {
            guard !description.name.isEmpty else { throw ModelError("an entity has no name") }
            guard byName[description.name] == nil else {
                throw ModelError("entity \(description.name) is declared twice")
            }
            byName[description.name] = description
        }
        for description in descriptions {
            try checkOwnProperties(description)
            if let parent = description.parent, byName[parent] == nil {
                throw ModelError("entity \(description.name) has parent \(parent), which is not in the model")
            }
        }
        try checkOneSidedInverses()
        let order = try numbering()
        let number = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0 + 1) })
        let chains = try Dictionary(uniqueKeysWithValues: order.map { ($0, try ancestry(of: $0)) })

        // Properties in slot order: inherited first, so that slots agree down a hierarchy.
        var attributes: [String: [SlotDeclaration]] = [:]
        var composites: [String: [EntityComposite]] = [:]
        var relationships: [String: [(RelationshipDescription, Int)]] = [:]
        for name in order {
            for ancestor in chains[name, default: []] {
                let declaring = number[ancestor] ?? 0
                for attribute in byName[ancestor]?.attributes ?? [] {
                    guard attribute.type == .composite else {
                        attributes[name, default: []].append(SlotDeclaration(attribute: attribute, declaringEntity: declaring))
                        continue
                    }
                    composites[name, default: []].append(EntityComposite(declaration: attribute, declaringEntity: declaring))
                    for var leaf in attribute.flattenedElements {
                        leaf.isOptional = leaf.isOptional || attribute.isOptional
                        leaf.isTransient = attribute.isTransient
                        attributes[name, default: []].append(SlotDeclaration(attribute: leaf, declaringEntity: declaring,
                                                                              composite: attribute.name))
                    }
                }
                relationships[name, default: []] += (byName[ancestor]?.relationships ?? []).map { ($0, declaring) }
            }
            let all = attributes[name, default: []].map(\.attribute.name) + composites[name, default: []].map(\.name)
                + relationships[name, default: []].map(\.0.name)
            if let clash = Dictionary(grouping: all, by: { $0 }).first(where: { $0.value.count > 1 }) {
                throw ModelError("entity \(name) has more than one property named \(clash.key)")
            }
        }
        let columns = try ColumnLayout(order: order, number: number, byName: byName, chains: chains)

        // Worked out when first asked for: a read needs none (`ModelVersionHashes`).
        let hashes = ModelVersionHashes(descriptions)
        var entities: [Entity] = []
        for name in order {
            guard let description = byName[name], let entityNumber = number[name] else { continue }
            let chain = chains[name, default: []]
            let root = number[chain.first ?? name] ?? entityNumber
            let ownAttributes = attributes[name, default: []]
            let resolvedAttributes = ownAttributes.enumerated().map { slot, declared in
                EntityAttribute(declaration: declared.attribute, slot: slot,
                                column: declared.attribute.isTransient
                                    ? nil : columns.attributeColumns[ColumnLayout.Key(declared.declaringEntity, declared.attribute.name)],
                                declaringEntity: declared.declaringEntity, composite: declared.composite)
            }
            var toOneSlot = 0, toManySlot = 0
            var resolvedRelationships: [EntityRelationship] = []
            for (index, pair) in relationships[name, default: []].enumerated() {
                let (relationship, declaring) = pair
                guard let destination = number[relationship.destination] else {
                    throw ModelError("relationship \(name).\(relationship.name) points to \(relationship.destination), which is not in the model")
                }
                let inverseIndex = try inverse(of: relationship, in: name, declaredBy: declaring, number: number,
                                               relationships: relationships)
                let storage = try columns.storage(for: relationship, declaredBy: declaring, entity: name)
                let slot: Int
                if relationship.isToMany { slot = toManySlot; toManySlot += 1 } else { slot = toOneSlot; toOneSlot += 1 }
                resolvedRelationships.append(EntityRelationship(
                    declaration: relationship, index: index, slot: slot, destination: destination,
                    inverseIndex: inverseIndex, storage: storage, declaringEntity: declaring))
            }
            var constraints: [[Int]] = []
            for ancestor in chain {
                guard let ancestorDescription = byName[ancestor] else { continue }
                var lists = ancestorDescription.uniquenessConstraints
                lists += ancestorDescription.attributes.filter(\.isUnique).map { [$0.name] }
                for list in lists {
                    let slots = try list.map { attributeName -> Int in
                        guard let slot = resolvedAttributes.firstIndex(where: { $0.name == attributeName }) else {
                            throw ModelError("uniqueness constraint of \(ancestor) names \(attributeName), which is not one of its attributes")
                        }
                        return slot
                    }
                    if !constraints.contains(slots) { constraints.append(slots) }
                }
            }
            let subentities = order.filter { byName[$0]?.parent == name }.compactMap { number[$0] }
            let hierarchy = order.filter { chains[$0, default: []].contains(name) }.compactMap { number[$0] }
            let wrapperTargets: [WrapperTarget] = description.wrapperOrder.compactMap { propertyName in
                if let slot = resolvedAttributes.firstIndex(where: { $0.name == propertyName }) { return .attribute(slot) }
                if let index = resolvedRelationships.firstIndex(where: { $0.name == propertyName }) { return .relationship(index) }
                return nil
            }
            entities.append(Entity(
                name: name, number: entityNumber, isAbstract: description.isAbstract,
                parent: description.parent.flatMap { number[$0] }, root: root, subentities: subentities,
                hierarchy: hierarchy, attributes: resolvedAttributes, relationships: resolvedRelationships,
                uniquenessConstraints: constraints,
                table: ColumnLayout.tableName(chain.first ?? name),
                renamingIdentifier: description.renamingIdentifier,
                versionHashes: hashes,
                objectClass: description.objectClass, wrapperTargets: wrapperTargets,
                composites: composites[name, default: []], fetchIndexes: description.fetchIndexes,
                storedFetchIndexes: try FetchIndex.resolve(named: description.fetchIndexes, unnamed: description.indexes, entity: name,
                                                           attributes: resolvedAttributes, relationships: resolvedRelationships)))
        }
        func position(_ key: ObjectModel.HiddenKey) -> Int {
            columns.tableColumns[key.table]?.firstIndex { $0.name == key.column } ?? 0
        }
        let hiddenKeys = columns.hiddenKeys.values.sorted { ($0.table, position($0)) < ($1.table, position($1)) }
        return Result(entities: entities, joinTables: columns.joinTables, hiddenKeys: hiddenKeys,
                      tableColumns: columns.tableColumns)
    }

    private func checkOwnProperties(_ description: EntityDescription) throws {
        for attribute in description.attributes {
            if attribute.name.isEmpty { throw ModelError("entity \(description.name) has an attribute without a name") }
            if !attribute.type.isStorable && !attribute.isTransient {
                throw ModelError("attribute \(description.name).\(attribute.name) has type \(attribute.type.coreDataName), which a SQLite store cannot hold")
            }
            if attribute.type == .composite {
                try checkElements(of: attribute, path: "\(description.name).\(attribute.name)")
            } else if !attribute.elements.isEmpty {
                throw ModelError("attribute \(description.name).\(attribute.name) has elements but is not a composite")
            }
        }
        for relationship in description.relationships {
            if relationship.name.isEmpty { throw ModelError("entity \(description.name) has a relationship without a name") }
            if relationship.minCount < 0 || relationship.maxCount < 0
                || (relationship.maxCount > 0 && relationship.minCount > relationship.maxCount) {
                throw ModelError("relationship \(description.name).\(relationship.name) has counts \(relationship.minCount)...\(relationship.maxCount)")
            }
        }
    }

    /// A composite's elements: named, unique, of types Core Data allows in a composite (not
    /// Undefined or Object ID, no external binary storage), nested composites checked the same way.
    private func checkElements(of composite: AttributeDescription, path: String) throws {
        var names: Set<String> = []
        for element in composite.elements {
            let elementPath = path + "." + element.name
            guard !element.name.isEmpty, !element.name.contains(".") else {
                throw ModelError("composite \(path) has an element named \"\(element.name)\"")
            }
            guard names.insert(element.name).inserted else {
                throw ModelError("composite \(path) has more than one element named \(element.name)")
            }
            if !element.type.isStorable || element.allowsExternalBinaryDataStorage {
                throw ModelError("element \(elementPath) has type \(element.type.coreDataName)"
                    + (element.allowsExternalBinaryDataStorage ? " with external storage" : "") + ", which a composite cannot hold")
            }
            if element.type == .composite { try checkElements(of: element, path: elementPath) }
        }
    }

    /// A to-many without an inverse that another relationship names as its inverse: Core Data
    /// calls such a model "improper" (the two sides would be kept in different places).
    private func checkOneSidedInverses() throws {
        for description in descriptions {
            for relationship in description.relationships {
                guard let inverseName = relationship.inverse,
                      let inverse = ownOrInherited(inverseName, of: relationship.destination),
                      inverse.isToMany, inverse.inverse == nil else { continue }
                throw ModelError("relationship \(description.name).\(relationship.name) names \(relationship.destination).\(inverseName) as its inverse, but that to-many names no inverse: declare it on both sides")
            }
        }
    }

    private func ownOrInherited(_ name: String, of entity: String) -> RelationshipDescription? {
        var current: String? = entity
        var seen: Set<String> = []
        while let entityName = current, seen.insert(entityName).inserted, let description = byName[entityName] {
            if let relationship = description.relationships.first(where: { $0.name == name }) { return relationship }
            current = description.parent
        }
        return nil
    }

    /// Core Data's numbering: roots alphabetically (ignoring case), each followed depth first by
    /// its subentities, alphabetically among siblings.
    private func numbering() throws -> [String] {
        func sorted(_ names: [String]) -> [String] {
            names.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
        }
        var children: [String: [String]] = [:]
        var roots: [String] = []
        for description in descriptions {
            if let parent = description.parent { children[parent, default: []].append(description.name) } else { roots.append(description.name) }
        }
        var order: [String] = []
        var stack = sorted(roots).reversed().map { $0 }
        while let name = stack.popLast() {
            order.append(name)
            stack += sorted(children[name, default: []]).reversed()
        }
        if order.count != descriptions.count {
            let missing = descriptions.map(\.name).filter { !order.contains($0) }.sorted()
            throw ModelError("entities \(missing.joined(separator: ", ")) inherit from each other in a cycle")
        }
        return order
    }

    /// Root first, ending with `name`.
    private func ancestry(of name: String) throws -> [String] {
        var chain = [name]
        var current = byName[name]?.parent
        while let parent = current {
            if chain.contains(parent) { throw ModelError("entity \(name) inherits from itself") }
            chain.insert(parent, at: 0)
            current = byName[parent]?.parent
        }
        return chain
    }

    private func inverse(of relationship: RelationshipDescription, in entity: String, declaredBy declaring: Int,
                         number: [String: Int],
                         relationships: [String: [(RelationshipDescription, Int)]]) throws -> Int? {
        guard let inverseName = relationship.inverse else { return nil }
        let candidates = relationships[relationship.destination, default: []]
        guard let index = candidates.firstIndex(where: { $0.0.name == inverseName }) else {
            throw ModelError("relationship \(entity).\(relationship.name) has inverse \(relationship.destination).\(inverseName), which does not exist")
        }
        let inverse = candidates[index].0
        let declaringName = descriptions.first { number[$0.name] == declaring }?.name ?? entity
        if let back = inverse.inverse, back != relationship.name {
            throw ModelError("relationship \(relationship.destination).\(inverseName) is the inverse of \(entity).\(relationship.name) but names \(back) as its inverse")
        }
        // Core Data lets the inverse point at the declaring entity, an ancestor, or a subentity
        // (Photos: GenericAsset.extendedAttributes has the inverse ExtendedAttributes.asset → Asset).
        if inverse.destination != declaringName, try !ancestry(of: entity).contains(inverse.destination),
           try !ancestry(of: inverse.destination).contains(declaringName) {
            throw ModelError("relationship \(relationship.destination).\(inverseName) points to \(inverse.destination), not back to \(entity)")
        }
        return index
    }
}
