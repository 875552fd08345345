import Foundation
import SQLiteDB

/// A fetch that returns values, not objects: chosen properties, distinct rows, or groups with
/// `@count @sum @avg @min @max` (Core Data's dictionary result type).
///
/// ```swift
/// var request = DictionaryFetchRequest(entityName: "Photo", columns: [
///     .key("place.name", as: "place"), .count(as: "photos"), .aggregate(.min, of: "dateTaken", as: "first"),
/// ])
/// request.groupBy = ["place.name"]
/// request.sortDescriptors = [ObjectSortDescriptor("photos", ascending: false)]
/// let rows = try context.fetchDictionaries(request)   // [["place": "Kyoto", "photos": 10, "first": …], …]
/// ```
/// It reads the store as saved: unsaved changes of the context are not included. Values come
/// back as `PredicateValue`s: numbers (booleans as 0 and 1), strings, dates, data, and for a
/// to-one key path that ends at an object, the object's primary key (`Z_PK`).
public struct DictionaryFetchRequest: Sendable {
    /// One value of each result row.
    public enum Column: Sendable, Hashable {
        /// A key path's value (through to-one relationships; `tags.@count`-style aggregates of
        /// to-many relationships too), under its key path or the name given.
        case key(String, as: String? = nil)
        /// How many rows each group holds.
        case count(as: String)
        /// An aggregate of a key path over each group's rows.
        case aggregate(PredicateCollectionOperator, of: String, as: String)

        /// The key of this column in the result dictionaries.
        public var name: String {
            switch self {
            case .key(let path, let name): name ?? path
            case .count(let name), .aggregate(_, _, let name): name
            }
        }
    }

    /// The entity whose rows (and its subentities') are read.
    public var entityName: String
    /// Which rows to read; nil for all of them.
    public var predicate: ObjectPredicate?
    /// What each dictionary holds: key paths and aggregates, in order.
    public var columns: [Column]
    /// Key paths whose values form the groups.
    public var groupBy: [String]
    /// Drops repeated rows.
    public var distinct: Bool
    /// By column name or by key path.
    package var sortDescriptors: [ObjectSortDescriptor]
    /// At most this many dictionaries; nil for all.
    public var limit: Int?

    /// A request for `columns` of the rows of `entityName` matching `predicate`, grouped by `groupBy`.
    public init(entityName: String, predicate: ObjectPredicate? = nil, columns: [Column], groupBy: [String] = [],
                distinct: Bool = false, sortDescriptors: [ObjectSortDescriptor] = [], limit: Int? = nil) {
        self.entityName = entityName
        self.predicate = predicate
        self.columns = columns
        self.groupBy = groupBy
        self.distinct = distinct
        self.sortDescriptors = sortDescriptors
        self.limit = limit
    }
}

extension ObjectContext {
    /// Runs a dictionary fetch against the store in one query.
    ///
    /// - Throws: `FetchRequestError` for unknown entities, key paths or column names.
    public func fetchDictionaries(_ request: DictionaryFetchRequest) throws -> [[String: PredicateValue]] {
        let names = request.columns.map(\.name)
        return try fetchValues(request) { values in
            // Sized for its columns at once: grown from empty, each row's dictionary was copied
            // as it grew.
            var result = [String: PredicateValue](minimumCapacity: names.count)
            for (index, name) in names.enumerated() { result[name] = values[index] }
            return result
        }
    }

    /// The same fetch, each row's values in the order of the request's columns: no dictionary
    /// a row, for callers that read many rows of a few columns (`tags`' 2,000).
    package func fetchValueRows(_ request: DictionaryFetchRequest) throws -> [[PredicateValue]] {
        try fetchValues(request) { $0 }
    }

    private func fetchValues<Row: Sendable>(_ request: DictionaryFetchRequest, _ makeRow: ([PredicateValue]) -> Row) throws -> [Row] {
        guard let entity = model.entity(named: request.entityName) else {
            throw FetchRequestError("the model has no entity named \(request.entityName)")
        }
        let model = self.model
        return try coordinator.withStore { store in
            let (sql, arguments, kinds) = try DictionaryFetchCompiler(entity: entity, model: model).compile(request)
            return try store.connection.rows(sql, arguments) { row in
                makeRow(kinds.indices.map { DictionaryFetchCompiler.value(row.value(at: $0), kind: kinds[$0]) })
            }
        }
    }
}

/// Builds the SQL of a dictionary fetch with the predicate compiler's own paths and joins.
struct DictionaryFetchCompiler {
    let entity: Entity
    let model: ObjectModel

    func compile(_ request: DictionaryFetchRequest) throws -> (String, [SQLiteValue], [SQLValueKind?]) {
        guard !request.columns.isEmpty else { throw FetchRequestError("a dictionary fetch needs at least one column") }
        let names = request.columns.map(\.name)
        if let repeated = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw FetchRequestError("two columns of the dictionary fetch are named \(repeated)")
        }
        let compilation = PredicateSQLCompilation(entity: entity, model: model)
        var selections: [SQLFragment] = []
        var kinds: [SQLValueKind?] = []
        for column in request.columns {
            switch column {
            case .key(let path, _):
                let scalar = try self.scalar(path, compilation)
                selections.append(scalar.fragment)
                kinds.append(scalar.kind)
            case .count:
                selections.append(SQLFragment("count(*)"))
                kinds.append(.number)
            case .aggregate(let operation, let path, _):
                let scalar = try self.scalar(path, compilation)
                let function: String
                switch operation {
                case .count: function = "count"
                case .sum: function = "total"
                case .avg: function = "avg"
                case .min: function = "min"
                case .max: function = "max"
                }
                if [.sum, .avg].contains(operation), scalar.kind != .number {
                    throw FetchRequestError("@\(operation.rawValue) needs numbers, but \(path) is \(scalar.kind.phrase)")
                }
                selections.append("\(function)(" + scalar.fragment + ")")
                kinds.append([.min, .max].contains(operation) ? scalar.kind : .number)
            }
        }
        let groups = try request.groupBy.map { try scalar($0, compilation).fragment }
        let condition = try request.predicate.map { try compilation.condition($0, in: compilation.rootScope) } ?? .true
        var order: [SQLFragment] = []
        for descriptor in request.sortDescriptors {
            let term: SQLFragment
            if let index = request.columns.firstIndex(where: { $0.name == descriptor.keyPath }) {
                term = SQLFragment(String(index + 1))
            } else {
                term = try scalar(descriptor.keyPath, compilation).fragment
            }
            order.append(descriptor.ascending ? term : term + " DESC")
        }

        var statement = SQLFragment("SELECT " + (request.distinct ? "DISTINCT " : "")) + SQLFragment.joined(selections, separator: ", ")
        statement += SQLFragment(" FROM " + compilation.main.fromClause)
        var conditions: [SQLFragment] = []
        if let filter = entity.rowsCondition(in: model) {
            conditions.append(SQLFragment(filter))
        }
        if condition != .true { conditions.append("(" + condition.rendered(for: .or) + ")") }
        if !conditions.isEmpty { statement += " WHERE " + SQLFragment.joined(conditions, separator: " AND ") }
        if !groups.isEmpty { statement += " GROUP BY " + SQLFragment.joined(groups, separator: ", ") }
        if !order.isEmpty { statement += " ORDER BY " + SQLFragment.joined(order, separator: ", ") }
        if let limit = request.limit { statement += " LIMIT " + SQLFragment.bind(.integer(Int64(max(0, limit)))) }
        return (statement.text, statement.arguments, kinds)
    }

    private func scalar(_ path: String, _ compilation: PredicateSQLCompilation) throws -> SQLScalar {
        let expression: ObjectExpression
        do {
            expression = try PredicateParser.parseExpression(path)
        } catch {
            throw FetchRequestError("'\(path)' is not a key path: \(error)")
        }
        switch try compilation.value(of: expression, in: compilation.rootScope) {
        case .scalar(.expression(let scalar)):
            return scalar
        case .object(let handle):
            return SQLScalar(fragment: SQLFragment(handle.key), kind: .object(table: handle.entity.table), nullable: handle.nullable,
                             origin: path)
        default:
            throw FetchRequestError("'\(path)' does not give one value per \(entity.name); use an aggregate such as \(path).@count")
        }
    }

    static func value(_ stored: SQLiteValue, kind: SQLValueKind?) -> PredicateValue {
        switch (stored, kind) {
        case (.null, _): return .null
        case (_, .date?): return stored.realValue.map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case (.integer(let integer), _): return .int(integer)
        case (.real(let real), _): return .double(real)
        case (.text(let text), _): return .string(text)
        case (.blob(let data), _): return .data(data)
        }
    }
}
