import Foundation
import SQLiteDB

extension PredicateSQLCompilation {
    /// A comparison, quantified over its left side as `PredicateEvaluator.test` does.
    func condition(for comparison: PredicateComparison, in scope: SQLLexicalScope) throws -> SQLCondition {
        let lhs = try value(of: comparison.lhs, in: scope)
        let rhs = try value(of: comparison.rhs, in: scope)
        let modifier = comparison.modifier
        let match = { (element: SQLOperand) throws -> SQLCondition in
            try self.compare(element, comparison.comparisonOperator, rhs, options: comparison.options)
        }
        if comparison.comparisonOperator == .contains, modifier == .direct, Self.isCollection(lhs) {
            return try membership(rhs, in: lhs, options: comparison.options, origin: comparison.description)
        }
        switch lhs {
        case .scalar(.constant(let value)):
            // A modifier makes null an empty collection.
            if modifier != .direct, value.isNull { return .constant(modifier != .any) }
            // Otherwise a one-element collection: NONE is the only modifier that changes the answer.
            let condition = try match(.constant(value))
            return modifier == .none ? .not(condition) : condition
        case .constantArray(let items):
            return Self.quantify(modifier, try items.map { try match(.constant($0)) })
        case .aggregate(let items):
            return Self.quantify(modifier, try items.map { try match(operand(of: $0, origin: comparison.lhs.description)) })
        case .scalar(.expression(let scalar)):
            return try quantify(modifier, single: scalar, match)
        case .object(let handle):
            return try quantify(modifier, single: handle.scalar, match)
        case .collection(let collection):
            let element = SQLOperand.expression(collection.elementScalar)
            switch modifier {
            case .direct, .any:
                let found = collection.scope.exists(where: try match(element))
                guard modifier == .direct, let prefixNull = collection.prefixNull else { return found }
                return .or([.and([prefixNull, try match(.constant(.null))]), found])
            case .all:
                return .not(collection.scope.exists(where: .not(try match(element))))
            case .none:
                return .not(collection.scope.exists(where: try match(element)))
            }
        }
    }

    /// Whether the evaluator takes the value for a collection (`PredicateEvaluator.isCollection`).
    private static func isCollection(_ value: SQLCompiledValue) -> Bool {
        switch value {
        case .collection, .constantArray, .aggregate: return true
        case .scalar, .object: return false
        }
    }

    /// Apple's CONTAINS with a collection on its left and no modifier: the right value is one of
    /// the collection's elements (`tags CONTAINS %@`, `tags.name CONTAINS 'sea'`), `rhs IN lhs`.
    private func membership(_ value: SQLCompiledValue, in collection: SQLCompiledValue, options: StringComparisonOptions,
                            origin: String) throws -> SQLCondition {
        let element: SQLOperand
        switch value {
        case .scalar(let operand): element = operand
        case .object(let handle): element = .expression(handle.scalar)
        case .constantArray(let items): element = .constant(.array(items))
        case .collection, .aggregate:
            throw FetchRequestError("\(origin) is not supported in a fetch: CONTAINS looks for one value in a collection")
        }
        return try inCondition(element, collection, options: options)
    }

    /// ANY (or no modifier), ALL or NONE over conditions known one by one.
    private static func quantify(_ modifier: ComparisonModifier, _ conditions: [SQLCondition]) -> SQLCondition {
        switch modifier {
        case .direct, .any: return .or(conditions)
        case .all: return .and(conditions)
        case .none: return .not(.or(conditions))
        }
    }

    /// A modifier on a single value treats it as a one-element collection, and null as empty.
    private func quantify(_ modifier: ComparisonModifier, single scalar: SQLScalar,
                          _ match: (SQLOperand) throws -> SQLCondition) throws -> SQLCondition {
        let condition = try match(.expression(scalar))
        switch modifier {
        case .direct: return condition
        case .any: return .and([Self.isNotNull(scalar), condition])
        case .all: return .or([Self.isNull(scalar), condition])
        case .none: return .or([Self.isNull(scalar), .not(condition)])
        }
    }

    /// An element of an aggregate as a single value.
    private func operand(of value: SQLCompiledValue, origin: String) throws -> SQLOperand {
        switch value {
        case .scalar(let operand): return operand
        case .object(let handle): return .expression(handle.scalar)
        default: throw FetchRequestError("\(origin) is not supported in a fetch: aggregates hold single values")
        }
    }

    // MARK: One element against the right side

    /// One left element against the whole right side (`PredicateEvaluator.compare`).
    func compare(_ lhs: SQLOperand, _ comparisonOperator: ComparisonOperator, _ rhs: SQLCompiledValue,
                 options: StringComparisonOptions) throws -> SQLCondition {
        switch comparisonOperator {
        case .in:
            return try inCondition(lhs, rhs, options: options)
        case .between:
            return try between(lhs, rhs, options: options)
        default:
            break
        }
        switch rhs {
        case .scalar(let operand):
            return try compareSingle(lhs, comparisonOperator, operand, options: options)
        case .object(let handle):
            return try compareSingle(lhs, comparisonOperator, .expression(handle.scalar), options: options)
        case .constantArray, .aggregate:
            // A single value never equals a collection.
            try checkApplies(comparisonOperator, to: lhs)
            return .constant(comparisonOperator == .notEqualTo)
        case .collection(let collection):
            try checkApplies(comparisonOperator, to: lhs)
            try checkApplies(comparisonOperator, to: .expression(collection.elementScalar))
            let constant = SQLCondition.constant(comparisonOperator == .notEqualTo)
            // …unless the key path gave null rather than a collection.
            guard let prefixNull = collection.prefixNull else { return constant }
            let againstNull = try compareSingle(lhs, comparisonOperator, .constant(.null), options: options)
            return .or([.and([prefixNull, againstNull]), .and([.not(prefixNull), constant])])
        }
    }

    /// IN: equal to an element of the right side; a single string on the right holds the left
    /// string (Apple's substring IN); any other single value on the right is a one-element
    /// collection; null on the right is false.
    private func inCondition(_ lhs: SQLOperand, _ rhs: SQLCompiledValue, options: StringComparisonOptions) throws -> SQLCondition {
        switch rhs {
        case .scalar(.constant(let value)):
            if value.isNull { return .false }
            if case .string = value { return try substring(lhs, of: .constant(value), options: options) }
            return try compareSingle(lhs, .equalTo, .constant(value), options: options)
        case .scalar(.expression(let scalar)) where scalar.kind == .string:
            return try substring(lhs, of: .expression(scalar), options: options)
        case .scalar(.expression(let scalar)):
            return try inSingle(lhs, scalar, options: options)
        case .object(let handle):
            return try inSingle(lhs, handle.scalar, options: options)
        case .constantArray(let items):
            return try inList(lhs, items, options: options)
        case .aggregate(let items):
            return .or(try items.map { item in
                switch item {
                case .scalar(let operand): return try compareSingle(lhs, .equalTo, operand, options: options)
                case .object(let handle): return try compareSingle(lhs, .equalTo, .expression(handle.scalar), options: options)
                case .constantArray(let values): return try compareSingle(lhs, .equalTo, .constant(.array(values)), options: options)
                case .collection, .aggregate:
                    throw FetchRequestError("An aggregate holding a collection is not supported in a fetch: aggregates hold single values")
                }
            })
        case .collection(let collection):
            let element = SQLOperand.expression(collection.elementScalar)
            return collection.scope.exists(where: try compareSingle(lhs, .equalTo, element, options: options))
        }
    }

    /// `lhs IN container` with a string on the right: the right string contains the left one,
    /// with the options; false for anything but a string on the left.
    private func substring(_ lhs: SQLOperand, of container: SQLOperand, options: StringComparisonOptions) throws -> SQLCondition {
        switch lhs {
        case .constant(.string):
            return try compareSingle(container, .contains, lhs, options: options)
        case .expression(let scalar) where scalar.kind == .string:
            return try compareSingle(container, .contains, lhs, options: options)
        case .constant, .expression:
            return .false
        }
    }

    /// IN with a single value on the right: equality, false when that value is NULL.
    private func inSingle(_ lhs: SQLOperand, _ scalar: SQLScalar, options: StringComparisonOptions) throws -> SQLCondition {
        if case .constant(.null) = lhs { return .false }
        return .and([Self.isNotNull(scalar), try compareSingle(lhs, .equalTo, .expression(scalar), options: options)])
    }

    /// `x IN {…}` with constants: `x IN (?, …)`, or `x IN (SELECT value FROM json_each(?))` for a
    /// long list of integers and strings, or `x IS NULL` for a nil element.
    private func inList(_ lhs: SQLOperand, _ items: [PredicateValue], options: StringComparisonOptions) throws -> SQLCondition {
        guard case .expression(let scalar) = lhs else {
            guard case .constant(let value) = lhs else { return .false }
            return .constant(try evaluateConstants(value, .in, .array(items), options: options))
        }
        let folding = scalar.kind == .string ? options : []
        var hasNull = false
        var values: [SQLiteValue] = []
        // By bytes: Swift's string equality would merge "é" and "e\u{301}", which SQLite tells apart.
        var seen = Set<BindKey>(minimumCapacity: items.count)
        values.reserveCapacity(items.count)
        for item in items {
            if item.isNull {
                hasNull = true
                continue
            }
            guard kind(of: item) == scalar.kind, !Self.isNaN(item), let value = bindValue(item, folding: folding) else { continue }
            if seen.insert(BindKey(value)).inserted { values.append(value) }
        }
        var terms: [SQLCondition] = []
        if hasNull { terms.append(Self.isNull(scalar)) }
        if !values.isEmpty {
            let column = expression(scalar, folding: folding)
            var listed: [SQLiteValue] = []
            var viaJSON: [SQLiteValue] = []
            for value in values {
                switch value {
                case .text(let text) where text.utf8.contains(0):
                    // SQLite's JSON functions end a string at an escaped NUL: bound, it stays whole.
                    listed.append(value)
                case .integer, .text:
                    if values.count > Self.longListThreshold { viaJSON.append(value) } else { listed.append(value) }
                default:
                    listed.append(value)
                }
            }
            if !viaJSON.isEmpty {
                let json = SQLFragment.bind(.text(Self.jsonArray(viaJSON)))
                terms.append(.comparison(column + " IN (SELECT value FROM json_each(" + json + "))", nullable: scalar.nullable))
            }
            if listed.count == 1 {
                terms.append(.comparison(column + " = " + .bind(listed[0]), nullable: scalar.nullable))
            } else if !listed.isEmpty {
                let placeholders = SQLFragment.joined(listed.map(SQLFragment.bind), separator: ", ")
                terms.append(.comparison(column + " IN (" + placeholders + ")", nullable: scalar.nullable))
            }
        }
        return .or(terms)
    }

    /// Lists longer than this go to `json_each` as one argument (integers and strings only: JSON
    /// carries them exactly, unlike doubles, dates and data).
    static let longListThreshold = 16

    /// BETWEEN {lower, upper}: lower <= x <= upper.
    private func between(_ lhs: SQLOperand, _ rhs: SQLCompiledValue, options: StringComparisonOptions) throws -> SQLCondition {
        let bounds: [SQLOperand?]
        switch rhs {
        case .constantArray(let items) where items.count == 2:
            bounds = items.map { .constant($0) }
        case .aggregate(let items) where items.count == 2:
            bounds = items.map { item in
                switch item {
                case .scalar(let operand): return operand
                case .object(let handle): return .expression(handle.scalar)
                default: return nil
                }
            }
        case .scalar(.constant(let value)):
            throw FetchRequestError("BETWEEN needs two bounds {lower, upper}, got \(value)")
        case .constantArray(let items):
            throw FetchRequestError("BETWEEN needs two bounds {lower, upper}, got \(PredicateValue.array(items))")
        default:
            throw FetchRequestError("BETWEEN needs two bounds {lower, upper}, not a key path or collection")
        }
        try checkApplies(.between, to: lhs)
        guard let lower = bounds[0], let upper = bounds[1] else { return .false }
        return .and([try compareSingle(lhs, .greaterThanOrEqualTo, lower, options: options),
                     try compareSingle(lhs, .lessThanOrEqualTo, upper, options: options)])
    }

    // MARK: Two single values

    /// Two single values, with the evaluator's null and type rules.
    func compareSingle(_ lhs: SQLOperand, _ comparisonOperator: ComparisonOperator, _ rhs: SQLOperand,
                       options: StringComparisonOptions) throws -> SQLCondition {
        try checkApplies(comparisonOperator, to: lhs)
        try checkApplies(comparisonOperator, to: rhs)
        if case .constant(let left) = lhs, case .constant(let right) = rhs {
            return .constant(try evaluateConstants(left, comparisonOperator, right, options: options))
        }
        if comparisonOperator.isStringOperator {
            return try stringOperator(lhs, comparisonOperator, rhs, options: options)
        }
        if case .constant = lhs, case .expression = rhs, let mirrored = Self.mirrored(comparisonOperator) {
            // The same comparison with the column first, as people write it.
            return try compareSingle(rhs, mirrored, lhs, options: options)
        }
        switch (lhs, rhs) {
        case (.constant(.null), .expression(let scalar)), (.expression(let scalar), .constant(.null)):
            switch comparisonOperator {
            case .equalTo: return Self.isNull(scalar)
            case .notEqualTo: return Self.isNotNull(scalar)
            default: return .false
            }
        default:
            break
        }
        let leftKind = kind(of: lhs)
        let rightKind = kind(of: rhs)
        guard let leftKind, leftKind == rightKind else {
            // Values of kinds that do not compare: only two nulls are equal.
            guard case .expression(let left) = lhs, case .expression(let right) = rhs else {
                return .constant(comparisonOperator == .notEqualTo)
            }
            let bothNull = SQLCondition.and([Self.isNull(left), Self.isNull(right)])
            switch comparisonOperator {
            case .equalTo: return bothNull
            case .notEqualTo: return .not(bothNull)
            default: return .false
            }
        }
        if case .constant(let value) = lhs, Self.isNaN(value) { return .constant(comparisonOperator == .notEqualTo) }
        if case .constant(let value) = rhs, Self.isNaN(value) { return .constant(comparisonOperator == .notEqualTo) }
        let folding = leftKind == .string ? options : []
        let left = try sql(lhs, folding: folding)
        let right = try sql(rhs, folding: folding)
        let leftNullable = isNullable(lhs)
        let rightNullable = isNullable(rhs)
        switch comparisonOperator {
        case .equalTo where leftNullable && rightNullable:
            return .comparison(left + " IS " + right, nullable: false)
        case .equalTo:
            return .comparison(left + " = " + right, nullable: leftNullable || rightNullable)
        case .notEqualTo where !leftNullable && !rightNullable:
            return .comparison(left + " <> " + right, nullable: false)
        case .notEqualTo:
            return .comparison(left + " IS NOT " + right, nullable: false)
        default:
            let symbol = comparisonOperator.description
            return .comparison(left + " \(symbol) " + right, nullable: leftNullable || rightNullable)
        }
    }

    /// The operator with its operands swapped: `a < b` is `b > a`.
    private static func mirrored(_ comparisonOperator: ComparisonOperator) -> ComparisonOperator? {
        switch comparisonOperator {
        case .equalTo, .notEqualTo: return comparisonOperator
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        default: return nil
        }
    }

    /// Throws when the operator cannot apply to a key path's values: a string operator on
    /// anything but strings, an ordering on objects.
    private func checkApplies(_ comparisonOperator: ComparisonOperator, to operand: SQLOperand) throws {
        guard case .expression(let scalar) = operand else { return }
        if comparisonOperator.isStringOperator, scalar.kind != .string {
            throw FetchRequestError("\(comparisonOperator) does not apply to \(scalar.origin): it needs strings")
        }
        if case .object = scalar.kind {
            switch comparisonOperator {
            case .equalTo, .notEqualTo, .in: break
            default:
                throw FetchRequestError("\(comparisonOperator) does not apply to \(scalar.origin): objects compare only with ==, != and IN")
            }
        }
    }

    /// Two constants compared at compile time by the evaluator itself.
    func evaluateConstants(_ lhs: PredicateValue, _ comparisonOperator: ComparisonOperator, _ rhs: PredicateValue,
                           options: StringComparisonOptions) throws -> Bool {
        do {
            return try constantEvaluator.compare(.value(lhs), comparisonOperator, .value(rhs), options: options)
        } catch let error as ObjectPredicateError {
            throw FetchRequestError(error.description)
        }
    }

    // MARK: Values

    /// The kind of a single value; nil for null, an array, or an object that is no managed object.
    func kind(of value: PredicateValue) -> SQLValueKind? {
        switch value {
        case .null, .array: return nil
        case .bool, .int, .double: return .number
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .object(let reference):
            guard let id = reference.base as? ObjectID, let entity = model.entity(number: id.entityNumber) else { return nil }
            return .object(table: entity.table)
        }
    }

    /// The kind of either operand; nil when a constant has none.
    private func kind(of operand: SQLOperand) -> SQLValueKind? {
        switch operand {
        case .constant(let value): return kind(of: value)
        case .expression(let scalar): return scalar.kind
        }
    }

    /// Whether the operand can be NULL at run time (constants are known).
    private func isNullable(_ operand: SQLOperand) -> Bool {
        if case .expression(let scalar) = operand { return scalar.nullable }
        return false
    }

    /// The stored form a constant binds as, with strings folded; nil when it has none.
    func bindValue(_ value: PredicateValue, folding: StringComparisonOptions) -> SQLiteValue? {
        if case .string(let text) = value, !folding.isEmpty { return .text(PredicateStringFolding.fold(text, options: folding)) }
        return Self.plainBindValue(value)
    }

    /// The stored form a constant binds as when nothing folds it; nil when it has none.
    static func plainBindValue(_ value: PredicateValue) -> SQLiteValue? {
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .int(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .string(let text): return .text(text)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): return .blob(data)
        case .object(let reference): return (reference.base as? ObjectID).map { .integer($0.primaryKey) }
        case .array: return nil
        }
    }

    /// An operand as SQL, folded with `folding` (a function call per row for a column; once, at
    /// compile time, for a constant).
    private func sql(_ operand: SQLOperand, folding: StringComparisonOptions) throws -> SQLFragment {
        switch operand {
        case .constant(let value):
            guard let bound = bindValue(value, folding: folding) else {
                throw FetchRequestError("\(value) cannot be compared in a fetch")
            }
            return .bind(bound)
        case .expression(let scalar):
            return expression(scalar, folding: folding)
        }
    }

    /// A scalar's SQL, wrapped in `vacations_fold` when the comparison has options.
    func expression(_ scalar: SQLScalar, folding: StringComparisonOptions) -> SQLFragment {
        guard !folding.isEmpty else { return scalar.fragment }
        return "\(StoreFunctions.fold)(" + scalar.fragment + ", \(StoreFunctions.optionsCode(folding)))"
    }

    /// `x IS NULL`, or false for a value that cannot be NULL.
    static func isNull(_ scalar: SQLScalar) -> SQLCondition {
        scalar.nullable ? .comparison(scalar.fragment + " IS NULL", nullable: false) : .false
    }

    /// `x IS NOT NULL`, or true for a value that cannot be NULL.
    static func isNotNull(_ scalar: SQLScalar) -> SQLCondition {
        scalar.nullable ? .comparison(scalar.fragment + " IS NOT NULL", nullable: false) : .true
    }

    /// A NaN compares with nothing, as in the evaluator (and SQLite would store it as NULL).
    static func isNaN(_ value: PredicateValue) -> Bool {
        if case .double(let number) = value { return number.isNaN }
        return false
    }

    /// A JSON array of integers and strings, for `json_each`. Written as bytes: lists run to
    /// thousands of ids, and appending to a `String` piece by piece cost more than the query.
    static func jsonArray(_ values: [SQLiteValue]) -> String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(values.count * 16 + 2)
        for (index, value) in values.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            switch value {
            case .integer(let number):
                json.append(contentsOf: String(number).utf8)
            case .text(let text):
                if text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                    json.append(contentsOf: jsonString(text).utf8)
                } else {
                    json.append(UInt8(ascii: "\""))
                    json.append(contentsOf: text.utf8)
                    json.append(UInt8(ascii: "\""))
                }
            default:
                json.append(contentsOf: "null".utf8)
            }
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }

    /// A JSON string literal with exactly the string's scalars.
    static func jsonString(_ text: String) -> String {
        // Most strings need no escaping: then the text goes in whole (long `IN` lists of ids).
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + text + "\""
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// A bound value compared as SQLite compares it: text by bytes (`ExactString`).
private enum BindKey: Hashable {
    case text(ExactString)
    case other(SQLiteValue)

    /// The key of a bound value.
    init(_ value: SQLiteValue) {
        if case .text(let text) = value { self = .text(ExactString(text)) } else { self = .other(value) }
    }
}
