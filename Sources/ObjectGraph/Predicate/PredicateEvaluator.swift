import Foundation

/// Evaluates a predicate on objects in memory, with the semantics the SQL store follows.
///
/// Make one evaluator per predicate and reuse it across objects: it caches compiled
/// `MATCHES` patterns. It is not thread-safe; use it from one isolation domain.
///
/// ```swift
/// let evaluator = PredicateEvaluator(try ObjectPredicate(format: "ANY tags.name ==[c] $TAG"), variables: ["TAG": "sea"])
/// let matching = try photos.filter { try evaluator.evaluate(with: $0) }
/// ```
///
/// Semantics:
/// - **Key paths** go through to-one relationships; a nil relationship on the way gives
///   null. Through a to-many relationship they give a collection, flattened one level per
///   to-many step; a to-one step from each element keeps a null for an element whose
///   relationship is nil (like a LEFT JOIN). A key on a non-object value gives null.
///   Inside `SUBQUERY` plain key paths (and `SELF`) start from the element, like `$var`.
/// - **Collections on the left** are quantified: `ANY` (also the meaning when there is no
///   modifier, except for `CONTAINS`) holds when some element matches and is false for an empty collection;
///   `ALL` holds when every element matches (true when empty); `NONE` when no element
///   matches (true when empty). A modifier on a single value treats it as a one-element
///   collection, and null as an empty one. Only the left side is quantified: a single value
///   compared with a collection is unequal to it, except for `IN`. As in Apple's evaluator,
///   `CONTAINS` without a modifier and with a collection on the left asks whether the right
///   value is one of its elements (`tags CONTAINS %@`, `tags.name CONTAINS 'sea'`): `rhs IN lhs`.
/// - **Null**: `x == nil` holds iff x is null; `!=` is exactly the negation of `==`, so
///   `x != 5` holds when x is null; every other operator with a null operand is false.
/// - **Types**: ints, doubles and bools compare numerically (bool as 0/1; int against
///   double exactly, as SQLite does); strings by UTF-8 bytes (SQLite's BINARY collation,
///   not Swift's `<`); dates by time; data by bytes; objects by identity; arrays
///   element-wise (equality only). Values of other kinds never compare: `==`, `<`, … are
///   false and `!=` is true (e.g. a string against a number, a date against a number).
/// - **Strings**: `[c]`/`[d]` fold both sides with `PredicateStringFolding.fold`; the
///   string operators are `PredicateStringMatching`'s (an empty BEGINSWITH/ENDSWITH/CONTAINS
///   operand never matches; LIKE has `*` and `?`; MATCHES is a whole-string ICU regex).
///   String operators with a non-string operand are false.
/// - **IN** holds when the left value equals (with the options) an element of the right
///   collection; with a string on the right, when the left string is a substring of it (Apple's
///   IN: `'sea' IN title` is `title CONTAINS 'sea'`); any other single right value is a
///   one-element collection; null on the right is false.
///   **BETWEEN {lower, upper}** holds when lower <= x <= upper.
/// - **Collection operators**: `@count` counts the elements (nulls included, a null base
///   counts 0); `@sum` adds the non-null numbers (0 when none; ints stay ints unless they
///   overflow); `@avg` is their mean as a double (null when none); `@min`/`@max` the least
///   and greatest non-null value (null when none or when the values do not compare).
///   Any non-numeric value makes `@sum` and `@avg` null.
package final class PredicateEvaluator {
    /// The predicate evaluated.
    package let predicate: ObjectPredicate
    /// Values for the predicate's free `$VARIABLE`s.
    package let variables: [String: PredicateValue]
    private let missingVariable: String?
    private var regularExpressions: [RegularExpressionKey: PredicateRegularExpression] = [:]
    /// The outcome of checking the predicate against each schema met (see `PredicateSchemaChecking`),
    /// with the schema kept alive so that its identifier stays its own.
    private var schemaChecks: [ObjectIdentifier: (schema: AnyObject, failure: (any Error)?)] = [:]

    private struct RegularExpressionKey: Hashable {
        /// By bytes: canonically equivalent patterns are different expressions.
        let pattern: ExactString
        let caseInsensitive: Bool
    }

    /// An evaluator for `predicate`, with values for its variables.
    package init(_ predicate: ObjectPredicate, variables: [String: PredicateValue] = [:]) {
        self.predicate = predicate
        self.variables = variables
        missingVariable = predicate.variableNames.subtracting(variables.keys).sorted().first
    }

    /// Whether `object` satisfies the predicate.
    ///
    /// A managed object's predicate is first checked against its entity exactly as a fetch checks
    /// it (once per entity): a key path the model does not have (`age.age` where `age` is an
    /// attribute), an operator that does not apply to its operands, or anything else a fetch
    /// refuses throws the fetch's own `FetchRequestError` here too, so that the store and memory
    /// never disagree.
    ///
    /// - Throws: `ObjectPredicateError` for a missing variable, an invalid `MATCHES` pattern or
    ///   `BETWEEN` bounds that are not two values; `FetchRequestError` for a managed object whose
    ///   entity a fetch of this predicate would refuse; or what the object throws.
    package func evaluate(with object: any PredicateKeyValueReadable) throws -> Bool {
        if let missingVariable { throw ObjectPredicateError.missingVariable(missingVariable) }
        if let checked = object as? any PredicateSchemaChecking { try check(against: checked) }
        return try test(predicate, on: .object(object), scope: [:])
    }

    private func check(against object: any PredicateSchemaChecking) throws {
        let schema = try object.predicateSchema()
        let key = ObjectIdentifier(schema)
        if let known = schemaChecks[key] {
            if let failure = known.failure { throw failure }
            return
        }
        var failure: (any Error)?
        do {
            try object.checkPredicate(variables.isEmpty ? predicate : predicate.substituting(variables))
        } catch {
            failure = error
        }
        schemaChecks[key] = (schema, failure)
        if let failure { throw failure }
    }

    // MARK: - Predicates

    typealias Scope = [String: PredicateEvaluationValue]

    func test(_ predicate: ObjectPredicate, on subject: PredicateEvaluationValue, scope: Scope) throws -> Bool {
        switch predicate {
        case .true:
            return true
        case .false:
            return false
        case .and(let operands):
            for operand in operands where try !test(operand, on: subject, scope: scope) { return false }
            return true
        case .or(let operands):
            for operand in operands where try test(operand, on: subject, scope: scope) { return true }
            return false
        case .not(let operand):
            return try !test(operand, on: subject, scope: scope)
        case .comparison(let comparison):
            return try test(comparison, on: subject, scope: scope)
        }
    }

    private func test(_ comparison: PredicateComparison, on subject: PredicateEvaluationValue, scope: Scope) throws -> Bool {
        let lhs = try value(of: comparison.lhs, on: subject, scope: scope)
        let rhs = try value(of: comparison.rhs, on: subject, scope: scope)
        let match = { (element: PredicateEvaluationValue) throws -> Bool in
            try self.compare(element, comparison.comparisonOperator, rhs, options: comparison.options)
        }
        switch comparison.modifier {
        case .direct:
            guard Self.isCollection(lhs) else { return try match(lhs) }
            if comparison.comparisonOperator == .contains {
                // Apple's CONTAINS with a collection on the left: the right value is one of its elements.
                return try compare(rhs, .in, lhs, options: comparison.options)
            }
            return try Self.elements(of: lhs).contains(where: match)
        case .any:
            return try Self.elements(of: lhs).contains(where: match)
        case .all:
            return try Self.elements(of: lhs).allSatisfy(match)
        case .none:
            return try !Self.elements(of: lhs).contains(where: match)
        }
    }

    // MARK: - Expressions

    func value(of expression: ObjectExpression, on subject: PredicateEvaluationValue, scope: Scope) throws -> PredicateEvaluationValue {
        switch expression {
        case .constant(let constant):
            return .value(constant)
        case .keyPath(let path):
            return try Self.follow(path, from: subject)
        case .variable(let name):
            if let bound = scope[name] { return bound }
            guard let constant = variables[name] else { throw ObjectPredicateError.missingVariable(name) }
            return .value(constant)
        case .member(let base, let path):
            return try Self.follow(path, from: value(of: base, on: subject, scope: scope))
        case .aggregate(let elements):
            return .collection(try elements.map { try value(of: $0, on: subject, scope: scope) })
        case .collectionOperator(let collectionOperator, let base, let path):
            var items = Self.elements(of: try value(of: base, on: subject, scope: scope))
            if !path.isEmpty {
                items = try items.flatMap { item -> [PredicateEvaluationValue] in
                    let result = try Self.follow(path, from: item)
                    if case .collection(let nested) = result { return nested }
                    return [result]
                }
            }
            return .value(Self.apply(collectionOperator, to: items))
        case .subquery(let collection, let variable, let predicate):
            var matches: [PredicateEvaluationValue] = []
            for element in Self.elements(of: try value(of: collection, on: subject, scope: scope)) {
                var inner = scope
                inner[variable] = element
                if try test(predicate, on: element, scope: inner) { matches.append(element) }
            }
            return .collection(matches)
        }
    }

    /// Reads `path` key by key; see the type's documentation for nulls and collections.
    static func follow(_ path: [String], from start: PredicateEvaluationValue) throws -> PredicateEvaluationValue {
        var current = start
        for key in path { current = try step(current, key) }
        return current
    }

    private static func step(_ value: PredicateEvaluationValue, _ key: String) throws -> PredicateEvaluationValue {
        switch value {
        case .object(let object):
            return try object.predicateValue(forKey: key)
        case .collection(let items):
            var result: [PredicateEvaluationValue] = []
            for item in items {
                let next = try step(item, key)
                if case .collection(let nested) = next { result.append(contentsOf: nested) } else { result.append(next) }
            }
            return .collection(result)
        case .value(.array(let items)):
            return try step(.collection(items.map(PredicateEvaluationValue.value)), key)
        case .value:
            return .null
        }
    }

    static func isCollection(_ value: PredicateEvaluationValue) -> Bool {
        switch value {
        case .collection, .value(.array): return true
        default: return false
        }
    }

    /// The elements of a collection; null is empty and any other value a single element.
    static func elements(of value: PredicateEvaluationValue) -> [PredicateEvaluationValue] {
        switch value {
        case .collection(let items): return items
        case .value(.array(let items)): return items.map(PredicateEvaluationValue.value)
        case .value(.null): return []
        default: return [value]
        }
    }

    func compiledRegularExpression(_ pattern: String, caseInsensitive: Bool) throws(ObjectPredicateError) -> PredicateRegularExpression {
        let key = RegularExpressionKey(pattern: ExactString(pattern), caseInsensitive: caseInsensitive)
        if let cached = regularExpressions[key] { return cached }
        let compiled = try PredicateRegularExpression(pattern, caseInsensitive: caseInsensitive)
        regularExpressions[key] = compiled
        return compiled
    }
}

/// An object whose keys a schema declares beforehand (a managed object: its entity in its
/// model). The evaluator checks a predicate against the schema once, with the store's rules, so
/// that memory refuses exactly what a fetch refuses.
protocol PredicateSchemaChecking {
    /// What the check depends on (the same object for every object of one entity).
    ///
    /// - Throws: when there is no schema to check against.
    func predicateSchema() throws -> AnyObject

    /// Throws what a fetch of objects like this one throws for `predicate`.
    func checkPredicate(_ predicate: ObjectPredicate) throws
}

extension ObjectPredicate {
    /// Whether `object` satisfies the predicate; see `PredicateEvaluator` for the semantics.
    ///
    /// ```swift
    /// try ObjectPredicate(format: "tags.@count > 2").evaluate(with: photo)
    /// ```
    ///
    /// - Throws: `ObjectPredicateError` for a missing variable, an invalid `MATCHES` pattern or bad
    ///   `BETWEEN` bounds; `FetchRequestError` for what a fetch would refuse; or what the object throws.
    package func evaluate(with object: any PredicateKeyValueReadable, variables: [String: PredicateValue] = [:]) throws -> Bool {
        try PredicateEvaluator(self, variables: variables).evaluate(with: object)
    }
}
