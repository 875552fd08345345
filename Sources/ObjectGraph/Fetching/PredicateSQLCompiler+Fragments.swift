import Foundation
import SQLiteDB

/// A piece of SQL with the values of its `?` placeholders, in text order.
///
/// Fragments are only ever joined end to end, so arguments stay in the order their
/// placeholders appear, however the compiler nests them:
///
/// ```swift
/// let condition = SQLFragment("t0.ZTITLE = ") + .bind(.text("Lisbon"))
/// condition.text        // "t0.ZTITLE = ?"
/// condition.arguments   // [.text("Lisbon")]
/// ```
struct SQLFragment: Sendable, Equatable {
    var text: String
    var arguments: [SQLiteValue]

    /// SQL text made by the compiler from model identifiers and keywords only.
    init(_ text: String, _ arguments: [SQLiteValue] = []) {
        self.text = text
        self.arguments = arguments
    }

    /// One placeholder bound to `value`.
    static func bind(_ value: SQLiteValue) -> SQLFragment { SQLFragment("?", [value]) }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.text + rhs.text, lhs.arguments + rhs.arguments)
    }

    static func + (lhs: SQLFragment, rhs: String) -> SQLFragment {
        SQLFragment(lhs.text + rhs, lhs.arguments)
    }

    static func + (lhs: String, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs + rhs.text, rhs.arguments)
    }

    static func += (lhs: inout SQLFragment, rhs: SQLFragment) { lhs = lhs + rhs }

    /// The fragments joined with `separator`.
    static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result = result + separator }
            result += fragment
        }
        return result
    }
}

/// How tightly an SQL expression binds, to decide where parentheses are needed.
enum SQLPrecedence: Int, Comparable {
    case or = 1
    case and = 2
    case not = 3
    /// `=`, `<`, `IS`, `IN`, …
    case comparison = 4
    /// A column, a placeholder, a function call, `EXISTS (…)`, a parenthesized expression.
    case atom = 5

    static func < (lhs: SQLPrecedence, rhs: SQLPrecedence) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A compiled predicate.
///
/// An SQL condition is true (1) for the rows that match and false (0) *or NULL* for the rows
/// that don't. That is exactly two-valued logic for `AND`, `OR` and `WHERE`, where NULL acts as
/// false (Kleene's AND and OR never turn an unknown into true); only `NOT` must tell NULL from
/// true, so `not` renders a nullable operand as `(x) IS NOT 1`, which is 1 for both 0 and NULL.
enum SQLCondition: Equatable {
    case constant(Bool)
    case sql(SQLFragment, SQLPrecedence, nullable: Bool)

    static let `true` = SQLCondition.constant(true)
    static let `false` = SQLCondition.constant(false)

    /// A comparison-level condition.
    static func comparison(_ fragment: SQLFragment, nullable: Bool) -> SQLCondition {
        .sql(fragment, .comparison, nullable: nullable)
    }

    /// The condition as SQL that can stand as an operand of an operator of `precedence`.
    func rendered(for precedence: SQLPrecedence) -> SQLFragment {
        switch self {
        case .constant(let value):
            return SQLFragment(value ? "1" : "0")
        case .sql(let fragment, let own, _):
            return own < precedence ? "(" + fragment + ")" : fragment
        }
    }

    /// Whether the condition can be NULL rather than 0 for a row that does not match.
    var isNullable: Bool {
        if case .sql(_, _, let nullable) = self { return nullable }
        return false
    }

    /// All of `conditions`; constants are folded away.
    static func and(_ conditions: [SQLCondition]) -> SQLCondition {
        var parts: [SQLCondition] = []
        for condition in conditions {
            switch condition {
            case .constant(true): continue
            case .constant(false): return .false
            default: parts.append(condition)
            }
        }
        if parts.isEmpty { return .true }
        if parts.count == 1 { return parts[0] }
        return .sql(.joined(parts.map { $0.rendered(for: .and) }, separator: " AND "), .and,
                    nullable: parts.contains(where: \.isNullable))
    }

    /// Any of `conditions`; constants are folded away.
    static func or(_ conditions: [SQLCondition]) -> SQLCondition {
        var parts: [SQLCondition] = []
        for condition in conditions {
            switch condition {
            case .constant(false): continue
            case .constant(true): return .true
            default: parts.append(condition)
            }
        }
        if parts.isEmpty { return .false }
        if parts.count == 1 { return parts[0] }
        return .sql(.joined(parts.map { $0.rendered(for: .or) }, separator: " OR "), .or,
                    nullable: parts.contains(where: \.isNullable))
    }

    /// The negation, true exactly when `condition` is false or NULL.
    static func not(_ condition: SQLCondition) -> SQLCondition {
        switch condition {
        case .constant(let value):
            return .constant(!value)
        case .sql(_, _, nullable: true):
            return .sql(condition.rendered(for: .atom) + " IS NOT 1", .comparison, nullable: false)
        case .sql:
            return .sql("NOT " + condition.rendered(for: .not), .not, nullable: false)
        }
    }
}

/// The kind of the non-null values an SQL expression yields, known from the model; values of
/// different kinds never compare (as in `PredicateEvaluator`).
enum SQLValueKind: Equatable {
    /// Integers, floating point, decimals and booleans (0 and 1).
    case number
    case string
    /// Seconds since 2001 (Core Data's `TIMESTAMP`).
    case date
    /// Blobs: binary, transformable and UUID attributes.
    case data
    /// Primary keys of the rows of `table`.
    case object(table: String)

    /// The kind of an attribute type's stored values.
    init(_ type: AttributeType) {
        switch type {
        case .string, .uri: self = .string
        case .boolean, .integer16, .integer32, .integer64, .double, .float, .decimal: self = .number
        case .date: self = .date
        case .binary, .transformable, .uuid, .undefined, .objectID, .composite: self = .data
        }
    }

    /// For messages: "a number", "a string", …
    var phrase: String {
        switch self {
        case .number: return "a number"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "data"
        case .object: return "an object"
        }
    }
}

/// A single-valued SQL expression: a column, a computed value or a placeholder.
struct SQLScalar {
    /// Atom-level SQL (a column, `?`, a function call or a parenthesized sub-select).
    var fragment: SQLFragment
    var kind: SQLValueKind
    var nullable: Bool
    /// Where it comes from, for messages: "dateTaken, a Date attribute of Photo".
    var origin: String
}

/// One side of a comparison of single values.
enum SQLOperand {
    /// A constant, not an array.
    case constant(PredicateValue)
    case expression(SQLScalar)
}
