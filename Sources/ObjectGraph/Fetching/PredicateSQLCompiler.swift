import Foundation
import SQLiteDB

/// The SQL pieces of a fetch against one entity's table, aliased t0.
///
/// The joins in `from` never multiply rows (to-one joins are on primary keys; to-many paths
/// live in sub-selects), so LIMIT and OFFSET count objects. `whereClause` may be an OR at its
/// top: parenthesize it before adding `AND t0.Z_ENT IN (…)`. A predicate that compiles to a
/// constant true (TRUEPREDICATE, or `title != 5` on a string attribute) has no where clause;
/// a constant false is `"0"`.
///
/// ```swift
/// let query = try PredicateSQLCompiler.compile(
///     predicate: ObjectPredicate(format: "place.name == %@", "Lisbon"),
///     sortDescriptors: [ObjectSortDescriptor("dateTaken", ascending: false)], entity: photo, model: model)
/// query.from          // "ZPHOTO t0 LEFT JOIN ZPLACE t1 ON t1.Z_PK = t0.ZPLACE"
/// query.whereClause   // "t1.ZNAME = ?"
/// query.orderBy       // "t0.ZDATETAKEN DESC, t0.Z_PK"
/// query.arguments     // [.text("Lisbon")]
/// ```
struct SQLFetchQuery: Sendable, Equatable {
    /// e.g. "ZPHOTO t0 LEFT JOIN ZPLACE t1 ON t1.Z_PK = t0.ZPLACE"
    var from: String
    /// Without the WHERE keyword; nil when the predicate is TRUEPREDICATE/nil. True for the rows
    /// that match; false or NULL for the others.
    var whereClause: String?
    /// Without ORDER BY; nil when no sort descriptors.
    var orderBy: String?
    /// Bound in order: all of where's, then order by's.
    var arguments: [SQLiteValue]
}

/// Compiles predicates and sort descriptors to SQL over Core Data's tables, with exactly the
/// answers of `PredicateEvaluator` and the order of `ObjectSortDescriptor.compare`.
///
/// - Every constant is a `?` argument; the SQL text holds only table and column names from the
///   model, keywords, and the small integer codes of the store functions (`StoreFunctions`).
/// - Key paths through to-one relationships become LEFT JOINs (t1, t2, … one per path);
///   through to-many relationships, correlated sub-selects (aliases s1, j2, …) under `EXISTS`,
///   `NOT EXISTS` or an aggregate.
/// - Values of kinds that never compare in the evaluator (a string and a number, a date and a
///   number, …) are decided at compile time from the model's attribute types.
/// - Plain string comparisons use SQLite's BINARY order (UTF-8 bytes, as the evaluator);
///   `[c]`, `[d]` and the string operators call the evaluator's own Swift code through the
///   functions that `StoreFunctions` registers.
enum PredicateSQLCompiler {
    /// Compiles a fetch's predicate and sort descriptors for `entity`'s table.
    ///
    /// Throws `FetchRequestError` for a key path the entity does not have, an operator that
    /// does not apply (e.g. BEGINSWITH on a Date attribute), or an unsubstituted $VARIABLE.
    static func compile(predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor], entity: Entity,
                        model: ObjectModel) throws -> SQLFetchQuery {
        let compilation = PredicateSQLCompilation(entity: entity, model: model)
        let condition = try predicate.map { try compilation.condition($0, in: compilation.rootScope) } ?? .true
        let order = try compilation.orderBy(sortDescriptors)
        let whereFragment = condition == .true ? nil : condition.rendered(for: .or)
        return SQLFetchQuery(from: compilation.main.fromClause, whereClause: whereFragment?.text, orderBy: order,
                             arguments: whereFragment?.arguments ?? [])
    }

    /// Validates key paths only (cheap), for requests that are compiled later.
    ///
    /// Free `$VARIABLE`s are allowed here (a template is validated before it is substituted);
    /// key paths read from them are not checked.
    ///
    /// - Throws: `FetchRequestError` for a key path the entity does not have (or that reads a
    ///   transient attribute, or follows a key from an attribute), or a sort key path that does
    ///   not end at an attribute through to-one relationships.
    static func validate(predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor], entity: Entity,
                         model: ObjectModel) throws {
        let validator = PredicateKeyPathValidator(entity: entity, model: model)
        if let predicate { try validator.validate(predicate, in: .init(current: .entity(entity, origin: "SELF"), variables: [:])) }
        _ = try PredicateSQLCompilation(entity: entity, model: model).orderBy(sortDescriptors)
    }
}

/// A fetch request that cannot run: a key path the entity does not have, an operator that
/// does not apply to its operands, a variable left unsubstituted.
///
/// ```swift
/// do { _ = try PredicateSQLCompiler.compile(predicate: …, sortDescriptors: [], entity: photo, model: model) }
/// catch { print(error) }   // Photo has no attribute or relationship named 'plaec' (key path 'plaec.name')
/// ```
public struct FetchRequestError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    /// Why the request cannot run, naming the key path or operator at fault.
    public var description: String { message }
}

extension FetchRequestError {
    /// An error with `message` (the memberwise `init(message:)` stays available too).
    public init(_ message: String) {
        self.init(message: message)
    }
}

/// The state of one compilation: the fetch's FROM scope and the alias counter of sub-selects.
final class PredicateSQLCompilation {
    let model: ObjectModel
    let entity: Entity
    /// `<table> t0` and its LEFT JOINs.
    private(set) lazy var main = SQLFromScope(compilation: self, first: "\(entity.table) t0", isMain: true)
    private var nextSubselectAlias = 1
    /// Decides comparisons between constants with the evaluator's own code.
    let constantEvaluator = PredicateEvaluator(.true)

    init(entity: Entity, model: ObjectModel) {
        self.entity = entity
        self.model = model
    }

    /// The fetched row (`SELF`).
    var root: SQLObjectHandle {
        SQLObjectHandle(entity: entity, key: Self.rootKey, nullable: false, scope: main, alias: "t0", origin: "SELF")
    }

    var rootScope: SQLLexicalScope { SQLLexicalScope(current: .object(root), variables: [:]) }

    /// `s<n>` for entity tables and `j<n>` for join tables, numbered across the whole query.
    /// The fetched object's key.
    static let rootKey = "t0.Z_PK"

    /// Whether `sql` names a column of the fetch's own tables (`t0.`, `t1.`, …): sub-select
    /// aliases are `s` and `j` with a number, and values are never in the text (they are bound).
    static func refersToMainAliases(_ sql: String) -> Bool {
        let bytes = Array(sql.utf8)
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func continuesWord(_ byte: UInt8) -> Bool {
            isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "t") {
            if index > 0 && continuesWord(bytes[index - 1]) { continue }
            var end = index + 1
            while end < bytes.count && isDigit(bytes[end]) { end += 1 }
            if end > index + 1 && end < bytes.count && bytes[end] == UInt8(ascii: ".") { return true }
        }
        return false
    }

    func newSubselectAlias(joinTable: Bool) -> String {
        defer { nextSubselectAlias += 1 }
        return (joinTable ? "j" : "s") + String(nextSubselectAlias)
    }

    // MARK: Predicates

    func condition(_ predicate: ObjectPredicate, in scope: SQLLexicalScope) throws -> SQLCondition {
        switch predicate {
        case .true:
            return .true
        case .false:
            return .false
        case .and(let operands):
            return .and(try operands.map { try condition($0, in: scope) })
        case .or(let operands):
            return .or(try operands.map { try condition($0, in: scope) })
        case .not(let operand):
            return .not(try condition(operand, in: scope))
        case .comparison(let comparison):
            return try condition(for: comparison, in: scope)
        }
    }

    // MARK: Sorting

    /// `ORDER BY` terms for the descriptors, then `t0.Z_PK`; nil without descriptors.
    func orderBy(_ descriptors: [ObjectSortDescriptor]) throws -> String? {
        guard !descriptors.isEmpty else { return nil }
        var terms: [String] = []
        for descriptor in descriptors {
            let (column, type) = try sortColumn(descriptor.keyPath)
            var term = column
            if SQLValueKind(type) == .string {
                switch descriptor.comparison {
                case .binary: break
                case .caseInsensitive: term = "\(StoreFunctions.fold)(\(column), \(StoreFunctions.optionsCode(.caseInsensitive)))"
                case .localized: term = "\(StoreFunctions.localizedSortKey)(\(column))"
                }
            }
            terms.append(descriptor.ascending ? term : term + " DESC")
        }
        terms.append("t0.Z_PK")
        return terms.joined(separator: ", ")
    }

    /// The column a sort key path reads, through to-one relationships only.
    private func sortColumn(_ keyPath: String) throws -> (String, AttributeType) {
        var keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if keys.first?.uppercased() == "SELF" { keys.removeFirst() }
        var handle = root
        var position = 0
        while position < keys.count {
            let key = handle.entity.key(in: keys, at: &position)
            switch try property(key, of: handle.entity, fullPath: keyPath) {
            case .attribute(let attribute, let column):
                guard position == keys.count else {
                    throw FetchRequestError("Cannot sort by '\(keyPath)': \(key) is an attribute of \(handle.entity.name), with no key '\(keys[position])'")
                }
                return ("\(handle.rowAlias()).\(column)", attribute.type)
            case .relationship(let relationship, let destination):
                guard !relationship.isToMany else {
                    throw FetchRequestError("Cannot sort by '\(keyPath)': \(key) is a to-many relationship of \(handle.entity.name)")
                }
                guard case .foreignKey(let column, _) = relationship.storage else {
                    throw FetchRequestError("Cannot sort by '\(keyPath)': \(key) has no column")
                }
                handle = SQLObjectHandle(entity: destination, key: "\(handle.rowAlias()).\(column)", nullable: true,
                                         scope: main, alias: nil, origin: key)
            }
        }
        throw FetchRequestError("Cannot sort by '\(keyPath)': a sort key path must end at an attribute")
    }
}

/// What plain key paths and variables mean where an expression is compiled: the fetched
/// object at the top, the element inside a SUBQUERY.
struct SQLLexicalScope {
    var current: SQLCompiledValue
    var variables: [String: SQLCompiledValue]
}
