import Foundation

/// An operand of a comparison: a constant, a key path, a variable, an aggregate, a
/// collection operator such as `@count`, or a `SUBQUERY`.
///
/// ```swift
/// let count = ObjectExpression.key("tags.@count")
/// // .collectionOperator(.count, of: .keyPath(["tags"]), keyPath: [])
/// print(count)   // tags.@count
/// ```
///
/// The parser produces canonical forms: `SELF.name` is `.keyPath(["name"])`, a key path
/// after a variable is `.member(of: .variable(…), keyPath: …)`, and an aggregate of
/// constants (`{1, 2}`) is `.constant(.array(…))`.
public indirect enum ObjectExpression: Sendable, Hashable {
    /// A constant value.
    case constant(PredicateValue)
    /// A key path from the evaluated object, e.g. `place.name` is `["place", "name"]`;
    /// the empty path is the object itself (`SELF`).
    case keyPath([String])
    /// `$NAME`: a variable bound by `substituting(_:)`, by the evaluator or by a `SUBQUERY`.
    case variable(String)
    /// A key path from another expression, e.g. `$t.name` inside a `SUBQUERY`.
    case member(of: ObjectExpression, keyPath: [String])
    /// `{a, b}` with at least one non-constant element.
    case aggregate([ObjectExpression])
    /// `base.@count`, or `base.@sum.keyPath` (also `@avg`, `@min`, `@max`): the operator
    /// applied to the collection `base`, reading `keyPath` from each element first.
    case collectionOperator(PredicateCollectionOperator, of: ObjectExpression, keyPath: [String])
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` for which
    /// `predicate` holds with `$variable` bound to the element; usually followed by `.@count`.
    case subquery(collection: ObjectExpression, variable: String, predicate: ObjectPredicate)

    /// `SELF`, the evaluated object.
    package static var evaluatedObject: ObjectExpression { .keyPath([]) }

    /// A constant from any argument value: `.value("Lisbon")`, `.value(date)`.
    public static func value(_ value: some PredicateArgument) -> ObjectExpression {
        .constant(value.predicateValue)
    }

    /// A key path written with dots, with collection operators allowed:
    /// `"place.name"`, `"tags.@count"`, `"items.@sum.price"`, `"SELF"`.
    ///
    /// Unlike the parser this never fails: an unknown `@operator` is kept as a plain key.
    public static func key(_ path: String) -> ObjectExpression {
        var components = path.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
        if components.first.map({ $0.uppercased() == "SELF" }) == true { components.removeFirst() }
        var expression = ObjectExpression.keyPath([])
        var pending: [String] = []
        var pendingOperator: PredicateCollectionOperator?
        for component in components {
            if component.hasPrefix("@"), let collectionOperator = PredicateCollectionOperator(rawValue: String(component.dropFirst())) {
                expression = Self.closing(expression, pending, pendingOperator)
                pending = []
                pendingOperator = collectionOperator
            } else {
                pending.append(component)
            }
        }
        return Self.closing(expression, pending, pendingOperator)
    }

    private static func closing(
        _ base: ObjectExpression, _ path: [String], _ collectionOperator: PredicateCollectionOperator?
    ) -> ObjectExpression {
        if let collectionOperator {
            return .collectionOperator(collectionOperator, of: base, keyPath: path)
        }
        return base.appending(path)
    }

    /// This expression followed by more keys, in canonical form.
    func appending(_ path: [String]) -> ObjectExpression {
        if path.isEmpty { return self }
        switch self {
        case .keyPath(let base): return .keyPath(base + path)
        case .member(let base, let basePath): return .member(of: base, keyPath: basePath + path)
        default: return .member(of: self, keyPath: path)
        }
    }
}

/// A collection operator in a key path: `@count`, `@sum`, `@avg`, `@min`, `@max`.
///
/// ```swift
/// PredicateCollectionOperator(rawValue: "count")   // .count, written tags.@count
/// ```
public enum PredicateCollectionOperator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `@count`: the number of elements (nulls included).
    case count
    /// `@sum`: the sum of the non-null numbers; 0 for none.
    case sum
    /// `@avg`: the mean of the non-null numbers; null for none.
    case avg
    /// `@min`: the smallest non-null value; null for none.
    case min
    /// `@max`: the largest non-null value; null for none.
    case max

    /// `"@count"` and so on.
    public var description: String { "@" + rawValue }
}

extension ObjectExpression: CustomStringConvertible {
    /// The expression in canonical format syntax.
    public var description: String {
        switch self {
        case .constant(let value):
            return value.description
        case .keyPath(let path):
            return path.isEmpty ? "SELF" : Self.format(path)
        case .variable(let name):
            return "$" + name
        case .member(let base, let path):
            return path.isEmpty ? base.description : base.description + "." + Self.format(path)
        case .aggregate(let elements):
            return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case .collectionOperator(let collectionOperator, let base, let path):
            let suffix = path.isEmpty ? "" : "." + Self.format(path)
            return base.description + "." + collectionOperator.description + suffix
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        }
    }

    /// Keys joined with dots; a key that is a reserved word is escaped with `#`.
    static func format(_ path: [String]) -> String {
        path.map { PredicateParser.isReservedWord($0) ? "#" + $0 : $0 }.joined(separator: ".")
    }
}
