import Foundation
import SQLiteDB

/// The SQL functions compiled fetches call, registered on every store connection. Each runs
/// the in-memory evaluator's own Swift code, so the store and memory cannot disagree:
///
/// - `vacations_fold(text, options)`: `PredicateStringFolding.fold` (options 1 = `[c]`,
///   2 = `[d]`, 3 = `[cd]`); NULL for a non-text value.
/// - `vacations_match(operator, options, text, other)`: `PredicateStringMatching`'s BEGINSWITH
///   (1), ENDSWITH (2), CONTAINS (3), LIKE (4), MATCHES (5) with their options; 0 when either
///   value is not text. An invalid MATCHES pattern is an SQL error.
/// - `vacations_sort_key(text)`: the blob whose byte order is `ObjectSortDescriptor`'s localized
///   order; NULL for a non-text value.
///
/// ```swift
/// try StoreFunctions.register(on: connection)
/// try connection.scalar("SELECT vacations_match(1, 3, 'Crème', 'CRE')")   // .integer(1)
/// ```
///
/// Core Data's own trigger functions are registered too (`registerCoreDataTriggerFunctions`).
///
/// All are deterministic. They cost one Swift call per row: an ASCII string folds on a fast
/// path, the right operand of `vacations_match` is folded once while it stays the same (it is
/// usually a bound constant), and MATCHES patterns are compiled once per connection.
enum StoreFunctions {
    static let fold = "vacations_fold"
    static let match = "vacations_match"
    static let localizedSortKey = "vacations_sort_key"

    /// Registers the functions on `connection`; with `coreDataSources` (the SQL of the store's
    /// triggers and views that name `NSCoreData…`, read already with its fingerprint), the Core
    /// Data trigger functions are found there instead of by a query of its own
    /// (`registerCoreDataTriggerFunctions`).
    ///
    /// - Throws: `SQLiteError` when SQLite refuses a registration.
    static func register(on connection: Connection, coreDataSources: [String]? = nil) throws {
        try connection.createFunction(fold, argumentCount: 2) { arguments in
            guard case .text(let text) = arguments[0] else { return .null }
            return .text(PredicateStringFolding.fold(text, options: options(arguments[1])))
        }
        let matcher = StringMatcher()
        try connection.createFunction(match, argumentCount: 4) { arguments in
            try matcher.match(arguments)
        }
        try connection.createFunction(localizedSortKey, argumentCount: 1) { arguments in
            guard case .text(let text) = arguments[0] else { return .null }
            return .blob(Data(ObjectSortDescriptor.localizedSortKey(text)))
        }
        try registerCoreDataTriggerFunctions(on: connection, sources: coreDataSources)
    }

    /// The functions Core Data's own triggers call, which Core Data registers on its connections:
    /// a derived attribute's triggers (`Z_DA_…`) and Photos' counting triggers (`ZT_…`) keep the
    /// derived column up to date in SQL, then call one of these to tell Core Data's contexts
    /// which object's value changed (`('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT)`).
    static let coreDataTriggerFunctions = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue",
        "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataTriggerUpdateAffectedObjectValue",
    ]

    /// Registers Core Data's trigger functions, and any other `NSCoreData…` function the store's
    /// triggers call, so that writing fires those triggers instead of failing on "no such
    /// function". Each returns its last argument and does nothing else: the triggers' SQL has
    /// already stored the value; our contexts read it from the row, as after any save.
    ///
    /// `sources`: the SQL of the store's triggers and views that name `NSCoreData`, when the
    /// caller has read them (`SchemaFingerprint.Reading.coreDataSources`), so that opening a
    /// store reads its schema once (the query cost a twentieth of opening one).
    static func registerCoreDataTriggerFunctions(on connection: Connection, sources known: [String]? = nil) throws {
        var names = Set(coreDataTriggerFunctions)
        let pattern = #"\bNSCoreData[A-Za-z0-9_]*(?=\s*\()"#
        // LIKE ignores ASCII case and the pattern does not, so the case-sensitive filter of
        // the rows finds the same names.
        let sources = try known ?? connection.rows(
            "SELECT sql FROM sqlite_master WHERE type IN ('trigger', 'view') AND sql LIKE '%\(SchemaFingerprint.coreDataFunctionPrefix)%'"
        ) { $0.string(at: 0) ?? "" }
        if !sources.isEmpty, let expression = try? NSRegularExpression(pattern: pattern) {  // A constant pattern; it compiles.
            for sql in sources {
                let text = sql as NSString
                for match in expression.matches(in: sql, range: NSRange(location: 0, length: text.length)) {
                    names.insert(text.substring(with: match.range))
                }
            }
        }
        for name in names.sorted() {
            try connection.createFunction(name, argumentCount: -1, deterministic: false) { arguments in
                arguments.last ?? .null
            }
        }
    }

    /// The code `vacations_match` takes for a string operator; nil for the others.
    static func operatorCode(_ comparisonOperator: ComparisonOperator) -> Int? {
        switch comparisonOperator {
        case .beginsWith: return 1
        case .endsWith: return 2
        case .contains: return 3
        case .like: return 4
        case .matches: return 5
        default: return nil
        }
    }

    static func comparisonOperator(code: Int64) -> ComparisonOperator? {
        switch code {
        case 1: return .beginsWith
        case 2: return .endsWith
        case 3: return .contains
        case 4: return .like
        case 5: return .matches
        default: return nil
        }
    }

    /// The code of `[c]` (1), `[d]` (2), `[cd]` (3).
    static func optionsCode(_ options: StringComparisonOptions) -> Int { Int(options.rawValue) }

    static func options(_ value: SQLiteValue) -> StringComparisonOptions {
        StringComparisonOptions(rawValue: UInt8(truncatingIfNeeded: value.integerValue ?? 0))
    }
}

/// `vacations_match`'s state on one connection: the last right operand folded, and the
/// compiled regular expressions.
private final class StringMatcher {
    /// Compared by bytes: Swift's `==` would take "é" and "e\u{301}" for the same string.
    private var lastRight: [UInt8]?
    private var lastFolding = StringComparisonOptions()
    private var lastFolded = ""
    /// By bytes (`ExactString`): canonically equivalent patterns are different expressions.
    private var expressions: [ExactString: PredicateRegularExpression] = [:]
    private var caseInsensitiveExpressions: [ExactString: PredicateRegularExpression] = [:]
    private static let expressionLimit = 64

    func match(_ arguments: [SQLiteValue]) throws -> SQLiteValue {
        guard case .text(let string) = arguments[2], case .text(let other) = arguments[3],
              let comparisonOperator = StoreFunctions.comparisonOperator(code: arguments[0].integerValue ?? 0) else {
            return .integer(0)
        }
        let options = StoreFunctions.options(arguments[1])
        let folding = PredicateStringMatching.foldingOptions(for: comparisonOperator, options)
        if folding != lastFolding || lastRight.map({ !other.utf8.elementsEqual($0) }) ?? true {
            lastFolded = PredicateStringFolding.fold(other, options: folding)
            lastRight = Array(other.utf8)
            lastFolding = folding
        }
        let left = PredicateStringFolding.fold(string, options: folding)
        let matched = try PredicateStringMatching.evaluateFolded(comparisonOperator, left, lastFolded, options: options) {
            (pattern, caseInsensitive) throws(ObjectPredicateError) in
            try self.expression(pattern, caseInsensitive: caseInsensitive)
        }
        return .integer(matched ? 1 : 0)
    }

    private func expression(_ pattern: String, caseInsensitive: Bool) throws(ObjectPredicateError) -> PredicateRegularExpression {
        let key = ExactString(pattern)
        if let cached = caseInsensitive ? caseInsensitiveExpressions[key] : expressions[key] { return cached }
        let compiled = try PredicateRegularExpression(pattern, caseInsensitive: caseInsensitive)
        if expressions.count + caseInsensitiveExpressions.count >= Self.expressionLimit {
            expressions.removeAll()
            caseInsensitiveExpressions.removeAll()
        }
        if caseInsensitive { caseInsensitiveExpressions[key] = compiled } else { expressions[key] = compiled }
        return compiled
    }
}
