import Foundation

/// Building predicates in Swift, the same trees the parser makes:
///
/// ```swift
/// let predicate = ObjectPredicate.key("place.name", .beginsWith, "Lis", options: .caseInsensitive)
///     && .key("tags.@count", .greaterThan, 2)
///     && !.key("title", .equalTo, nil)
/// print(predicate)   // place.name BEGINSWITH[c] "Lis" AND tags.@count > 2 AND NOT title == nil
/// ```
extension ObjectPredicate {
    /// Compares a key path (dots and `@count`-style operators allowed) with a constant.
    public static func key(
        _ path: String, _ comparisonOperator: ComparisonOperator, _ value: PredicateValue,
        modifier: ComparisonModifier = .direct, options: StringComparisonOptions = []
    ) -> ObjectPredicate {
        .comparison(PredicateComparison(.key(path), comparisonOperator, .constant(value),
                                        modifier: modifier, options: options))
    }

    /// Compares a key path with any argument value, e.g. a `Date` or an array.
    public static func key(
        _ path: String, _ comparisonOperator: ComparisonOperator, _ value: some PredicateArgument,
        modifier: ComparisonModifier = .direct, options: StringComparisonOptions = []
    ) -> ObjectPredicate {
        .key(path, comparisonOperator, value.predicateValue, modifier: modifier, options: options)
    }

    /// Compares two expressions.
    public static func compare(
        _ lhs: ObjectExpression, _ comparisonOperator: ComparisonOperator, _ rhs: ObjectExpression,
        modifier: ComparisonModifier = .direct, options: StringComparisonOptions = []
    ) -> ObjectPredicate {
        .comparison(PredicateComparison(lhs, comparisonOperator, rhs, modifier: modifier, options: options))
    }

    /// `lhs AND rhs`; a chain `a && b && c` makes one flat `.and([a, b, c])`.
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        if case .and(let operands) = lhs, operands.count > 1 { return .and(operands + [rhs]) }
        return .and([lhs, rhs])
    }

    /// `lhs OR rhs`; a chain `a || b || c` makes one flat `.or([a, b, c])`.
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        if case .or(let operands) = lhs, operands.count > 1 { return .or(operands + [rhs]) }
        return .or([lhs, rhs])
    }

    /// `NOT operand`.
    public static prefix func ! (operand: ObjectPredicate) -> ObjectPredicate {
        .not(operand)
    }
}
