import Foundation
import ObjectGraph

extension XCDataModelReader {
    /// Checks that a model hangs together the way Core Data's model compiler insists on.
    ///
    /// Entity names are unique; a property name is unique in its entity and its ancestors;
    /// every `parentEntity` exists and no entity is its own ancestor; every relationship's
    /// destination exists and its inverse is a relationship of that destination; indexes,
    /// uniqueness constraints, configurations and fetch requests name things that exist.
    /// `read(at:)` and `parse(_:url:)` run it; call it on models built by hand.
    ///
    /// ```swift
    /// try XCDataModelReader.validate(model)
    /// ```
    /// - Throws: `XCDataModelError` for the first problem in file order.
    public static func validate(_ model: XCDataModelFile, url: URL? = nil) throws {
        try validate(model, url: url, sourceLines: XCDataModelSourceLines())
    }

    static func validate(_ model: XCDataModelFile, url: URL?, sourceLines: XCDataModelSourceLines) throws {
        typealias Lines = XCDataModelSourceLines
        func fail(_ kind: XCDataModelError.Kind, at key: String) -> XCDataModelError {
            XCDataModelError(kind, url: url, line: sourceLines[key])
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
            let known = declared.union(inherited)

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
