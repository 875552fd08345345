import Foundation

/// The type of an attribute, as Core Data names them.
public enum AttributeType: String, Sendable, CaseIterable, Codable {
    case string, boolean, integer16, integer32, integer64, double, float, decimal, date, binary, uuid, uri
    /// An archived value that this framework reads and writes as raw `Data`.
    case transformable
    /// Core Data's "Undefined": a transient attribute holding any value, never stored.
    case undefined
    /// Core Data's "Object ID": never stored in an entity's table.
    case objectID
    /// Core Data's "Composite" (Xcode 15): named elements, each an attribute of its own type with
    /// a column of its own; the composite itself has no column (`AttributeDescription.elements`).
    case composite

    /// Whether a store can hold the type (a composite through its elements' columns); the
    /// others are for transient attributes.
    var isStorable: Bool { self != .undefined && self != .objectID }

    /// The column type Core Data declares in its SQLite tables.
    package var sqlType: String {
        switch self {
        case .boolean, .integer16, .integer32, .integer64: "INTEGER"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .date: "TIMESTAMP"
        case .string, .uri: "VARCHAR"
        case .binary, .transformable, .uuid, .undefined, .objectID, .composite: "BLOB"
        }
    }

    /// Core Data orders a table's columns by these groups, then by entity, then by name. Blobs
    /// split by type as URIs follow strings: a UUID comes before a transformable value
    /// (CoreDataPlus's `SampleModel2` store: `ZUNIQUEID BLOB, ZCOVER BLOB`), in the order of
    /// Core Data's attribute type codes (binary 1000, UUID 1100, transformable 1800).
    var columnGroup: Int {
        switch self {
        case .boolean, .integer16, .integer32, .integer64: 0
        case .date, .double, .float: 1
        case .decimal: 2
        case .string: 3
        case .uri: 4
        case .binary, .undefined, .objectID, .composite: 5
        case .uuid: 6
        case .transformable: 7
        }
    }

    /// The name Xcode's model editor writes (`attributeType="Integer 16"`).
    package var coreDataName: String {
        switch self {
        case .string: "String"
        case .boolean: "Boolean"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .double: "Double"
        case .float: "Float"
        case .decimal: "Decimal"
        case .date: "Date"
        case .binary: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .undefined: "Undefined"
        case .objectID: "Object ID"
        case .composite: "Composite"
        }
    }

    /// The type Core Data's model files name `coreDataName` (`Integer 16`, `Date`, …); nil for an unknown name.
    public init?(coreDataName: String) {
        guard let type = AttributeType.allCases.first(where: { $0.coreDataName == coreDataName }) else { return nil }
        self = type
    }

    /// True for the integer and boolean types.
    var isInteger: Bool { columnGroup == 0 }
}
