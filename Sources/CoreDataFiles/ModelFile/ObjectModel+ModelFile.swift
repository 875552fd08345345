import Foundation
import ObjectGraph
import SQLiteDB

extension ObjectModel {
    /// Loads a model from a Core Data model file: a `.xcdatamodeld` folder (its current
    /// version), a `.xcdatamodel` folder or its `contents` file.
    ///
    /// ```swift
    /// let model = try ObjectModel(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
    /// ```
    /// - Throws: `XCDataModelError` for an unreadable file, `ModelError` for a model we cannot use.
    public convenience init(contentsOf url: URL) throws {
        let file = try XCDataModelReader.read(at: url)
        try self.init(file: file)
    }

    /// Builds a model from a parsed Core Data model file.
    ///
    /// Everything the store and the version hashes need comes across: attributes with every
    /// flag (transient ones of any type, Undefined included; derived ones with their
    /// expression; composites with their elements), relationships (to-manys without an
    /// inverse too), uniqueness constraints, compound indexes and named fetch indexes.
    /// Configurations, fetched properties and fetch request templates stay in the file's
    /// values (`XCDataModelFile`): nothing in a store depends on them.
    public convenience init(file: XCDataModelFile) throws {
        try self.init(entities: file.entities.map { try EntityDescription(xcEntity: $0, in: file) },
                      versionIdentifier: file.versionIdentifier ?? "")
    }
}

extension EntityDescription {
    /// The entity a Core Data model file declares, with every property, constraint and index.
    ///
    /// - Throws: `XCDataModelError` for an attribute type or composite the file does not define.
    init(xcEntity entity: XCEntity, in model: XCDataModelFile) throws {
        self.init(relationshipsOf: entity)
        attributes = try entity.attributes.map { try AttributeDescription(xcAttribute: $0, entityName: entity.name, in: model) }
        uniquenessConstraints = entity.uniquenessConstraints
        indexes = entity.compoundIndexes + entity.indexes.map(\.propertyNames)
        fetchIndexes = entity.indexes.map { index in
            FetchIndexDescription(name: index.name, elements: index.elements.map { element in
                FetchIndexDescription.Element(property: element.property, expression: element.expression,
                                              type: element.type == "RTree" ? .rTree : .binary,
                                              isAscending: element.isAscending)
            })
        }
    }
}

extension AttributeDescription {
    /// An attribute of a model file with every flag the version hash covers, its default value
    /// in stored form, and for a composite its elements (nested composites resolved).
    ///
    /// - Throws: `XCDataModelError` for a type name we have no code for, or a composite that
    ///   the model does not define or that contains itself.
    init(xcAttribute attribute: XCAttribute, entityName: String, in model: XCDataModelFile?, depth: Int = 0) throws {
        guard let type = AttributeType(coreDataName: attribute.attributeType) else {
            throw XCDataModelError(.unknownAttributeType(entity: entityName, attribute: attribute.name,
                                                         type: attribute.attributeType))
        }
        var elements: [AttributeDescription] = []
        if type == .composite {
            let name = attribute.compositeName ?? ""
            guard let composite = model?.composite(named: name), depth < 64 else {
                throw XCDataModelError(.unknownReference(kind: "composite attribute \"\(attribute.name)\"", name: name,
                                                         owner: entityName))
            }
            elements = try composite.attributes.map {
                try AttributeDescription(xcAttribute: $0, entityName: name, in: model, depth: depth + 1)
            }
        }
        self.init(name: attribute.name, type: type, isOptional: attribute.isOptional,
                  defaultValue: Self.defaultValue(of: attribute, type: type),
                  isIndexed: attribute.isIndexed, isTransient: attribute.isTransient,
                  renamingIdentifier: attribute.renamingIdentifier,
                  versionHashModifier: attribute.versionHashModifier,
                  allowsExternalBinaryDataStorage: attribute.allowsExternalBinaryDataStorage,
                  preservesValueInHistoryOnDeletion: attribute.preservesValueInHistoryOnDeletion,
                  derivationExpression: attribute.isDerived ? (attribute.derivationExpression ?? "") : nil,
                  elements: elements)
    }

    private static func defaultValue(of attribute: XCAttribute, type: AttributeType) -> SQLiteValue? {
        if type == .date, let interval = attribute.defaultDateTimeInterval { return .real(interval) }
        guard let text = attribute.defaultValueString, type != .composite else { return nil }
        switch type {
        case .boolean:
            return .integer(["yes", "true", "1"].contains(text.lowercased()) ? 1 : 0)
        case .date:
            return Double(text).map { .real($0) }
        default:
            return SQLiteValue.coerce(.text(text), to: type)
        }
    }
}

extension DeleteRule {
    var coreDataName: String {
        switch self {
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        case .noAction: "No Action"
        }
    }

    init(coreDataName: String) {
        switch coreDataName {
        case "Cascade": self = .cascade
        case "Deny": self = .deny
        case "No Action": self = .noAction
        default: self = .nullify
        }
    }
}
