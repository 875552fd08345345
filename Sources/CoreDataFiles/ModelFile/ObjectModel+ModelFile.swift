import Foundation
import ObjectGraph
import SQLiteDB

extension ObjectModel {
    /// Loads a model from a Core Data model file: a `.xcdatamodeld` folder (its current
    /// version), a `.xcdatamodel` folder or its `contents` file, or a compiled model (a `.mom`
    /// file, or a `.momd` folder's current version).
    ///
    /// ```swift
    /// let model = try ObjectModel(contentsOf: URL(fileURLWithPath: "Model.xcdatamodeld"))
    /// let compiled = try ObjectModel(contentsOf: URL(fileURLWithPath: "App.app/Model.momd"))
    /// ```
    /// - Throws: `XCDataModelError` for an unreadable file, `ModelError` for a model we cannot use.
    public convenience init(contentsOf url: URL) throws {
        let file = try XCDataModelReader.read(at: url)
        try self.init(file: file)
    }

    /// Builds a model from a parsed Core Data model file.
    public convenience init(file: XCDataModelFile) throws {
        try self.init(entities: file.entities.map { try EntityDescription(xcEntity: $0) },
                      versionIdentifier: file.versionIdentifier ?? "")
    }
}

extension EntityDescription {
    /// The entity a Core Data model file declares.
    ///
    /// - Throws: `ModelError` for attribute types this framework cannot store.
    init(xcEntity entity: XCEntity) throws {
        self.init(relationshipsOf: entity)
        for attribute in entity.attributes {
            guard let type = AttributeType(coreDataName: attribute.attributeType), type.isStorable || attribute.isTransient else {
                throw ModelError("attribute \(entity.name).\(attribute.name) has type \(attribute.attributeType), which a SQLite store cannot hold")
            }
            var description = try AttributeDescription(hashing: attribute, entityName: entity.name)
            description.defaultValue = Self.defaultValue(of: attribute, type: description.type)
            attributes.append(description)
        }
        uniquenessConstraints = entity.uniquenessConstraints
        indexes = entity.compoundIndexes + entity.indexes.map { $0.elements.compactMap(\.property) }
    }

    private static func defaultValue(of attribute: XCAttribute, type: AttributeType) -> SQLiteValue? {
        if type == .date, let interval = attribute.defaultDateTimeInterval { return .real(interval) }
        guard let text = attribute.defaultValueString else { return nil }
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
