import Foundation
import SQLiteDB

/// A predicate with its constants taken out: the key under which the store keeps one compiled
/// query for every predicate that differs only in its constants (`unique IN {"id"}` for any
/// photo, `name IN {"a", "b"}` for any two names), and the values to bind into it.
///
/// The compiler decides some things from a constant's value, not only from its kind: a NaN
/// compares with nothing, an `IN` list loses its duplicates, `[c]` and `[d]` fold strings at
/// compile time, BEGINSWITH binds a computed upper bound, an empty CONTAINS pattern is false,
/// two constants are compared there and then. A shape is therefore made only for predicates
/// whose compiled SQL depends on nothing but the kinds of their constants:
///
/// - every comparison has a key path on its left and a constant on its right, and no options;
/// - its operator is `==`, `!=`, `<`, `<=`, `>`, `>=`, or `IN` with a list of at most
///   `PredicateSQLCompilation.longListThreshold` distinct values (a longer one is bound as one
///   JSON argument);
/// - no constant is NaN, a list, an object reference other than an `ObjectID`, or a list
///   element that is itself a list;
/// - it has at most `ObjectPredicate.cachedConstantLimit` constants, as a predicate kept by
///   its values.
///
/// Each such constant is replaced by a *stand-in*: a value of the same kind (and, for an
/// object, the same entity) that no real constant is expected to equal, numbered in the order
/// met. `nil` and booleans stay as they are (their SQL differs: `IS NULL`; and two booleans
/// have no room for a stand-in); every predicate of a shape has the same ones. Anything else
/// gives no shape, and the store keys the predicate by its values, as before.
///
/// ```swift
/// let shape = PredicateShape(.key("unique", .in, ["1234"]))
/// shape?.values      // [.text("1234")]
/// shape?.standIn     // unique IN {"\u{1}\u{2}stand-in 0\u{2}\u{1}"}
/// ```
struct PredicateShape {
    /// The predicate with stand-ins for its constants: equal for all predicates of one shape.
    let standIn: ObjectPredicate
    /// What each constant binds as (`PredicateSQLCompilation.bindValue` without folding), by
    /// its stand-in's number.
    let values: [SQLiteValue]
    /// What each stand-in binds as, by number.
    let standInValues: [SQLiteValue]

    /// The shape of `predicate`; nil when its SQL may depend on its constants' values.
    init?(_ predicate: ObjectPredicate) {
        var builder = Builder()
        // As many constants as the cache keeps by value at most: a longer predicate is a batch's.
        guard let standIn = builder.predicate(predicate), builder.values.count <= ObjectPredicate.cachedConstantLimit else { return nil }
        self.standIn = standIn
        self.values = builder.values
        self.standInValues = builder.standInValues
    }

    /// The stand-ins' numbers by what they bind as.
    var numbersByStandInValue: [SQLiteValue: Int] {
        Dictionary(standInValues.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private struct Builder {
        var values: [SQLiteValue] = []
        var standInValues: [SQLiteValue] = []

        mutating func predicate(_ predicate: ObjectPredicate) -> ObjectPredicate? {
            switch predicate {
            case .true, .false:
                return predicate
            case .and(let operands):
                return terms(operands).map(ObjectPredicate.and)
            case .or(let operands):
                return terms(operands).map(ObjectPredicate.or)
            case .not(let operand):
                return self.predicate(operand).map(ObjectPredicate.not)
            case .comparison(let comparison):
                return self.comparison(comparison).map(ObjectPredicate.comparison)
            }
        }

        private mutating func terms(_ operands: [ObjectPredicate]) -> [ObjectPredicate]? {
            var result: [ObjectPredicate] = []
            result.reserveCapacity(operands.count)
            for operand in operands {
                guard let term = predicate(operand) else { return nil }
                result.append(term)
            }
            return result
        }

        private mutating func comparison(_ comparison: PredicateComparison) -> PredicateComparison? {
            guard comparison.options.isEmpty, case .keyPath = comparison.lhs,
                  case .constant(let constant) = comparison.rhs else { return nil }
            let replaced: PredicateValue
            switch comparison.comparisonOperator {
            case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                guard let single = standIn(for: constant) else { return nil }
                replaced = single
            case .in:
                guard case .array(let items) = constant, items.count <= PredicateSQLCompilation.longListThreshold else { return nil }
                // The compiler drops repeated values; a list with none keeps one placeholder a value.
                var seen = Set<SQLiteValue>(minimumCapacity: items.count)
                var elements: [PredicateValue] = []
                elements.reserveCapacity(items.count)
                for item in items {
                    if let bound = PredicateSQLCompilation.plainBindValue(item), !seen.insert(bound).inserted { return nil }
                    guard let element = standIn(for: item) else { return nil }
                    elements.append(element)
                }
                replaced = .array(elements)
            case .between, .beginsWith, .endsWith, .contains, .like, .matches:
                return nil
            }
            var result = comparison
            result.rhs = .constant(replaced)
            return result
        }

        /// The stand-in for one constant (itself for nil and booleans); nil outside the shapes.
        private mutating func standIn(for value: PredicateValue) -> PredicateValue? {
            let number = Int64(values.count)
            let standIn: PredicateValue
            switch value {
            case .null, .bool:
                return value
            case .int:
                standIn = .int(Self.integerBase + number)
            case .double(let double):
                guard !double.isNaN else { return nil }
                standIn = .double(Double(bitPattern: Self.doubleBits | UInt64(number)))
            case .date:
                standIn = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: Self.dateBits | UInt64(number))))
            case .string:
                standIn = .string("\u{1}\u{2}stand-in \(number)\u{2}\u{1}")
            case .data:
                standIn = .data(Data("\u{1}\u{2}stand-in \(number)".utf8))
            case .object(let reference):
                guard let id = reference.base as? ObjectID else { return nil }
                standIn = .object(PredicateObjectReference(ObjectID(entityNumber: id.entityNumber, primaryKey: Self.integerBase + number)))
            case .array:
                return nil
            }
            guard let bound = PredicateSQLCompilation.plainBindValue(value),
                  let standInBound = PredicateSQLCompilation.plainBindValue(standIn) else { return nil }
            values.append(bound)
            standInValues.append(standInBound)
            return standIn
        }

        /// Far from any key or count a store holds; stand-in `n` is this plus `n`.
        static let integerBase: Int64 = -0x5A4E_0000_0000_0000
        /// Finite negative doubles of two exponents no real value is likely to have, one for
        /// numbers and one for dates, so that the two never bind alike; `n` in the low bits.
        static let doubleBits: UInt64 = 0xD5A4_E000_0000_0000
        static let dateBits: UInt64 = 0xD5B4_E000_0000_0000
    }
}

/// Where each argument of a query compiled from a shape's stand-ins comes from.
enum QueryArgumentSource: Equatable {
    /// The constant that replaced stand-in `n`.
    case constant(Int)
    /// A value every predicate of the shape binds alike (a boolean, kept in the shape).
    case fixed(SQLiteValue)
}

extension SQLFetchQuery {
    /// Where each of this query's arguments (compiled from `shape`'s stand-ins) comes from; nil
    /// when one of them is neither a stand-in's value nor a boolean the shape keeps, which
    /// means the compiler made it from a constant's value, so the query does not fit other
    /// constants.
    func argumentSources(for shape: PredicateShape) -> [QueryArgumentSource]? {
        let numbers = shape.numbersByStandInValue
        var sources: [QueryArgumentSource] = []
        sources.reserveCapacity(arguments.count)
        for argument in arguments {
            if let number = numbers[argument] {
                sources.append(.constant(number))
            } else if argument == .integer(0) || argument == .integer(1) {
                sources.append(.fixed(argument))
            } else {
                return nil
            }
        }
        return sources
    }

    /// This query (compiled from a shape's stand-ins) with the arguments of `values`.
    func binding(_ values: [SQLiteValue], sources: [QueryArgumentSource]) -> SQLFetchQuery {
        var query = self
        query.arguments = sources.map { source in
            switch source {
            case .constant(let number): values[number]
            case .fixed(let value): value
            }
        }
        return query
    }
}
