import Foundation
import ObjectGraph
import CommandLineKit

/// `docstore model M [--json]`: a model as loaded — entities with their numbers, tables and
/// version hashes, each declared property with its type and where it is stored, and the named
/// fetch indexes, fetched properties and configurations a model file declares.
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
        if json {
            output.write(jsonDocument().renderedLine())
            return
        }
        let model = source.model
        output.write("Model: \(path)" + (source.storeModelDescription.map { " (\($0))" } ?? "") + "\n")
        for entity in model.entities {
            var header = "\(entity.name) (\(entity.number))"
            if let parent = entity.parent.flatMap({ model.entity(number: $0) }) { header += " : \(parent.name)" }
            if entity.isAbstract { header += ", abstract" }
            header += ", table \(entity.table), version hash \(entity.versionHash.base64EncodedString())"
            output.write("\n" + header + "\n")
            var table = TextTable(columns: [.init("PROPERTY"), .init("TYPE"), .init("STORED IN")])
            for item in Self.declaredAttributes(of: entity) {
                switch item {
                case .attribute(let attribute):
                    table.addRow([attribute.name, Self.typeText(attribute.declaration),
                                  attribute.column ?? "(transient)"])
                case .composite(let composite):
                    let declaration = composite.declaration
                    table.addRow([declaration.name, "Composite",
                                  declaration.isTransient ? "(transient)" : "(its elements)"])
                    for leaf in entity.attributes where leaf.composite == declaration.name && leaf.declaringEntity == composite.declaringEntity {
                        table.addRow(["  " + leaf.name, Self.typeText(leaf.declaration), leaf.column ?? "(transient)"])
                    }
                }
            }
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                let destination = model.entity(number: relationship.destination)?.name ?? "?"
                var type = (relationship.isToMany ? "to-many " : "to-one ") + destination
                if relationship.declaration.isOrdered { type += ", ordered" }
                type += relationship.declaration.inverse.map { " (inverse \($0))" } ?? (relationship.isToMany ? " (no inverse)" : "")
                table.addRow([relationship.name, type, Self.storage(of: relationship, in: model)])
            }
            for fetched in source.modelFile?.entity(named: entity.name)?.fetchedProperties ?? [] {
                let target = fetched.fetchRequest?.entity ?? "?"
                let predicate = fetched.fetchRequest?.predicateString.map { " where \($0)" } ?? ""
                table.addRow([fetched.name, "fetched \(target)\(predicate)", "(not stored)"])
            }
            if !table.rows.isEmpty {
                output.write(table.rendered().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n")
            }
            for index in entity.fetchIndexes {
                let elements = index.elements.map { element in
                    (element.property ?? element.expression ?? "?") + (element.isAscending ? "" : " descending")
                        + (element.type == .rTree ? " (R-tree)" : "")
                }
                output.write("  fetch index \(index.name): \(elements.joined(separator: ", "))\n")
            }
        }
        for configuration in source.modelFile?.configurations ?? [] {
            output.write("\nConfiguration \(configuration.name)" + (configuration.usedWithCloudKit ? " (CloudKit)" : "")
                         + ": \(configuration.entityNames.joined(separator: ", "))\n")
        }
        if let storeModel = source.storeModel {
            output.write("\n" + (storeModel.matchesStoreExactly
                ? "The store's schema is exactly what this model lays out."
                : "The store's schema differs from what this model lays out; it is read as it is.") + "\n")
            for entity in storeModel.inferred?.coreDataEntities ?? [] {
                output.write("Core Data's own entity \(entity.name) (\(entity.number)), table \(entity.table): "
                    + entity.columns.map(\.property).joined(separator: ", ") + "\n")
            }
            for line in storeModel.inferred?.ignored ?? [] { output.write("Left out: \(line)\n") }
        }
    }

    /// An attribute's type, its default, and what makes it special (derived, transient).
    private static func typeText(_ declaration: AttributeDescription) -> String {
        var type = declaration.type.coreDataName
        if let value = declaration.defaultValue {
            type += " = " + StoredValueJSON.render(value, as: declaration.type).rendered()
        }
        if let expression = declaration.derivationExpression { type += ", derived from \(expression)" }
        return type
    }

    static func storage(of relationship: EntityRelationship, in model: ObjectModel) -> String {
        switch relationship.storage {
        case .foreignKey(let column, let entityColumn?): "\(column) + \(entityColumn)"
        case .foreignKey(let column, nil): column
        case .inverseForeignKey(let column, true): "\(model.entity(number: relationship.destination)?.table ?? "?").\(column)"
        case .inverseForeignKey: "(the inverse's key)"
        case .joinTable(let table, _, _): table
        }
    }

    /// An entity's own attributes in declaration order, a composite once, where it stands.
    enum DeclaredAttribute {
        case attribute(EntityAttribute)
        case composite(EntityComposite)
    }

    static func declaredAttributes(of entity: Entity) -> [DeclaredAttribute] {
        let own = entity.composites.filter { $0.declaringEntity == entity.number }
        var shown: Set<String> = []
        var result: [DeclaredAttribute] = []
        for attribute in entity.attributes where attribute.declaringEntity == entity.number {
            guard let name = attribute.composite else {
                result.append(.attribute(attribute))
                continue
            }
            if shown.insert(name).inserted, let composite = own.first(where: { $0.name == name }) {
                result.append(.composite(composite))
            }
        }
        // A composite without elements has no slot to stand at: it comes last.
        for composite in own where shown.insert(composite.name).inserted { result.append(.composite(composite)) }
        return result
    }
}
