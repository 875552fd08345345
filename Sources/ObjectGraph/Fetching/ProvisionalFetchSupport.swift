import Foundation
import SQLiteDB

// Provisional: a minimal predicate compiler, in-memory key-value access and sort comparator,
// replaced by the full implementations (PredicateSQLCompiler, ManagedObject+PredicateEvaluation,
// ObjectSortDescriptor+Comparison) when they land.

/// A fetch request the model cannot answer: an unknown entity or key path, a wrong operator.
public struct FetchRequestError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public var description: String { message }
}

struct SQLFetchQuery: Sendable, Equatable {
    var from: String
    var whereClause: String?
    var orderBy: String?
    var arguments: [SQLiteValue]
}

enum PredicateSQLCompiler {
    static func validate(predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor], entity: Entity, model: ObjectModel) throws {
        _ = try compile(predicate: predicate, sortDescriptors: sortDescriptors, entity: entity, model: model)
    }

    static func compile(predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor], entity: Entity, model: ObjectModel) throws -> SQLFetchQuery {
        var arguments: [SQLiteValue] = []
        func column(_ path: [String]) throws -> (String, AttributeType) {
            guard path.count == 1, let attribute = entity.attribute(named: path[0]), let column = attribute.column else {
                throw FetchRequestError(message: "\(entity.name) has no attribute \(path.joined(separator: "."))")
            }
            return ("t0." + column, attribute.type)
        }
        func stored(_ value: PredicateValue) -> SQLiteValue {
            switch value {
            case .null: return .null
            case .bool(let flag): return .integer(flag ? 1 : 0)
            case .int(let integer): return .integer(integer)
            case .double(let number): return .real(number)
            case .string(let text): return .text(text)
            case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
            case .data(let data): return .blob(data)
            default: return .null
            }
        }
        func render(_ predicate: ObjectPredicate) throws -> String {
            switch predicate {
            case .true: return "1"
            case .false: return "0"
            case .and(let parts): return "(" + (try parts.map(render)).joined(separator: " AND ") + ")"
            case .or(let parts): return "(" + (try parts.map(render)).joined(separator: " OR ") + ")"
            case .not(let inner): return "NOT " + (try render(inner))
            case .comparison(let comparison):
                guard case .keyPath(let path) = comparison.lhs, case .constant(let constant) = comparison.rhs,
                      comparison.modifier == .direct, comparison.options.isEmpty else {
                    throw FetchRequestError(message: "unsupported predicate \(comparison)")
                }
                let (name, _) = try column(path)
                switch comparison.comparisonOperator {
                case .in:
                    guard case .array(let values) = constant else { throw FetchRequestError(message: "IN needs a collection") }
                    arguments.append(.text(String(decoding: try JSONSerialization.data(withJSONObject: values.map { value -> Any in
                        switch stored(value) {
                        case .integer(let integer): return integer
                        case .real(let real): return real
                        case .text(let text): return text
                        default: return NSNull()
                        }
                    }), as: UTF8.self)))
                    return "coalesce(\(name) IN (SELECT value FROM json_each(?)), 0)"
                case .equalTo:
                    arguments.append(stored(constant))
                    return "(\(name) IS ?)"
                case .notEqualTo:
                    arguments.append(stored(constant))
                    return "(\(name) IS NOT ?)"
                case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                    let symbol = [ComparisonOperator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">="][comparison.comparisonOperator] ?? "="
                    arguments.append(stored(constant))
                    return "coalesce(\(name) \(symbol) ?, 0)"
                default:
                    throw FetchRequestError(message: "unsupported operator \(comparison.comparisonOperator)")
                }
            }
        }
        let whereClause = try predicate.map(render)
        let orderBy = sortDescriptors.isEmpty ? nil : try sortDescriptors.map { descriptor in
            try column([descriptor.keyPath]).0 + (descriptor.ascending ? " ASC" : " DESC")
        }.joined(separator: ", ") + ", t0.Z_PK"
        return SQLFetchQuery(from: "\(entity.table) t0", whereClause: whereClause, orderBy: orderBy, arguments: arguments)
    }
}

extension ManagedObject: PredicateKeyValueReadable {
    public func predicateValue(forKey key: String) throws -> PredicateEvaluationValue {
        if let attribute = entity.attribute(named: key) {
            let value = storedValue(slot: attribute.slot)
            switch (attribute.type, value) {
            case (_, .null): return .null
            case (.date, _): return .value(Date(stored: value).map { .date($0) } ?? .null)
            case (.boolean, _): return .value(.bool(Bool(stored: value) ?? false))
            case (_, .integer(let integer)): return .value(.int(integer))
            case (_, .real(let real)): return .value(.double(real))
            case (_, .text(let text)): return .value(.string(text))
            case (_, .blob(let data)): return .value(.data(data))
            }
        }
        if let relationship = entity.relationship(named: key) {
            if relationship.isToMany { return .objects(toManyObjects(index: relationship.index)) }
            return .object(toOneObject(index: relationship.index))
        }
        throw FetchRequestError(message: "\(entity.name) has no property named \(key)")
    }

    public var predicateObjectReference: PredicateObjectReference { PredicateObjectReference(objectID) }
}

extension ObjectSortDescriptor {
    static func compare(_ lhs: ManagedObject, _ rhs: ManagedObject, by descriptors: [ObjectSortDescriptor]) -> Bool {
        for descriptor in descriptors {
            let left = (try? lhs.storedValue(forKey: descriptor.keyPath)) ?? .null
            let right = (try? rhs.storedValue(forKey: descriptor.keyPath)) ?? .null
            if left == right { continue }
            let ordered = precedes(left, right)
            return descriptor.ascending ? ordered : !ordered
        }
        return lhs.objectID.primaryKey < rhs.objectID.primaryKey
    }

    private static func precedes(_ left: SQLiteValue, _ right: SQLiteValue) -> Bool {
        switch (left, right) {
        case (.null, _): return true
        case (_, .null): return false
        case (.text(let a), .text(let b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        default: return (left.realValue ?? 0) < (right.realValue ?? 0)
        }
    }
}
