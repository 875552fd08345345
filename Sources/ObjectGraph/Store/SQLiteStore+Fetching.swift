import Foundation
import SQLiteDB

extension SQLiteStore {
    /// The SQL and arguments of a fetch; `columns` is what to select.
    private func statementText(_ plan: FetchPlan, columns: String, counting: Bool) throws -> (String, [SQLiteValue]) {
        let entity = model[plan.entity]
        let query = try compiledQuery(entity: entity, predicate: plan.predicate, sortDescriptors: counting ? [] : plan.sortDescriptors)
        var sql = "SELECT \(columns) FROM \(query.from)"
        var conditions: [String] = []
        let numbers = plan.includesSubentities ? entity.hierarchy : [entity.number]
        if let filter = EntityRowFilter.condition(numbers, tableEntities: model[entity.root].hierarchy.count) {
            conditions.append(filter)
        }
        if let whereClause = query.whereClause { conditions.append("(\(whereClause))") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        var arguments = query.arguments
        if !counting {
            sql += " ORDER BY " + (query.orderBy ?? "t0.Z_PK")
            if plan.limit != nil || plan.offset > 0 {
                sql += " LIMIT ? OFFSET ?"
                arguments.append(.integer(Int64(plan.limit ?? -1)))
                arguments.append(.integer(Int64(max(0, plan.offset))))
            }
        }
        return (sql, arguments)
    }

    /// The compiled SQL of a predicate and order, compiled once per store.
    ///
    /// A predicate that carries a long list of constants (an import's `unique IN {5,000 ids}`,
    /// different for every chunk) is compiled each time and not kept: it would never be asked
    /// for again, hashing it costs as much as compiling it, and the cache would hold every
    /// chunk's ids (and their JSON argument) until 512 others pushed them out — memory that grew
    /// with the feed (README.md, "Performance").
    ///
    /// A predicate with a shape (`PredicateShape`: its SQL depends only on the kinds of its
    /// constants, such as a lookup by one id or a few names) is kept once per shape, its
    /// constants bound anew each time; others are kept by their values.
    func compiledQuery(entity: Entity, predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor]) throws -> SQLFetchQuery {
        if let predicate, let shape = PredicateShape(predicate),
           let query = try shapedQuery(shape, predicate: predicate, entity: entity, sortDescriptors: sortDescriptors) {
            return query
        }
        if let predicate, !predicate.isWorthCaching {
            return try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: sortDescriptors, entity: entity, model: model)
        }
        let key = CompiledQueryKey(entity: entity.number, predicate: predicate, sortDescriptors: sortDescriptors)
        if case .exact(let query) = compiledQueries.value(forKey: key) { return query }
        let query = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: sortDescriptors, entity: entity, model: model)
        compiledQueries.insert(.exact(query), forKey: key)
        return query
    }

    /// The query of `predicate` from its shape's template, made and kept on first use; nil when
    /// the shape has no template (compile by value then).
    ///
    /// A template is the query compiled from the stand-ins, kept only if every argument is a
    /// stand-in's value or a boolean the shape keeps, and if it gives, bound with this
    /// predicate's constants, exactly the query compiled from the predicate itself. A stand-in
    /// predicate that does not compile says nothing about the real one, which is compiled and
    /// throws its own error (naming its own constants).
    private func shapedQuery(_ shape: PredicateShape, predicate: ObjectPredicate, entity: Entity,
                             sortDescriptors: [ObjectSortDescriptor]) throws -> SQLFetchQuery? {
        let key = CompiledQueryKey(entity: entity.number, predicate: shape.standIn, sortDescriptors: sortDescriptors, isShape: true)
        switch compiledQueries.value(forKey: key) {
        case .template(let query, let sources):
            return query.binding(shape.values, sources: sources)
        case .byValue:
            return nil
        case .exact, nil:
            break
        }
        let exact = try PredicateSQLCompiler.compile(predicate: predicate, sortDescriptors: sortDescriptors, entity: entity, model: model)
        // A stand-in's error would name a stand-in: the real predicate compiled, so the shape just has no template.
        guard let standIn = try? PredicateSQLCompiler.compile(predicate: shape.standIn, sortDescriptors: sortDescriptors,
                                                              entity: entity, model: model),
              let sources = standIn.argumentSources(for: shape),
              standIn.binding(shape.values, sources: sources) == exact else {
            compiledQueries.insert(.byValue, forKey: key)
            return nil
        }
        compiledQueries.insert(.template(standIn, sources), forKey: key)
        return exact
    }

    /// Rows matching `plan`, in its order and window.
    func fetch(_ plan: FetchPlan) throws -> [ObjectSnapshot] {
        var result: [ObjectSnapshot] = []
        try fetch(plan) { result.append($0) }
        return result
    }

    /// The rows matching `plan`, handed to `body` one by one as SQLite steps to them.
    func fetch(_ plan: FetchPlan, each body: (ObjectSnapshot) -> Void) throws {
        let reader = reader(forTable: model[plan.entity].table)
        let (sql, arguments) = try statementText(plan, columns: reader.selectList, counting: false)
        let statement = try connection.cachedStatement(sql)
        statement.bind(arguments)
        defer { reader.endQuery() }
        try statement.forEachRow { row in
            if let snapshot = reader.snapshot(row) { body(snapshot) }
        }
    }

    /// IDs of the rows matching `plan`, in its order and window.
    func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        let (sql, arguments) = try statementText(plan, columns: "t0.Z_PK, t0.Z_ENT", counting: false)
        let statement = try connection.cachedStatement(sql)
        statement.bind(arguments)
        var result: [ObjectID] = []
        try statement.forEachRow { row in
            result.append(ObjectID(entityNumber: row.int(at: 1), primaryKey: row.int64(at: 0)))
        }
        return result
    }

    /// How many rows match `plan` (its window applied).
    func count(_ plan: FetchPlan) throws -> Int {
        let (sql, arguments) = try statementText(plan, columns: "count(*)", counting: true)
        let total = Int(try connection.scalar(sql, arguments)?.integerValue ?? 0)
        let afterOffset = max(0, total - max(0, plan.offset))
        return plan.limit.map { min($0, afterOffset) } ?? afterOffset
    }
}

extension ObjectPredicate {
    /// Most constants (list elements counted one by one) that a predicate kept in the compiled
    /// query cache holds.
    static let cachedConstantLimit = 64

    /// Whether the predicate holds at most `cachedConstantLimit` constants: a predicate a caller
    /// asks for again (a screen's fetch, a lookup by one name) rather than one made for a batch.
    var isWorthCaching: Bool {
        var budget = Self.cachedConstantLimit
        return fits(within: &budget)
    }

    /// Spends `budget` on the constants; false as soon as it runs out.
    fileprivate func fits(within budget: inout Int) -> Bool {
        switch self {
        case .true, .false:
            return true
        case .and(let terms), .or(let terms):
            return terms.allSatisfy { $0.fits(within: &budget) }
        case .not(let inner):
            return inner.fits(within: &budget)
        case .comparison(let comparison):
            return comparison.lhs.fits(within: &budget) && comparison.rhs.fits(within: &budget)
        }
    }
}

extension ObjectExpression {
    fileprivate func fits(within budget: inout Int) -> Bool {
        switch self {
        case .constant(let value):
            budget -= value.constantCount
            return budget >= 0
        case .keyPath, .variable:
            return true
        case .member(let base, _), .collectionOperator(_, let base, _):
            return base.fits(within: &budget)
        case .aggregate(let elements):
            return elements.allSatisfy { $0.fits(within: &budget) }
        case .subquery(let collection, _, let predicate):
            return collection.fits(within: &budget) && predicate.fits(within: &budget)
        }
    }
}

extension PredicateValue {
    /// One for a single value, the elements (at any depth) for a list.
    fileprivate var constantCount: Int {
        guard case .array(let elements) = self else { return 1 }
        return elements.reduce(0) { $0 + $1.constantCount }
    }
}
