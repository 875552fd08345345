import Foundation
import ObjectGraph

/// Core Data orders a table's columns by kind (integers and keys, dates and floating point,
/// decimals, strings, blobs), then by the number of the entity that declares the property,
/// attributes before relationships, then by name (`ColumnLayout`). So a column's place in its
/// table says which entities can have declared it: a to-one whose values only subentities hold
/// but that sits among the root's columns is the root's.
extension Inference {
    /// One property column, in table order, with what is known of its sort key.
    struct OrderedColumn {
        var group: Int
        var isRelationship: Bool
        /// The property's name in capitals (the column without `Z` and without a clash number).
        var name: String
        /// Entities that may declare it, and the one the data suggests.
        var candidates: [Int]
        var preferred: Int
    }

    /// The kind group Core Data sorts a property's column into.
    static func columnGroup(of role: InferredColumn.Role) -> Int {
        guard case .attribute(let type) = role else { return 0 }
        switch type {
        case .boolean, .integer16, .integer32, .integer64: return 0
        case .date, .double, .float: return 1
        case .decimal: return 2
        case .string: return 3
        case .uri: return 4
        case .uuid: return 6
        case .transformable: return 7
        default: return 5
        }
    }

    /// For each column, the declaring entity closest to the preferred one that keeps the
    /// columns in Core Data's order; nil when no choice does (the table was not laid out by
    /// these rules, and the data's answer stands).
    static func ownersInColumnOrder(_ columns: [OrderedColumn]) -> [Int]? {
        typealias Key = (group: Int, entity: Int, relationship: Int, name: String)
        func key(_ column: OrderedColumn, _ entity: Int) -> Key {
            (column.group, entity, column.isRelationship ? 1 : 0, column.name)
        }
        func less(_ a: Key, _ b: Key) -> Bool {
            (a.group, a.entity, a.relationship, a.name) < (b.group, b.entity, b.relationship, b.name)
        }
        // From the right: the largest key each column can take with every later column still placeable.
        var bounds: [Key?] = Array(repeating: nil, count: columns.count + 1)
        for index in columns.indices.reversed() {
            let feasible = columns[index].candidates.map { key(columns[index], $0) }
                .filter { candidate in bounds[index + 1].map { less(candidate, $0) } ?? true }
            guard let largest = feasible.max(by: less) else { return nil }
            bounds[index] = largest
        }
        // From the left: the candidate nearest the preferred one between the previous choice and that bound.
        var owners: [Int] = []
        var previous: Key?
        for (index, column) in columns.enumerated() {
            let allowed = column.candidates.filter { entity in
                let candidate = key(column, entity)
                return (previous.map { less($0, candidate) } ?? true) && (bounds[index + 1].map { less(candidate, $0) } ?? true)
            }
            guard let owner = allowed.min(by: { abs($0 - column.preferred) < abs($1 - column.preferred) }) else { return nil }
            owners.append(owner)
            previous = key(column, owner)
        }
        return owners
    }
}

extension InferredColumn.Role {
    var isToOne: Bool { if case .toOne = self { true } else { false } }
}

extension String {
    /// `ACCOUNT1` → `ACCOUNT`: Core Data numbers a column whose name is taken in its table.
    var withoutTrailingDigits: String { String(reversed().drop { $0.isASCII && $0.isNumber }.reversed()) }
}
