import Foundation
import ObjectGraph
import CommandLineKit

/// `docstore model M [--json]`: a model as loaded — entities with their numbers, tables and
/// version hashes, and each declared property with its type and where it is stored.
///
/// ```
/// Model: Model 2.xcdatamodel
///
/// Ebook (1), table ZEBOOK, version hash tI1684PhxGXK7ghKeLxKcsmq0LX+BcBP5ViWHHSLKdM=
///   PROPERTY    TYPE    STORED IN
///   contents    Binary  ZCONTENTS
/// ```
struct ModelCommand {
    let path: String
    let source: ModelSource

    func run(json: Bool, output: inout some TextOutputStream) throws {
        let model = source.model
        if json {
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
            let document: JSONValue = .object([
                ("source", .string(path)),
                ("versionIdentifier", .string(model.versionIdentifier)),
                ("inference", inference),
                ("entities", .array(model.entities.map { entityJSON($0, in: model) })),
            ])
            output.write(document.rendered() + "\n")
            return
        }
        output.write("Model: \(path)" + (source.inferred == nil ? "" : " (inferred from the store)") + "\n")
        for entity in model.entities {
            var header = "\(entity.name) (\(entity.number))"
            if let parent = entity.parent.flatMap({ model.entity(number: $0) }) { header += " : \(parent.name)" }
            if entity.isAbstract { header += ", abstract" }
            header += ", table \(entity.table), version hash \(entity.versionHash.base64EncodedString())"
            output.write("\n" + header + "\n")
            var table = TextTable(columns: [.init("PROPERTY"), .init("TYPE"), .init("STORED IN")])
            for attribute in entity.attributes where attribute.declaringEntity == entity.number {
                var type = attribute.type.coreDataName
                if let value = attribute.declaration.defaultValue {
                    type += " = " + StoredValueJSON.render(value, as: attribute.type).rendered()
                }
                table.addRow([attribute.name, type, attribute.column ?? "(transient)"])
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                let destination = model.entity(number: relationship.destination)?.name ?? "?"
                let type = (relationship.isToMany ? "to-many " : "to-one ") + destination
                    + (relationship.declaration.inverse.map { " (inverse \($0))" } ?? "")
                table.addRow([relationship.name, type, Self.storage(of: relationship)])
            }
            if !table.rows.isEmpty {
                output.write(table.rendered().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n")
            }
        }
        if let inferred = source.inferred {
            output.write("\n" + (inferred.matchesStoreExactly
                ? "The store's schema is exactly what this model lays out."
                : "The store's schema differs from what this model lays out; it is read as it is.") + "\n")
            for entity in inferred.coreDataEntities {
                output.write("Core Data's own entity \(entity.name) (\(entity.number)), table \(entity.table): "
                    + entity.columns.map(\.property).joined(separator: ", ") + "\n")
            }
            for line in inferred.ignored { output.write("Left out: \(line)\n") }
        }
    }

    static func storage(of relationship: EntityRelationship) -> String {
        switch relationship.storage {
        case .foreignKey(let column, let entityColumn?): "\(column) + \(entityColumn)"
        case .foreignKey(let column, nil): column
        case .inverseForeignKey: "(the inverse's key)"
        case .joinTable(let table, _, _): table
        }
    }

    private func entityJSON(_ entity: Entity, in model: ObjectModel) -> JSONValue {
        let attributes: [JSONValue] = entity.attributes.filter { $0.declaringEntity == entity.number }.map { attribute in
            .object([
                ("name", .string(attribute.name)),
                ("type", .string(attribute.type.coreDataName)),
                ("column", attribute.column.map(JSONValue.text) ?? .null),
                ("optional", .bool(attribute.declaration.isOptional)),
                ("indexed", .bool(attribute.declaration.isIndexed)),
                ("default", attribute.declaration.defaultValue.map { StoredValueJSON.render($0, as: attribute.type) } ?? .null),
            ])
        }
        let relationships: [JSONValue] = entity.relationships.filter { $0.declaringEntity == entity.number }.map { relationship in
            var column: JSONValue = .null, entityColumn: JSONValue = .null, joinTable: JSONValue = .null
            switch relationship.storage {
            case .foreignKey(let key, let entityKey):
                column = .string(key)
                entityColumn = entityKey.map(JSONValue.text) ?? .null
            case .joinTable(let table, _, _): joinTable = .string(table)
            case .inverseForeignKey: break
            }
            return .object([
                ("name", .string(relationship.name)),
                ("destination", .string(model.entity(number: relationship.destination)?.name ?? "")),
                ("inverse", relationship.declaration.inverse.map(JSONValue.text) ?? .null),
                ("toMany", .bool(relationship.isToMany)),
                ("deleteRule", .string(relationship.deleteRule.rawValue)),
                ("column", column),
                ("entityColumn", entityColumn),
                ("joinTable", joinTable),
            ])
        }
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
        ])
    }
}
