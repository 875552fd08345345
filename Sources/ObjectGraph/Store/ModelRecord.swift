import Foundation

/// The model a store was last written with, kept in its metadata (`VacationsModel`) so that
/// migration compares declarations, not guesses. Stores made by Apple's Core Data lack it;
/// migration then works from the tables alone.
package struct ModelRecord {
    package struct Property: Equatable {
        package var entity: String
        package var name: String
        /// An attribute type's raw value, or `to-one:<Destination>` / `to-many:<Destination>`.
        package var kind: String
    }

    package var entities: [String: (parent: String?, isAbstract: Bool)]
    package var properties: [Property]

    package init(model: ObjectModel) {
        var entities: [String: (String?, Bool)] = [:]
        var properties: [Property] = []
        for entity in model.entities {
            entities[entity.name] = (entity.parent.map { model[$0].name }, entity.isAbstract)
            for attribute in entity.attributes where attribute.declaringEntity == entity.number {
                properties.append(Property(entity: entity.name, name: attribute.name, kind: attribute.type.rawValue))
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                let kind = (relationship.isToMany ? "to-many:" : "to-one:") + model[relationship.destination].name
                properties.append(Property(entity: entity.name, name: relationship.name, kind: kind))
            }
        }
        self.entities = entities
        self.properties = properties
    }

    package init?(plist: Any?) {
        guard let dictionary = plist as? [String: any Sendable],
              let entityList = dictionary["entities"] as? [any Sendable],
              let propertyList = dictionary["properties"] as? [any Sendable] else { return nil }
        var entities: [String: (String?, Bool)] = [:]
        for case let item as [String: any Sendable] in entityList {
            guard let name = item["name"] as? String else { continue }
            let parent = (item["parent"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            entities[name] = (parent, (item["abstract"] as? Bool) ?? false)
        }
        var properties: [Property] = []
        for case let item as [String: any Sendable] in propertyList {
            guard let entity = item["entity"] as? String, let name = item["name"] as? String,
                  let kind = item["kind"] as? String else { continue }
            properties.append(Property(entity: entity, name: name, kind: kind))
        }
        self.entities = entities
        self.properties = properties
    }

    package var plist: [String: Any] {
        [
            "entities": entities.keys.sorted().map { name -> [String: Any] in
                ["name": name, "parent": entities[name]?.parent ?? "", "abstract": entities[name]?.isAbstract ?? false]
            },
            "properties": properties.map { ["entity": $0.entity, "name": $0.name, "kind": $0.kind] },
        ]
    }

    package func property(_ entity: String, _ name: String) -> Property? {
        properties.first { $0.entity == entity && $0.name == name }
    }

    package static let metadataKey = "VacationsModel"
}
