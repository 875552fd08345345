import Foundation

extension PredicateEvaluator {
    /// One left element against the right value; quantifiers were applied by the caller.
    func compare(
        _ lhs: PredicateEvaluationValue, _ comparisonOperator: ComparisonOperator, _ rhs: PredicateEvaluationValue,
        options: StringComparisonOptions
    ) throws -> Bool {
        switch comparisonOperator {
        case .equalTo:
            return Self.equal(lhs, rhs, options: options)
        case .notEqualTo:
            return !Self.equal(lhs, rhs, options: options)
        case .lessThan:
            return Self.order(lhs, rhs, options: options).map { $0 < 0 } ?? false
        case .lessThanOrEqualTo:
            return Self.order(lhs, rhs, options: options).map { $0 <= 0 } ?? false
        case .greaterThan:
            return Self.order(lhs, rhs, options: options).map { $0 > 0 } ?? false
        case .greaterThanOrEqualTo:
            return Self.order(lhs, rhs, options: options).map { $0 >= 0 } ?? false
        case .in:
            if case .value(.null) = rhs { return false }
            if case .value(.string) = rhs {
                // Apple's IN with a string on the right: the right string holds the left one.
                return try compare(rhs, .contains, lhs, options: options)
            }
            return Self.elements(of: rhs).contains { Self.equal(lhs, $0, options: options) }
        case .between:
            let bounds = Self.elements(of: rhs)
            guard Self.isCollection(rhs), bounds.count == 2 else {
                throw ObjectPredicateError.invalidBetweenBounds(got: Self.describe(rhs))
            }
            guard let lower = Self.order(lhs, bounds[0], options: options),
                  let upper = Self.order(lhs, bounds[1], options: options) else { return false }
            return lower >= 0 && upper <= 0
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .value(.string(let string)) = lhs, case .value(.string(let other)) = rhs else { return false }
            return try PredicateStringMatching.evaluate(comparisonOperator, string, other, options: options) {
                (pattern, caseInsensitive) throws(ObjectPredicateError) in
                try compiledRegularExpression(pattern, caseInsensitive: caseInsensitive)
            }
        }
    }

    /// Equality as `==` sees it: null equals only null, numbers numerically, strings by
    /// folded bytes, objects by identity, collections element-wise.
    static func equal(_ lhs: PredicateEvaluationValue, _ rhs: PredicateEvaluationValue, options: StringComparisonOptions) -> Bool {
        switch (lhs, rhs) {
        case (.value(let left), .value(let right)):
            return equal(left, right, options: options)
        case (.object(let left), .object(let right)):
            return left.predicateObjectReference == right.predicateObjectReference
        case (.object(let object), .value(.object(let reference))), (.value(.object(let reference)), .object(let object)):
            return object.predicateObjectReference == reference
        case (.collection, _), (_, .collection):
            guard isCollection(lhs), isCollection(rhs) else { return false }
            let left = elements(of: lhs)
            let right = elements(of: rhs)
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1, options: options) }
        default:
            return false
        }
    }

    static func equal(_ lhs: PredicateValue, _ rhs: PredicateValue, options: StringComparisonOptions) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.string(let left), .string(let right)):
            return PredicateStringFolding.fold(left, options: options).utf8
                .elementsEqual(PredicateStringFolding.fold(right, options: options).utf8)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1, options: options) }
        case (.object(let left), .object(let right)):
            return left == right
        default:
            return order(lhs, rhs, options: options) == 0
        }
    }

    /// The order of two single values (-1, 0, 1), or nil when they do not compare.
    static func order(_ lhs: PredicateEvaluationValue, _ rhs: PredicateEvaluationValue, options: StringComparisonOptions) -> Int? {
        guard case .value(let left) = lhs, case .value(let right) = rhs else { return nil }
        return order(left, right, options: options)
    }

    static func order(_ lhs: PredicateValue, _ rhs: PredicateValue, options: StringComparisonOptions) -> Int? {
        if let left = Number(lhs), let right = Number(rhs) {
            return Number.compare(left, right)
        }
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)):
            return PredicateStringMatching.compareBytes(PredicateStringFolding.fold(left, options: options),
                                                        PredicateStringFolding.fold(right, options: options))
        case (.date(let left), .date(let right)):
            let a = left.timeIntervalSinceReferenceDate
            let b = right.timeIntervalSinceReferenceDate
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.data(let left), .data(let right)):
            if left == right { return 0 }
            return left.lexicographicallyPrecedes(right) ? -1 : 1
        default:
            return nil
        }
    }

    /// A number of either kind; bools count as 0 and 1.
    enum Number {
        case int(Int64)
        case double(Double)

        init?(_ value: PredicateValue) {
            switch value {
            case .int(let number): self = .int(number)
            case .double(let number): self = .double(number)
            case .bool(let flag): self = .int(flag ? 1 : 0)
            default: return nil
            }
        }

        var doubleValue: Double {
            switch self {
            case .int(let number): return Double(number)
            case .double(let number): return number
            }
        }

        /// Exact comparison, also between an int and a double; NaN compares with nothing.
        static func compare(_ lhs: Number, _ rhs: Number) -> Int? {
            switch (lhs, rhs) {
            case (.int(let a), .int(let b)):
                return a < b ? -1 : (a > b ? 1 : 0)
            case (.double(let a), .double(let b)):
                if a.isNaN || b.isNaN { return nil }
                return a < b ? -1 : (a > b ? 1 : 0)
            case (.int(let a), .double(let b)):
                return compare(a, b)
            case (.double(let a), .int(let b)):
                return compare(b, a).map { -$0 }
            }
        }

        private static func compare(_ integer: Int64, _ double: Double) -> Int? {
            if double.isNaN { return nil }
            // 2^63 is exactly representable; every Int64 is below it and at or above -2^63.
            if double >= 9_223_372_036_854_775_808.0 { return -1 }
            if double < -9_223_372_036_854_775_808.0 { return 1 }
            let whole = double.rounded(.towardZero)
            let truncated = Int64(whole)
            if integer != truncated { return integer < truncated ? -1 : 1 }
            if double == whole { return 0 }
            return double > whole ? -1 : 1
        }
    }

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` over the gathered elements.
    static func apply(_ collectionOperator: PredicateCollectionOperator, to items: [PredicateEvaluationValue]) -> PredicateValue {
        if collectionOperator == .count { return .int(Int64(items.count)) }
        var values: [PredicateValue] = []
        for item in items {
            switch item {
            case .value(.null): continue
            case .value(let value): values.append(value)
            default: return .null
            }
        }
        switch collectionOperator {
        case .count:
            return .int(Int64(items.count))
        case .sum, .avg:
            var numbers: [Number] = []
            for value in values {
                guard let number = Number(value) else { return .null }
                numbers.append(number)
            }
            if collectionOperator == .avg {
                guard !numbers.isEmpty else { return .null }
                return .double(numbers.reduce(0) { $0 + $1.doubleValue } / Double(numbers.count))
            }
            return sum(numbers)
        case .min, .max:
            guard var best = values.first else { return .null }
            for value in values {
                guard let order = order(value, best, options: []) else { return .null }
                if collectionOperator == .min ? order < 0 : order > 0 { best = value }
            }
            return best
        }
    }

    private static func sum(_ numbers: [Number]) -> PredicateValue {
        var integerTotal: Int64 = 0
        for number in numbers {
            guard case .int(let value) = number else {
                return .double(numbers.reduce(0) { $0 + $1.doubleValue })
            }
            let (total, overflow) = integerTotal.addingReportingOverflow(value)
            if overflow { return .double(numbers.reduce(0) { $0 + $1.doubleValue }) }
            integerTotal = total
        }
        return .int(integerTotal)
    }

    static func describe(_ value: PredicateEvaluationValue) -> String {
        switch value {
        case .value(let constant): return constant.description
        case .object(let object): return object.predicateObjectReference.description
        case .collection(let items): return "{" + items.map(describe).joined(separator: ", ") + "}"
        }
    }
}
