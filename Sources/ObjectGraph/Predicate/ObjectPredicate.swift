import Foundation

/// A condition on an object, parsed from a Core Data format string or built in Swift.
///
/// The same value compiles to SQL in the store and evaluates in memory; its description
/// is canonical format syntax that parses back to an equal predicate.
///
/// ```swift
/// let predicate = try ObjectPredicate(format: "unique == %@ AND tags.@count > 2", "123")
/// print(predicate)   // unique == "123" AND tags.@count > 2
/// ```
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: every object matches.
    case `true`
    /// `FALSEPREDICATE`: no object matches.
    case `false`
    /// All of the predicates hold (`AND`, `&&`); an empty list is true.
    case and([ObjectPredicate])
    /// At least one predicate holds (`OR`, `||`); an empty list is false.
    case or([ObjectPredicate])
    /// The predicate does not hold (`NOT`, `!`).
    case not(ObjectPredicate)
    /// A comparison between two expressions.
    case comparison(PredicateComparison)
}

/// One comparison: `[modifier] lhs operator[options] rhs`.
///
/// ```swift
/// let comparison = PredicateComparison(.keyPath(["tags", "name"]), .beginsWith, .constant("s"),
///                                      modifier: .any, options: .caseInsensitive)
/// print(comparison)   // ANY tags.name BEGINSWITH[c] "s"
/// ```
public struct PredicateComparison: Sendable, Hashable {
    /// The left operand; a modifier quantifies over it when it is a collection.
    package var lhs: ObjectExpression
    /// The operator.
    package var comparisonOperator: ComparisonOperator
    /// The right operand.
    package var rhs: ObjectExpression
    /// `ANY`, `ALL`, `NONE` or none (`.direct`).
    package var modifier: ComparisonModifier
    /// `[c]`, `[d]` or `[cd]`; they affect strings only.
    package var options: StringComparisonOptions

    /// Makes a comparison.
    public init(
        _ lhs: ObjectExpression, _ comparisonOperator: ComparisonOperator, _ rhs: ObjectExpression,
        modifier: ComparisonModifier = .direct, options: StringComparisonOptions = []
    ) {
        self.lhs = lhs
        self.comparisonOperator = comparisonOperator
        self.rhs = rhs
        self.modifier = modifier
        self.options = options
    }
}

/// The operator of a comparison.
///
/// ```swift
/// ComparisonOperator.beginsWith.description   // "BEGINSWITH"
/// ```
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `==` or `=`.
    case equalTo
    /// `!=` or `<>`.
    case notEqualTo
    /// `<`.
    case lessThan
    /// `<=` or `=<`.
    case lessThanOrEqualTo
    /// `>`.
    case greaterThan
    /// `>=` or `=>`.
    case greaterThanOrEqualTo
    /// `IN`: the left value equals one of the right collection's elements.
    case `in`
    /// `BETWEEN {lower, upper}`, both bounds included.
    case between
    /// `BEGINSWITH`.
    case beginsWith
    /// `ENDSWITH`.
    case endsWith
    /// `CONTAINS`: the left string contains the right string.
    case contains
    /// `LIKE`: the whole left string matches a pattern with `*` and `?` wildcards.
    case like
    /// `MATCHES`: the whole left string matches an ICU regular expression.
    case matches

    /// The operator in canonical format syntax.
    public var description: String {
        switch self {
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .in: return "IN"
        case .between: return "BETWEEN"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .contains: return "CONTAINS"
        case .like: return "LIKE"
        case .matches: return "MATCHES"
        }
    }

    /// Whether the operator works on strings only (BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES).
    package var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: return true
        default: return false
        }
    }
}

/// How a comparison treats a collection on its left: `ANY`/`SOME`, `ALL`, `NONE`.
///
/// ```swift
/// try ObjectPredicate(format: "NONE tags.name == 'rain'")   // modifier == .none
/// ```
public enum ComparisonModifier: String, Sendable, Hashable, CaseIterable {
    /// No modifier; a collection on the left is treated as `ANY`.
    case direct
    /// `ANY` or `SOME`: at least one element matches (false for an empty collection).
    case any
    /// `ALL`: every element matches (true for an empty collection).
    case all
    /// `NONE`: no element matches (true for an empty collection).
    case none
}

/// String comparison options: `[c]` folds case, `[d]` removes diacritics.
///
/// ```swift
/// let options: StringComparisonOptions = [.caseInsensitive, .diacriticInsensitive]
/// options.description   // "[cd]"
/// ```
public struct StringComparisonOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The options, one bit each.
    public let rawValue: UInt8
    /// The options of the bits of `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`.
    package static let caseInsensitive = StringComparisonOptions(rawValue: 1 << 0)
    /// `[d]`.
    package static let diacriticInsensitive = StringComparisonOptions(rawValue: 1 << 1)

    /// `""`, `"[c]"`, `"[d]"` or `"[cd]"`.
    public var description: String {
        if isEmpty { return "" }
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        return "[" + letters + "]"
    }
}

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate in canonical format syntax. Compound operands of `AND`, `OR` and `NOT`
    /// are parenthesized, so the text parses back to the same tree.
    public var description: String {
        switch self {
        case .true:
            return "TRUEPREDICATE"
        case .false:
            return "FALSEPREDICATE"
        case .and(let operands):
            return Self.join(operands, with: " AND ", empty: "TRUEPREDICATE")
        case .or(let operands):
            return Self.join(operands, with: " OR ", empty: "FALSEPREDICATE")
        case .not(let operand):
            return "NOT " + operand.operandDescription
        case .comparison(let comparison):
            return comparison.description
        }
    }

    private static func join(_ operands: [ObjectPredicate], with separator: String, empty: String) -> String {
        switch operands.count {
        case 0: return empty
        case 1: return operands[0].description
        default: return operands.map(\.operandDescription).joined(separator: separator)
        }
    }

    private var operandDescription: String {
        switch self {
        case .and(let operands) where operands.count > 1: return "(" + description + ")"
        case .or(let operands) where operands.count > 1: return "(" + description + ")"
        default: return description
        }
    }
}

extension PredicateComparison: CustomStringConvertible {
    /// The comparison in canonical format syntax, e.g. `ANY tags.name BEGINSWITH[cd] "s"`.
    public var description: String {
        let prefix: String
        switch modifier {
        case .direct: prefix = ""
        case .any: prefix = "ANY "
        case .all: prefix = "ALL "
        case .none: prefix = "NONE "
        }
        return "\(prefix)\(lhs) \(comparisonOperator)\(options) \(rhs)"
    }
}
