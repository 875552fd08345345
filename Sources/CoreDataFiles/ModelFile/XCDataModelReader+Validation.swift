import Foundation
import ObjectGraph

extension XCDataModelReader {
    /// Checks that a model hangs together the way Core Data's model compiler insists on.
    ///
    /// Entity and composite names are unique; every composite an attribute names exists and none
    /// contains itself; a property name is unique in its entity and its ancestors;
    /// every `parentEntity` exists and no entity is its own ancestor; every relationship's
    /// destination exists and its inverse is a relationship of that destination; indexes,
    /// uniqueness constraints, configurations and fetch requests name things that exist.
    /// `read(at:)` and `parse(_:url:)` run it; call it on models built by hand.
    ///
    /// ```swift
    /// try XCDataModelReader.validate(model)
    /// ```
    /// - Throws: `XCDataModelError` for the first problem in file order.
    package static func validate(_ model: XCDataModelFile, url: URL? = nil) throws {
        try validate(model, url: url, sourceLines: XCDataModelSourceLines())
    }

    static func validate(_ model: XCDataModelFile, url: URL?, sourceLines: XCDataModelSourceLines) throws {
        typealias Lines = XCDataModelSourceLines
        func fail(_ kind: XCDataModelError.Kind, at key: String) -> XCDataModelError {
            XCDataModelError(kind, url: url, line: sourceLines[key])
        }

        var compositesByName: [String: XCComposite] = [:]
        for composite in model.composites {
            guard compositesByName[composite.name] == nil else {
                throw fail(.duplicateName(kind: "composite", name: composite.name), at: Lines.compositeKey(composite.name))
            }
            compositesByName[composite.name] = composite
        }
        /// Every composite an attribute names exists, and none contains itself.
        func checkComposite(of attribute: XCAttribute, owner: String, key: String, chain: [String]) throws {
            guard attribute.attributeType == "Composite", let name = attribute.compositeName else { return }
            guard let composite = compositesByName[name] else {
                throw fail(.unknownReference(kind: "composite attribute \"\(attribute.name)\"", name: name, owner: owner), at: key)
            }
            if let start = chain.firstIndex(of: name) {
                throw fail(.compositeCycle(Array(chain[start...]) + [name]), at: key)
            }
            for element in composite.attributes {
                try checkComposite(of: element, owner: name, key: Lines.compositeKey(name), chain: chain + [name])
            }
        }
        for composite in model.composites {
            var names: Set<String> = []
            for element in composite.attributes where !names.insert(element.name).inserted {
                throw fail(.duplicateName(kind: "composite element", name: "\(composite.name).\(element.name)"),
                           at: Lines.compositeKey(composite.name))
            }
            for element in composite.attributes {
                try checkComposite(of: element, owner: composite.name, key: Lines.compositeKey(composite.name),
                                   chain: [composite.name])
            }
        }
        /// `location.latitude`, … for a composite attribute; empty for any other.
        func elementPaths(of attribute: XCAttribute, prefix: String, depth: Int = 0) -> [String] {
            guard attribute.attributeType == "Composite", depth < 64,
                  let composite = attribute.compositeName.flatMap({ compositesByName[$0] }) else { return [] }
            return composite.attributes.flatMap { element -> [String] in
                let path = prefix + "." + element.name
                return [path] + elementPaths(of: element, prefix: path, depth: depth + 1)
            }
        }

        var entitiesByName: [String: XCEntity] = [:]
        for entity in model.entities {
            guard entitiesByName[entity.name] == nil else {
                throw fail(.duplicateName(kind: "entity", name: entity.name), at: Lines.entityKey(entity.name))
            }
            entitiesByName[entity.name] = entity
        }

        for entity in model.entities {
            var chain = [entity.name]
            var parentName = entity.parentEntity
            while let name = parentName {
                guard let parent = entitiesByName[name] else {
                    let child = chain[chain.count - 1]
                    throw fail(.missingParentEntity(entity: child, parent: name), at: Lines.entityKey(child))
                }
                if let start = chain.firstIndex(of: name) {
                    throw fail(.inheritanceCycle(Array(chain[start...]) + [name]), at: Lines.entityKey(entity.name))
                }
                chain.append(name)
                parentName = parent.parentEntity
            }
        }

        /// Relationships by name, inherited ones included.
        func relationships(of entity: XCEntity) -> [String: XCRelationship] {
            var result: [String: XCRelationship] = [:]
            for owner in [entity] + model.ancestors(of: entity) {
                for relationship in owner.relationships where result[relationship.name] == nil {
                    result[relationship.name] = relationship
                }
            }
            return result
        }

        for entity in model.entities {
            let ancestors = model.ancestors(of: entity)
            let inherited = Set(ancestors.flatMap(\.propertyNames))
            var declared: Set<String> = []
            for name in entity.propertyNames {
                let key = Lines.propertyKey(entity.name, name)
                guard declared.insert(name).inserted, !inherited.contains(name) else {
                    throw fail(.duplicateName(kind: "property", name: "\(entity.name).\(name)"), at: key)
                }
            }
            for attribute in entity.attributes {
                try checkComposite(of: attribute, owner: entity.name, key: Lines.propertyKey(entity.name, attribute.name),
                                   chain: [])
            }
            let elements = ([entity] + ancestors).flatMap(\.attributes).flatMap { elementPaths(of: $0, prefix: $0.name) }
            let known = declared.union(inherited).union(elements)

            for relationship in entity.relationships {
                let key = Lines.propertyKey(entity.name, relationship.name)
                guard let destination = entitiesByName[relationship.destinationEntity] else {
                    throw fail(.missingDestinationEntity(entity: entity.name, relationship: relationship.name,
                                                         destination: relationship.destinationEntity), at: key)
                }
                if let inverse = relationship.inverseName, relationships(of: destination)[inverse] == nil {
                    throw fail(.missingInverseRelationship(entity: entity.name, relationship: relationship.name,
                                                           inverse: inverse, destination: destination.name),
                               at: key)
                }
            }

            let entityKey = Lines.entityKey(entity.name)
            for constraint in entity.uniquenessConstraints {
                for name in constraint where !known.contains(name) {
                    throw fail(.unknownReference(kind: "uniqueness constraint", name: name, owner: entity.name),
                               at: entityKey)
                }
            }
            for names in entity.compoundIndexes {
                for name in names where !known.contains(name) {
                    throw fail(.unknownReference(kind: "compound index", name: name, owner: entity.name),
                               at: entityKey)
                }
            }
            for index in entity.indexes {
                for name in index.propertyNames where !known.contains(name) {
                    throw fail(.unknownReference(kind: "index \"\(index.name)\"", name: name, owner: entity.name),
                               at: entityKey)
                }
            }
            for fetched in entity.fetchedProperties {
                if let target = fetched.fetchRequest?.entity, entitiesByName[target] == nil {
                    throw fail(.unknownReference(kind: "fetched property \"\(fetched.name)\"", name: target,
                                                 owner: entity.name),
                               at: Lines.propertyKey(entity.name, fetched.name))
                }
            }
        }

        for configuration in model.configurations {
            for name in configuration.entityNames where entitiesByName[name] == nil {
                throw fail(.unknownReference(kind: "configuration", name: name, owner: configuration.name),
                           at: Lines.configurationKey(configuration.name))
            }
        }
        for request in model.fetchRequests {
            if let target = request.entity, entitiesByName[target] == nil {
                throw fail(.unknownReference(kind: "fetch request", name: target, owner: request.name),
                           at: Lines.fetchRequestKey(request.name))
            }
        }
    }
}
