import Foundation
import ObjectGraph

/// Where in the file each named thing was declared, so later checks can give a line.
struct XCDataModelSourceLines: Sendable {
    var lines: [String: Int] = [:]

    static func entityKey(_ entity: String) -> String { "entity \(entity)" }
    static func propertyKey(_ entity: String, _ property: String) -> String { "property \(entity).\(property)" }
    static func configurationKey(_ name: String) -> String { "configuration \(name)" }
    static func fetchRequestKey(_ name: String) -> String { "fetchRequest \(name)" }
    static func compositeKey(_ name: String) -> String { "composite \(name)" }

    /// Keeps the last line seen for a key, so a duplicate name is reported where it repeats.
    mutating func record(_ key: String, line: Int) {
        lines[key] = line
    }

    subscript(key: String) -> Int? { lines[key] }
}

/// Turns the `<model>` element tree into `XCDataModelFile` values, checking the form of
/// each value on the way (booleans, numbers, attribute types, deletion rules).
struct XCDataModelXMLDecoder {
    let url: URL?
    private var sourceLines = XCDataModelSourceLines()

    init(url: URL?) {
        self.url = url
    }

    mutating func decode(_ root: XCDataModelXMLElement) throws -> (XCDataModelFile, XCDataModelSourceLines) {
        guard root.name == "model" else {
            throw XCDataModelError(.unexpectedRootElement(root.name), url: url, line: root.line)
        }
        var model = XCDataModelFile(
            versionIdentifier: root.attributes["userDefinedModelVersionIdentifier"],
            documentVersion: root.attributes["documentVersion"],
            lastSavedToolsVersion: root.attributes["lastSavedToolsVersion"],
            systemVersion: root.attributes["systemVersion"],
            minimumToolsVersion: root.attributes["minimumToolsVersion"],
            sourceLanguage: root.attributes["sourceLanguage"])
        for child in root.children {
            switch child.name {
            case "entity":
                model.entities.append(try decodeEntity(child))
            case "configuration":
                let name = try required(child, "name", owner: nil)
                sourceLines.record(XCDataModelSourceLines.configurationKey(name), line: child.line)
                let members = try child.children(named: "memberEntity").map {
                    try required($0, "name", owner: name)
                }
                model.configurations.append(XCConfiguration(
                    name: name, entityNames: members,
                    usedWithCloudKit: try flag(child, "usedWithCloudKit", owner: name)))
            case "fetchRequest":
                let request = try decodeFetchRequest(child, owner: nil)
                sourceLines.record(XCDataModelSourceLines.fetchRequestKey(request.name), line: child.line)
                model.fetchRequests.append(request)
            case "composite":
                let name = try required(child, "name", owner: nil)
                sourceLines.record(XCDataModelSourceLines.compositeKey(name), line: child.line)
                model.composites.append(XCComposite(name: name, attributes: try child.children(named: "attribute").map {
                    try decodeAttribute($0, entity: name)
                }))
            default:
                // `<elements>` holds diagram positions; anything newer is not ours to judge.
                continue
            }
        }
        return (model, sourceLines)
    }

    // MARK: - Entities and properties

    private mutating func decodeEntity(_ element: XCDataModelXMLElement) throws -> XCEntity {
        let name = try required(element, "name", owner: nil)
        sourceLines.record(XCDataModelSourceLines.entityKey(name), line: element.line)
        var entity = XCEntity(
            name: name,
            representedClassName: element.attributes["representedClassName"],
            parentEntity: element.attributes["parentEntity"],
            isAbstract: try flag(element, "isAbstract", owner: name),
            renamingIdentifier: element.attributes["elementID"],
            versionHashModifier: element.attributes["versionHashModifier"])
        for child in element.children {
            switch child.name {
            case "attribute":
                let attribute = try decodeAttribute(child, entity: name)
                sourceLines.record(XCDataModelSourceLines.propertyKey(name, attribute.name), line: child.line)
                entity.attributes.append(attribute)
            case "relationship":
                let relationship = try decodeRelationship(child, entity: name)
                sourceLines.record(XCDataModelSourceLines.propertyKey(name, relationship.name), line: child.line)
                entity.relationships.append(relationship)
            case "fetchedProperty":
                let propertyName = try required(child, "name", owner: name)
                let owner = "\(name).\(propertyName)"
                sourceLines.record(XCDataModelSourceLines.propertyKey(name, propertyName), line: child.line)
                entity.fetchedProperties.append(XCFetchedProperty(
                    name: propertyName,
                    isOptional: try flag(child, "optional", owner: owner),
                    fetchRequest: try child.children(named: "fetchRequest").first.map {
                        try decodeFetchRequest($0, owner: owner)
                    },
                    userInfo: try decodeUserInfo(of: child, owner: owner)))
            case "userInfo":
                entity.userInfo = try decodeEntries(child, owner: name)
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    entity.uniquenessConstraints.append(try constraint.children(named: "constraint").map {
                        try required($0, "value", owner: name)
                    })
                }
            case "compoundIndexes":
                for index in child.children(named: "compoundIndex") {
                    entity.compoundIndexes.append(try index.children(named: "index").map {
                        try required($0, "value", owner: name)
                    })
                }
            case "fetchIndex":
                entity.indexes.append(try decodeIndex(child, entity: name))
            default:
                continue
            }
        }
        return entity
    }

    private func decodeAttribute(_ element: XCDataModelXMLElement, entity: String) throws -> XCAttribute {
        let name = try required(element, "name", owner: entity)
        let owner = "\(entity).\(name)"
        // Xcode writes no attributeType for an Undefined attribute (a transient of any value).
        let type = element.attributes["attributeType"] ?? "Undefined"
        guard XCAttribute.attributeTypeCodes[type] != nil else {
            throw XCDataModelError(.unknownAttributeType(entity: entity, attribute: name, type: type),
                                   url: url, line: element.line)
        }
        let compositeName = element.attributes["composite"]
        if type == "Composite" && (compositeName ?? "").isEmpty {
            throw XCDataModelError(.missingXMLAttribute(element: element.name, attribute: "composite", owner: owner),
                                   url: url, line: element.line)
        }
        return XCAttribute(
            name: name,
            attributeType: type,
            isOptional: try flag(element, "optional", owner: owner),
            isTransient: try flag(element, "transient", owner: owner),
            isIndexed: try flag(element, "indexed", owner: owner),
            isIndexedBySpotlight: try flag(element, "spotlightIndexingEnabled", owner: owner),
            isStoredInExternalRecord: try flag(element, "storedInTruthFile", owner: owner),
            defaultValueString: element.attributes["defaultValueString"],
            defaultDateTimeInterval: try double(element, "defaultDateTimeInterval", owner: owner),
            minValueString: element.attributes["minValueString"],
            maxValueString: element.attributes["maxValueString"],
            minDateTimeInterval: try double(element, "minDateTimeInterval", owner: owner),
            maxDateTimeInterval: try double(element, "maxDateTimeInterval", owner: owner),
            regularExpressionString: element.attributes["regularExpressionString"],
            usesScalarValueType: try flag(element, "usesScalarValueType", owner: owner),
            allowsExternalBinaryDataStorage: try flag(element, "allowsExternalBinaryDataStorage", owner: owner),
            allowsCloudEncryption: try flag(element, "allowsCloudEncryption", owner: owner),
            preservesValueInHistoryOnDeletion: try flag(element, "preserveAfterDeletion", owner: owner),
            valueTransformerName: element.attributes["valueTransformerName"],
            customClassName: element.attributes["customClassName"],
            isDerived: try flag(element, "derived", owner: owner),
            derivationExpression: element.attributes["derivationExpression"],
            renamingIdentifier: element.attributes["elementID"],
            versionHashModifier: element.attributes["versionHashModifier"],
            userInfo: try decodeUserInfo(of: element, owner: owner),
            compositeName: type == "Composite" ? compositeName : nil)
    }

    private func decodeRelationship(_ element: XCDataModelXMLElement, entity: String) throws -> XCRelationship {
        let name = try required(element, "name", owner: entity)
        let owner = "\(entity).\(name)"
        let deletionRule = element.attributes["deletionRule"] ?? "Nullify"
        guard XCRelationship.deletionRules.contains(deletionRule) else {
            throw invalid(element, "deletionRule", deletionRule, owner: owner)
        }
        return XCRelationship(
            name: name,
            destinationEntity: try required(element, "destinationEntity", owner: owner),
            inverseName: element.attributes["inverseName"],
            inverseEntity: element.attributes["inverseEntity"],
            isToMany: try flag(element, "toMany", owner: owner),
            isOrdered: try flag(element, "ordered", owner: owner),
            isOptional: try flag(element, "optional", owner: owner),
            isTransient: try flag(element, "transient", owner: owner),
            isIndexed: try flag(element, "indexed", owner: owner),
            isIndexedBySpotlight: try flag(element, "spotlightIndexingEnabled", owner: owner),
            deletionRule: deletionRule,
            minCount: try count(element, "minCount", owner: owner) ?? 0,
            maxCount: try count(element, "maxCount", owner: owner),
            renamingIdentifier: element.attributes["elementID"],
            versionHashModifier: element.attributes["versionHashModifier"],
            userInfo: try decodeUserInfo(of: element, owner: owner))
    }

    private func decodeIndex(_ element: XCDataModelXMLElement, entity: String) throws -> XCIndex {
        let name = try required(element, "name", owner: entity)
        let owner = "\(entity).\(name)"
        let elements = try element.children(named: "fetchIndexElement").map { child in
            let order = child.attributes["order"] ?? "ascending"
            guard order == "ascending" || order == "descending" else {
                throw invalid(child, "order", order, owner: owner)
            }
            let property = child.attributes["property"]
            let expression = child.attributes["expression"]
            guard property != nil || expression != nil else {
                throw XCDataModelError(.missingXMLAttribute(element: child.name, attribute: "property",
                                                            owner: owner), url: url, line: child.line)
            }
            let type = child.attributes["type"] ?? "Binary"
            guard XCIndexElement.types.contains(type) else { throw invalid(child, "type", type, owner: owner) }
            return XCIndexElement(property: property, expression: expression, type: type,
                                  isAscending: order == "ascending")
        }
        return XCIndex(name: name, elements: elements)
    }

    private func decodeFetchRequest(_ element: XCDataModelXMLElement, owner: String?) throws -> XCFetchRequest {
        XCFetchRequest(name: try required(element, "name", owner: owner),
                       entity: element.attributes["entity"],
                       predicateString: element.attributes["predicateString"],
                       attributes: element.attributes)
    }

    private func decodeUserInfo(of element: XCDataModelXMLElement, owner: String) throws -> [String: String] {
        guard let userInfo = element.children(named: "userInfo").first else { return [:] }
        return try decodeEntries(userInfo, owner: owner)
    }

    private func decodeEntries(_ userInfo: XCDataModelXMLElement, owner: String) throws -> [String: String] {
        var entries: [String: String] = [:]
        for entry in userInfo.children(named: "entry") {
            entries[try required(entry, "key", owner: owner)] = entry.attributes["value"] ?? ""
        }
        return entries
    }

    // MARK: - Values

    private func required(_ element: XCDataModelXMLElement, _ attribute: String, owner: String?) throws -> String {
        guard let value = element.attributes[attribute], !value.isEmpty else {
            throw XCDataModelError(.missingXMLAttribute(element: element.name, attribute: attribute, owner: owner),
                                   url: url, line: element.line)
        }
        return value
    }

    /// Xcode writes "YES" or "NO"; hand-written models sometimes say "true"/"false".
    private func flag(_ element: XCDataModelXMLElement, _ attribute: String, owner: String?) throws -> Bool {
        guard let value = element.attributes[attribute] else { return false }
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw invalid(element, attribute, value, owner: owner)
        }
    }

    private func double(_ element: XCDataModelXMLElement, _ attribute: String, owner: String?) throws -> Double? {
        guard let value = element.attributes[attribute] else { return nil }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else {
            throw invalid(element, attribute, value, owner: owner)
        }
        return number
    }

    private func count(_ element: XCDataModelXMLElement, _ attribute: String, owner: String?) throws -> Int? {
        guard let value = element.attributes[attribute] else { return nil }
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)), number >= 0,
              number <= Int(Int32.max) else {
            throw invalid(element, attribute, value, owner: owner)
        }
        return number
    }

    private func invalid(_ element: XCDataModelXMLElement, _ attribute: String, _ value: String,
                         owner: String?) -> XCDataModelError {
        XCDataModelError(.invalidValue(element: element.name, attribute: attribute, value: value, owner: owner),
                         url: url, line: element.line)
    }
}
