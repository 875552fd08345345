import Foundation
import SQLiteDB

extension SQLiteStore {
    /// Renders key lists for `json_each(?)`, one statement for any count.
    static func jsonList(_ keys: some Sequence<Int64>) -> SQLiteValue {
        // One byte buffer: a `String` a key, joined, cost about 900 instructions a key (a
        // `photos` page's 290 tags and places fetched by key: 0.26 M). A key's own text is a
        // small string, made without allocating.
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(keys.underestimatedCount * 8 + 2)
        for key in keys {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: String(key).utf8)
        }
        bytes.append(UInt8(ascii: "]"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// What a query over many keys reads from: the rows of `table` (alias `t0`) whose keys are
    /// in the `json_each` list bound to its first parameter. The list is the outer loop and
    /// each key a rowid lookup: `t0.Z_PK IN (SELECT value FROM json_each(?))` made SQLite copy
    /// the list into a temporary index first (about 1,100 instructions a key: a `photos` page
    /// prefetches some 290 tags and places). The keys must be `uniqueAscending`, so that the
    /// rows come once each, in key order, as the `IN` gave them.
    static func rowsByKey(of table: String) -> String {
        "json_each(?) keys CROSS JOIN \(table) t0 WHERE t0.Z_PK = keys.value"
    }

    /// The keys once each, ascending (what `IN` made of a list).
    static func uniqueAscending(_ keys: [Int64]) -> [Int64] {
        var sorted = keys.sorted()
        var kept = 0
        for index in sorted.indices where kept == 0 || sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeSubrange(kept...)
        return sorted
    }

    /// The committed state of one object, or nil when its row does not exist.
    func snapshot(of id: ObjectID) throws -> ObjectSnapshot? {
        guard !id.isTemporary, let entity = model.entity(number: id.entityNumber) else { return nil }
        let reader = reader(forTable: entity.table)
        let statement = try connection.cachedStatement("SELECT \(reader.selectList) FROM \(entity.table) t0 WHERE t0.Z_PK = ?")
        statement.bind(id.primaryKey, at: 0)
        defer {
            statement.reset()
            reader.endQuery()
        }
        guard try statement.step() else { return nil }
        return reader.snapshot(statement)
    }

    /// The committed states of many objects, in one query per table; missing rows are left out.
    func snapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot] {
        var byTable: [String: [Int64]] = [:]
        for id in ids where !id.isTemporary {
            guard let entity = model.entity(number: id.entityNumber) else { continue }
            byTable[entity.table, default: []].append(id.primaryKey)
        }
        var result: [ObjectSnapshot] = []
        result.reserveCapacity(ids.count)
        for (table, keys) in byTable {
            let reader = reader(forTable: table)
            let statement = try connection.cachedStatement("SELECT \(reader.selectList) FROM \(Self.rowsByKey(of: table))")
            statement.bind(Self.jsonList(Self.uniqueAscending(keys)), at: 0)
            defer { reader.endQuery() }
            try statement.forEachRow { row in
                if let snapshot = reader.snapshot(row) { result.append(snapshot) }
            }
        }
        return result
    }

    /// Key lists up to this long are read a key at a time with a prepared `= ?`: SQLite builds
    /// a `json_each` list into a table of its own before it probes the index, which costs more
    /// than a few point lookups (a small save's version check, a lookup's prefetch).
    static let pointLookupLimit = 16

    /// `Z_OPT` of each object whose row exists.
    func versions(of ids: [ObjectID]) throws -> [ObjectID: Int64] {
        var byTable: [String: [Int64]] = [:]
        for id in ids where !id.isTemporary {
            guard let entity = model.entity(number: id.entityNumber) else { continue }
            byTable[entity.table, default: []].append(id.primaryKey)
        }
        var result: [ObjectID: Int64] = [:]
        for (table, keys) in byTable {
            if keys.count <= Self.pointLookupLimit {
                let statement = try connection.cachedStatement("SELECT Z_ENT, Z_OPT FROM \(table) WHERE Z_PK = ?")
                for key in keys {
                    statement.bind(key, at: 0)
                    try statement.forEachRow { row in result[ObjectID(entityNumber: row.int(at: 0), primaryKey: key)] = row.int64(at: 1) }
                }
                continue
            }
            let statement = try connection.cachedStatement("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT FROM \(Self.rowsByKey(of: table))")
            statement.bind(Self.jsonList(Self.uniqueAscending(keys)), at: 0)
            try statement.forEachRow { row in
                result[ObjectID(entityNumber: row.int(at: 1), primaryKey: row.int64(at: 0))] = row.int64(at: 2)
            }
        }
        return result
    }

    /// The members of a to-many relationship as stored.
    func relatedIDs(of id: ObjectID, relationship: EntityRelationship) throws -> [ObjectID] {
        guard !id.isTemporary else { return [] }
        return try relatedIDs(of: [id.primaryKey], relationship: relationship)[id.primaryKey] ?? []
    }

    /// The members of a to-many relationship for many sources at once, by source key.
    func relatedIDs(of sources: [Int64], relationship: EntityRelationship) throws -> [Int64: [ObjectID]] {
        var result: [Int64: [ObjectID]] = [:]
        try forEachRelated(of: sources, relationship: relationship) { source, target in
            result[source, default: []].append(target)
        }
        return result
    }

    /// Each (source key, member) of a to-many relationship for many sources at once, in no
    /// particular order.
    func forEachRelated(of sources: [Int64], relationship: EntityRelationship, _ body: (Int64, ObjectID) -> Void) throws {
        if sources.count <= Self.pointLookupLimit {
            guard let sql = relatedQuery(relationship, sourceCondition: "= ?") else { return }
            let statement = try connection.cachedStatement(sql)
            // A source listed twice is read once, as `IN` reads it.
            for (index, source) in sources.enumerated() where !sources[..<index].contains(source) {
                statement.bind(source, at: 0)
                try statement.forEachRow { row in
                    body(row.int64(at: 0), ObjectID(entityNumber: row.int(at: 2), primaryKey: row.int64(at: 1)))
                }
            }
            return
        }
        guard let sql = relatedQuery(relationship, sourceCondition: "IN (SELECT value FROM json_each(?))") else { return }
        let statement = try connection.cachedStatement(sql)
        statement.bind(Self.jsonList(sources), at: 0)
        try statement.forEachRow { row in
            body(row.int64(at: 0), ObjectID(entityNumber: row.int(at: 2), primaryKey: row.int64(at: 1)))
        }
    }

    /// The query of a to-many's (source key, member key, member entity) rows whose source key
    /// meets `sourceCondition`; nil for a to-one.
    func relatedQuery(_ relationship: EntityRelationship, sourceCondition: String) -> String? {
        let destination = model[relationship.destination]
        let destinationTable = destination.table
        let single = destination.hierarchy.count == 1
        switch relationship.storage {
        case .foreignKey:
            return nil
        case .inverseForeignKey(let column, _):
            return "SELECT \(column), Z_PK, Z_ENT FROM \(destinationTable) WHERE \(column) \(sourceCondition)"
                + (single ? "" : " AND Z_ENT IN (\(destination.hierarchy.map(String.init).joined(separator: ", ")))")
        case .joinTable(let table, let sourceColumn, let destinationColumn):
            if single {
                return "SELECT \(sourceColumn), \(destinationColumn), \(destination.number) FROM \(table)"
                    + " WHERE \(sourceColumn) \(sourceCondition)"
            }
            return "SELECT j.\(sourceColumn), j.\(destinationColumn), d.Z_ENT FROM \(table) j"
                + " JOIN \(destinationTable) d ON d.Z_PK = j.\(destinationColumn)"
                + " WHERE j.\(sourceColumn) \(sourceCondition)"
        }
    }
}
