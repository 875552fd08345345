import Foundation
import ObjectGraph

/// Why a Core Data model file could not be read: one line that names the file, the place
/// and the thing that is wrong.
///
/// ```swift
/// do { _ = try XCDataModelReader.read(at: url) }
/// catch let error as XCDataModelError { print(error) }
/// // Core Data model error: relationship "Photo.place" points to entity "Plase", which the model does not define (Model.xcdatamodel/contents, line 12)
/// ```
public struct XCDataModelError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// Nothing at the path.
        case fileNotFound
        /// A path that is no model: a `.xcdatamodel` without `contents`, a `.xcdatamodeld`
        /// without versions, a `.xccurrentversion` naming a version that is not there, …
        case notAModel(reason: String)
        /// The file could not be read although it exists.
        case unreadable(reason: String)
        /// libxml2 refused the XML.
        case malformedXML(message: String)
        /// A compiled model (`.mom`, or the model a store keeps in `Z_MODELCACHE`) that is not a
        /// well-formed keyed archive of an `NSManagedObjectModel`: truncated, a reference out of
        /// range or in a cycle, an object of the wrong class, a value of the wrong kind.
        case malformedArchive(reason: String)
        /// The root element is not `<model>`.
        case unexpectedRootElement(String)
        /// An element lacks an XML attribute it cannot do without.
        case missingXMLAttribute(element: String, attribute: String, owner: String?)
        /// An XML attribute has a value of the wrong form (a boolean that is not YES/NO, …).
        case invalidValue(element: String, attribute: String, value: String, owner: String?)
        /// `attributeType` names no type Core Data has.
        case unknownAttributeType(entity: String, attribute: String, type: String)
        /// Two entities, or two properties of one entity and its ancestors, share a name.
        case duplicateName(kind: String, name: String)
        /// `parentEntity` names an entity the model does not define.
        case missingParentEntity(entity: String, parent: String)
        /// Entities that are their own ancestors, in the order the chain was followed.
        case inheritanceCycle([String])
        /// Composites that contain themselves, in the order the chain was followed.
        case compositeCycle([String])
        /// A relationship's destination is not an entity of the model.
        case missingDestinationEntity(entity: String, relationship: String, destination: String)
        /// A relationship's inverse is not a relationship of its destination.
        case missingInverseRelationship(entity: String, relationship: String, inverse: String,
                                        destination: String)
        /// An index, constraint or configuration refers to something that is not there.
        case unknownReference(kind: String, name: String, owner: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The file the problem is in, when it came from one.
    public var url: URL?
    /// The 1-based line, when known.
    package var line: Int?

    /// An error of `kind` in the file at `url`, at `line` when known.
    public init(_ kind: Kind, url: URL? = nil, line: Int? = nil) {
        self.kind = kind
        self.url = url
        self.line = line
    }

    /// One line: what went wrong, then the file and line when known.
    public var description: String {
        var location: [String] = []
        if let url { location.append(Self.shortPath(url)) }
        if let line { location.append("line \(line)") }
        let suffix = location.isEmpty ? "" : " (\(location.joined(separator: ", ")))"
        return "Core Data model error: \(Self.oneLine(summary))\(Self.oneLine(suffix))"
    }

    /// Names in a message come from the file (an archive's class names, an attribute's value):
    /// control characters and line breaks among them are written as `\u{…}`, so the message
    /// stays one line.
    private static func oneLine(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private var summary: String {
        switch kind {
        case .fileNotFound:
            return "no such file or folder"
        case .notAModel(let reason):
            return "not a Core Data model: \(reason)"
        case .unreadable(let reason):
            return "cannot read the file: \(reason)"
        case .malformedXML(let message):
            return "malformed XML: \(message)"
        case .malformedArchive(let reason):
            return "malformed compiled model: \(reason)"
        case .unexpectedRootElement(let name):
            return "the root element is <\(name)>, expected <model>"
        case .missingXMLAttribute(let element, let attribute, let owner):
            return "<\(element)>\(Self.inOwner(owner)) has no \(attribute)=\"…\""
        case .invalidValue(let element, let attribute, let value, let owner):
            return "<\(element)>\(Self.inOwner(owner)) has \(attribute)=\"\(value)\", which is not a valid value"
        case .unknownAttributeType(let entity, let attribute, let type):
            return "attribute \"\(entity).\(attribute)\" has unknown attributeType \"\(type)\""
        case .duplicateName(let kind, let name):
            return "\(kind) name \"\(name)\" is used twice"
        case .missingParentEntity(let entity, let parent):
            return "entity \"\(entity)\" has parentEntity \"\(parent)\", which the model does not define"
        case .inheritanceCycle(let names):
            return "entities inherit from themselves: \(names.joined(separator: " -> "))"
        case .compositeCycle(let names):
            return "composites contain themselves: \(names.joined(separator: " -> "))"
        case .missingDestinationEntity(let entity, let relationship, let destination):
            return "relationship \"\(entity).\(relationship)\" points to entity \"\(destination)\", which the model does not define"
        case .missingInverseRelationship(let entity, let relationship, let inverse, let destination):
            return "relationship \"\(entity).\(relationship)\" has inverse \"\(inverse)\", which entity \"\(destination)\" does not have"
        case .unknownReference(let kind, let name, let owner):
            return "\(kind) in \"\(owner)\" names \"\(name)\", which is not there"
        }
    }

    private static func inOwner(_ owner: String?) -> String {
        owner.map { " in \"\($0)\"" } ?? ""
    }

    /// The last path components from the model bundle down, so messages stay one short line.
    private static func shortPath(_ url: URL) -> String {
        let components = url.standardizedFileURL.pathComponents
        if let bundleIndex = components.firstIndex(where: {
            $0.hasSuffix(".xcdatamodel") || $0.hasSuffix(".xcdatamodeld") || $0.hasSuffix(".momd")
        }) {
            return components[bundleIndex...].joined(separator: "/")
        }
        return url.lastPathComponent
    }
}
