import Foundation
import SQLiteDB

extension SQLiteStore {
    /// The IDs of the rows matching a search, best first: one query joining the search index to
    /// the entity's table, the predicate compiled as a fetch's would be.
    func searchIDs(_ plan: SearchPlan) throws -> [ObjectID] {
        let entity = model[plan.fetch.entity]
        let query = try compiledQuery(entity: entity, predicate: plan.fetch.predicate, sortDescriptors: plan.fetch.sortDescriptors)
        let index = plan.index.name
        // FTS5 accepts MATCH and bm25() on the table's own name only, not on an alias.
        var conditions = ["\(index) MATCH ?", "t0.Z_PK = \(index).rowid"]
        let numbers = plan.fetch.includesSubentities ? entity.hierarchy : [entity.number]
        if let filter = EntityRowFilter.condition(numbers, tableEntities: model[entity.root].hierarchy.count) {
            conditions.append(filter)
        }
        if let whereClause = query.whereClause { conditions.append("(\(whereClause))") }
        var sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(index) JOIN \(query.from) WHERE " + conditions.joined(separator: " AND ")
            + " ORDER BY bm25(\(index)), " + (query.orderBy ?? "t0.Z_PK")
        var arguments: [SQLiteValue] = [.text(plan.match)] + query.arguments
        if plan.fetch.limit != nil || plan.fetch.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments.append(.integer(Int64(plan.fetch.limit ?? -1)))
            arguments.append(.integer(Int64(max(0, plan.fetch.offset))))
        }
        let statement = try connection.cachedStatement(sql)
        statement.bind(arguments)
        var result: [ObjectID] = []
        try statement.forEachRow { row in
            result.append(ObjectID(entityNumber: row.int(at: 1), primaryKey: row.int64(at: 0)))
        }
        return result
    }
}

extension ObjectContext {
    /// The objects whose searchable text holds every word of `text`, best match first (FTS5's
    /// bm25, then by primary key). See `SearchQuery` for the language: words in any order,
    /// case and diacritics ignored, `word*` a prefix.
    ///
    /// ```swift
    /// let photos = try context.search(Photo.self, matching: "belem lis*", limit: 20)
    /// ```
    ///
    /// The search runs in the store: changes this context (or a parent) has not saved are not
    /// searched, though the objects returned show them.
    ///
    /// - Throws: `SearchQueryError` for text without words or an entity without a search index,
    ///   `SQLiteError`.
    public func search<T: ManagedObject>(_ type: T.Type, matching text: String, limit: Int? = nil) throws -> [T] {
        try search(SearchRequest<T>(text, limit: limit))
    }

    /// The objects matching a search request, best match first.
    ///
    /// - Throws: `SearchQueryError`, `FetchRequestError` for a predicate or sort key the entity
    ///   does not have, `SQLiteError`.
    public func search<T: ManagedObject>(_ request: SearchRequest<T>) throws -> [T] {
        let ids = try searchObjectIDs(request)
        let missing = ids.filter { registry[resolve($0)]?.isFault ?? true }
        if !missing.isEmpty {
            for snapshot in try source.snapshots(of: missing) { _ = register(snapshot) }
        }
        let objects = ids.compactMap { id -> ManagedObject? in
            guard let object = registry[resolve(id)], !object.isDeleted, !object.isFault else { return nil }
            return object
        }
        for keyPath in request.relationshipKeyPathsForPrefetching {
            try prefetch(keyPath: keyPath, of: objects)
        }
        return objects.compactMap { $0 as? T }
    }

    /// The IDs of the objects matching a search request, best match first, without loading them.
    public func searchObjectIDs<T: ManagedObject>(_ request: SearchRequest<T>) throws -> [ObjectID] {
        let plan = try searchPlan(for: request)
        drainInbox()
        return try coordinator.withStore { try $0.searchIDs(plan) }
    }

    func searchPlan<T: ManagedObject>(for request: SearchRequest<T>) throws -> SearchPlan {
        var fetch = FetchRequest<T>(entityName: request.entityName, predicate: request.predicate,
                                    sortedBy: request.sortDescriptors, limit: request.fetchLimit, offset: request.fetchOffset)
        fetch.includesPendingChanges = false
        let plan = try self.plan(for: fetch)
        let entity = model[plan.entity]
        guard let index = model.searchIndex(for: entity) else {
            throw SearchQueryError("\(entity.name) has nothing searchable: declare its text with @Attribute(searchable: true) "
                + "or @Relationship(inverse:searchable:)")
        }
        return SearchPlan(fetch: plan, index: index, match: request.query.matchExpression)
    }
}
