import CommandLineKit
import CoreDataFiles
import Foundation
import ObjectGraph

/// `docstore model --json`: one document with stable keys. The keys of the first version
/// (`source`, `versionIdentifier`, `inference`, `entities`, and in each entity `name` … 
/// `uniquenessConstraints`) keep their place; later ones (`configurations`, `fetchRequests`,
/// `storeModel`) follow them.
extension ModelCommand {
    func jsonDocument() -> JSONValue {
        let model = source.model
        let inference: JSONValue = source.inferred.map { inferred in
            .object([
                ("matchesStore", .bool(inferred.matchesStoreExactly)),
                ("schemaDifferences", .array(inferred.schemaDifferences.map(JSONValue.text))),
                ("ignored", .array(inferred.ignored.map(JSONValue.text))),
                ("coreDataEntities", .array(inferred.coreDataEntities.map { entity in
                    .object([
                        ("name", .string(entity.name)), ("number", .integer(Int64(entity.number))), ("table", .string(entity.table)),
                        ("columns", .array(entity.columns.map { column in
                            .object([("name", .string(column.property)), ("type", .string(column.type.coreDataName)),
                                     ("column", .string(column.column))])
                        })),
                    ])
                })),
            ])
        } ?? .null
        let storeModel: JSONValue = source.storeModel.map { storeModel in
            .object([
                ("source", .string(storeModel.source.rawValue)),
                ("modelCacheProblem", storeModel.modelCacheProblem.map(JSONValue.text) ?? .null),
                ("matchesStore", .bool(storeModel.matchesStoreExactly)),
                ("schemaDifferences", .array(storeModel.schemaDifferences.map(JSONValue.text))),
            ])
        } ?? .null
        let file = source.modelFile
        return .object([
            ("source", .string(path)),
            ("versionIdentifier", .string(model.versionIdentifier)),
            ("inference", inference),
            ("entities", .array(model.entities.map { entityJSON($0, in: model) })),
            ("configurations", .array((file?.configurations ?? []).map { configuration in
                .object([
                    ("name", .string(configuration.name)),
                    ("entities", .array(configuration.entityNames.map(JSONValue.text))),
                    ("usedWithCloudKit", .bool(configuration.usedWithCloudKit)),
                ])
            })),
            ("fetchRequests", .array((file?.fetchRequests ?? []).map(Self.fetchRequestJSON))),
            ("storeModel", storeModel),
        ])
    }

    private func entityJSON(_ entity: Entity, in model: ObjectModel) -> JSONValue {
        let attributes: [JSONValue] = Self.declaredAttributes(of: entity).map { item in
            switch item {
            case .attribute(let attribute):
                return Self.attributeJSON(attribute.declaration, column: attribute.column, path: nil, entity: entity)
            case .composite(let composite):
                return Self.attributeJSON(composite.declaration, column: nil, path: nil, entity: entity)
            }
        }
        let relationships: [JSONValue] = entity.relationships.filter { $0.declaringEntity == entity.number }.map { relationship in
            var column: JSONValue = .null, entityColumn: JSONValue = .null, joinTable: JSONValue = .null
            var inverseColumn: JSONValue = .null
            switch relationship.storage {
            case .foreignKey(let key, let entityKey):
                column = .string(key)
                entityColumn = entityKey.map(JSONValue.text) ?? .null
            case .joinTable(let table, _, _): joinTable = .string(table)
            case .inverseForeignKey(let key, _): inverseColumn = .string(key)
            }
            let declaration = relationship.declaration
            return .object([
                ("name", .string(relationship.name)),
                ("destination", .string(model.entity(number: relationship.destination)?.name ?? "")),
                ("inverse", declaration.inverse.map(JSONValue.text) ?? .null),
                ("toMany", .bool(relationship.isToMany)),
                ("deleteRule", .string(relationship.deleteRule.rawValue)),
                ("column", column),
                ("entityColumn", entityColumn),
                ("joinTable", joinTable),
                ("ordered", .bool(declaration.isOrdered)),
                ("optional", .bool(declaration.isOptional)),
                ("minCount", .integer(Int64(declaration.minCount))),
                ("maxCount", .integer(Int64(relationship.isToMany ? declaration.maxCount : 1))),
                // The destination's column holding this object's key: the inverse to-one's, or
                // for a to-many without an inverse the hidden one Core Data adds.
                ("inverseColumn", inverseColumn),
            ])
        }
        let xcEntity = source.modelFile?.entity(named: entity.name)
        return .object([
            ("name", .string(entity.name)),
            ("number", .integer(Int64(entity.number))),
            ("parent", entity.parent.flatMap { model.entity(number: $0) }.map { .string($0.name) } ?? .null),
            ("abstract", .bool(entity.isAbstract)),
            ("table", .string(entity.table)),
            ("versionHash", .string(entity.versionHash.base64EncodedString())),
            ("attributes", .array(attributes)),
            ("relationships", .array(relationships)),
            ("uniquenessConstraints", .array(entity.uniquenessConstraints.map { slots in
                .array(slots.map { .string(entity.attributes[$0].name) })
            })),
            ("fetchIndexes", .array(entity.fetchIndexes.map { index in
                .object([
                    ("name", .string(index.name)),
                    ("elements", .array(index.elements.map { element in
                        .object([
                            ("property", element.property.map(JSONValue.text) ?? .null),
                            ("expression", element.expression.map(JSONValue.text) ?? .null),
                            ("type", .string(element.type == .rTree ? "RTree" : "Binary")),
                            ("order", .string(element.isAscending ? "ascending" : "descending")),
                        ])
                    })),
                ])
            })),
            ("compoundIndexes", .array((xcEntity?.compoundIndexes ?? []).map { .array($0.map(JSONValue.text)) })),
            ("fetchedProperties", .array((xcEntity?.fetchedProperties ?? []).map { fetched in
                .object([
                    ("name", .string(fetched.name)),
                    ("optional", .bool(fetched.isOptional)),
                    ("fetchRequest", fetched.fetchRequest.map(Self.fetchRequestJSON) ?? .null),
                ])
            })),
        ])
    }

    /// An attribute, or an element of a composite (with its `path` from the entity).
    private static func attributeJSON(_ declaration: AttributeDescription, column: String?, path: String?,
                                      entity: Entity) -> JSONValue {
        let fullPath = path.map { $0 + "." + declaration.name } ?? declaration.name
        let elements: [JSONValue] = declaration.elements.map { element in
            let elementPath = fullPath + "." + element.name
            let leaf = element.type == .composite ? nil : entity.attribute(named: elementPath)
            return attributeJSON(element, column: leaf?.column, path: fullPath, entity: entity)
        }
        var members: [(String, JSONValue)] = [("name", .string(declaration.name))]
        if path != nil { members.append(("path", .string(fullPath))) }
        members += [
            ("type", .string(declaration.type.coreDataName)),
            ("column", column.map(JSONValue.text) ?? .null),
            ("optional", .bool(declaration.isOptional)),
            ("indexed", .bool(declaration.isIndexed)),
            ("default", declaration.defaultValue.map { StoredValueJSON.render($0, as: declaration.type) } ?? .null),
            ("transient", .bool(declaration.isTransient)),
            ("derivation", declaration.derivationExpression.map(JSONValue.text) ?? .null),
            ("elements", .array(elements)),
        ]
        return .object(members)
    }

    private static func fetchRequestJSON(_ request: XCFetchRequest) -> JSONValue {
        .object([
            ("name", .string(request.name)),
            ("entity", request.entity.map(JSONValue.text) ?? .null),
            ("predicate", request.predicateString.map(JSONValue.text) ?? .null),
        ])
    }
}
