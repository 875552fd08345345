import Foundation
import SQLiteDB

/// Writes a store's persistent history: one `ATRANSACTION` row per committed save or batch
/// operation and one `ACHANGE` row per object it inserted, updated or deleted, inside the
/// transaction (or savepoint) that writes the data, so that history survives a crash exactly as
/// the data does. Not `Sendable`: the store that owns it is guarded by its coordinator.
final class HistoryRecorder {
    private let model: ObjectModel
    private let connection: Connection
    /// Tombstone columns the store's `ACHANGE` has.
    private let tombstoneColumns: Int
    private var layouts: [Int: HistoryLayout] = [:]
    private var insertChange: Statement?
    private var insertTransaction: Statement?
    /// Written as the process name and, lacking a bundle identifier, as the bundle id. Looked
    /// up at the first write, not at open: finding the main bundle lists the executable's
    /// folder (about 23 M instructions for a binary among 10,000 files), which a reader never needs.
    private(set) lazy var processName: String = ProcessInfo.processInfo.processName
    private(set) lazy var bundleIdentifier: String = Bundle.main.bundleIdentifier ?? processName
    /// The author of writes whose context names none (batch operations, the coordinator's own).
    var defaultAuthor: String?
    /// Transactions this store wrote, oldest first, so that a watcher of other processes'
    /// commits skips them; a rolled-back write takes its entries back (`forgetWritten(since:)`).
    /// Kept only while `remembersWritten` (while the coordinator observes other processes).
    private(set) var written: [Int64] = []
    var remembersWritten = false {
        didSet { if !remembersWritten { written = [] } }
    }

    init(model: ObjectModel, connection: Connection) throws {
        self.model = model
        self.connection = connection
        tombstoneColumns = try HistorySchema.storedTombstoneCount(on: connection)
    }

    func layout(of entityNumber: Int) -> HistoryLayout? {
        if let layout = layouts[entityNumber] { return layout }
        guard let entity = model.entity(number: entityNumber) else { return nil }
        let layout = HistoryLayout(entity: entity)
        layouts[entityNumber] = layout
        return layout
    }

    // MARK: Own transactions

    var writtenMark: Int { written.count }

    /// Takes back what was written after `mark`: those rows were rolled back.
    func forgetWritten(since mark: Int) {
        if mark < written.count { written.removeSubrange(mark...) }
    }

    /// Lets go of own transactions up to `key`: a watcher has read past them.
    func dropWritten(through key: Int64) {
        written.removeAll { $0 <= key }
    }

    // MARK: Tombstones

    /// The preserved attributes' stored values of objects about to be deleted, read before
    /// their rows go; objects of entities that preserve nothing are left out.
    func tombstones(of ids: [ObjectID]) throws -> [ObjectID: [SQLiteValue]] {
        guard tombstoneColumns > 0 else { return [:] }
        var result: [ObjectID: [SQLiteValue]] = [:]
        for id in ids where !id.isTemporary {
            guard let entity = model.entity(number: id.entityNumber), let layout = layout(of: id.entityNumber),
                  !layout.tombstoneSlots.isEmpty else { continue }
            let columns = layout.tombstoneSlots.compactMap { entity.attributes[$0].column }
            let statement = try connection.cachedStatement(
                "SELECT \(columns.joined(separator: ", ")) FROM \(entity.table) WHERE Z_PK = ?")
            statement.bind(id.primaryKey, at: 0)
            defer { statement.reset() }
            guard try statement.step() else { continue }
            result[id] = columns.indices.map { statement.value(at: $0) }
        }
        return result
    }

    // MARK: Writing

    /// Records a change set as one history transaction; writes nothing for an empty one.
    func record(_ changeSet: ChangeSet, tombstones: [ObjectID: [SQLiteValue]] = [:],
                author: String?, contextName: String?) throws {
        guard !changeSet.isEmpty else { return }
        let inserted = changeSet.inserted.sorted(by: Self.keyOrder)
        let updated = changeSet.updated.subtracting(changeSet.inserted).subtracting(changeSet.deleted).sorted(by: Self.keyOrder)
        let deleted = changeSet.deleted.sorted(by: Self.keyOrder)
        try record(inserted: inserted, updated: updated.map { ($0, changeSet.changedKeys[$0] ?? []) }, deleted: deleted,
                   tombstones: tombstones, author: author, contextName: contextName)
    }

    /// Records one history transaction with its changes in the order given.
    func record(inserted: [ObjectID], updated: [(ObjectID, Set<String>)], deleted: [ObjectID],
                tombstones: [ObjectID: [SQLiteValue]], author: String?, contextName: String?) throws {
        let count = inserted.count + updated.count + deleted.count
        guard count > 0 else { return }
        let transaction = try reserveKeys(entity: HistorySchema.transactionEntity, table: "ATRANSACTION", count: 1)
        let statement = try transactionStatement()
        statement.bind(transaction, at: 0)
        bindString(try author.map { try intern($0) }, statement, 1)
        bindString(try intern(bundleIdentifier), statement, 2)
        bindString(try contextName.map { try intern($0) }, statement, 3)
        bindString(try intern(processName), statement, 4)
        statement.bind(Date().timeIntervalSinceReferenceDate, at: 5)
        try statement.run()

        var key = try reserveKeys(entity: HistorySchema.changeEntity, table: "ACHANGE", count: count)
        let change = try changeStatement()
        func write(_ id: ObjectID, type: Int64, columns: [UInt8]?, tombstone: [SQLiteValue]?) throws {
            change.bind(key, at: 0)
            change.bind(type, at: 1)
            change.bind(Int64(id.entityNumber), at: 2)
            change.bind(id.primaryKey, at: 3)
            change.bind(transaction, at: 4)
            if let columns { change.bind(Data(columns), at: 5) } else { change.bindNull(at: 5) }
            for index in 0..<tombstoneColumns {
                if let tombstone, index < tombstone.count { change.bind(tombstone[index], at: 6 + index) } else { change.bindNull(at: 6 + index) }
            }
            try change.run()
            key += 1
        }
        if let run = Self.consecutiveRun(inserted), inserted.count > 1 {
            // A batch insert's new objects: one statement writes their rows (a row at a time
            // through the bindings cost more than SQLite's own work).
            try connection.cachedStatement("""
                WITH RECURSIVE offsets(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM offsets WHERE n + 1 < ?1)
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                SELECT ?2 + n, \(HistorySchema.changeEntity), NULL, \(HistorySchema.insertType), ?3, ?4 + n, ?5, NULL FROM offsets
                """).run([.integer(Int64(inserted.count)), .integer(key), .integer(Int64(run.entityNumber)),
                          .integer(run.primaryKey), .integer(transaction)])
            key += Int64(inserted.count)
        } else {
            for id in inserted { try write(id, type: HistorySchema.insertType, columns: nil, tombstone: nil) }
        }
        for (id, keys) in updated {
            let columns = layout(of: id.entityNumber)?.columns(for: keys) ?? []
            try write(id, type: HistorySchema.updateType, columns: columns, tombstone: nil)
        }
        for id in deleted { try write(id, type: HistorySchema.deleteType, columns: nil, tombstone: tombstones[id]) }
        if remembersWritten { written.append(transaction) }
    }

    private func bindString(_ key: Int64?, _ statement: Statement, _ index: Int) {
        if let key { statement.bind(key, at: index) } else { statement.bindNull(at: index) }
    }

    /// The key of `name` in `ATRANSACTIONSTRING`, added when missing (strings are interned, as
    /// Core Data interns them: the transaction's `…TS` columns point at them).
    private func intern(_ name: String) throws -> Int64 {
        let lookup = try connection.cachedStatement("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")
        lookup.bind(name, at: 0)
        let found: Int64? = try lookup.step() ? lookup.int64(at: 0) : nil
        lookup.reset()
        if let found { return found }
        let key = try reserveKeys(entity: HistorySchema.stringEntity, table: "ATRANSACTIONSTRING", count: 1)
        try connection.cachedStatement("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)")
            .run([.integer(key), .integer(Int64(HistorySchema.stringEntity)), .text(name)])
        return key
    }

    /// Hands out `count` keys of one of the history entities, never one already in its table.
    private func reserveKeys(entity: Int, table: String, count: Int) throws -> Int64 {
        let current = try connection.cachedStatement("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
        current.bind(Int64(entity), at: 0)
        let stored = try current.step() ? current.int64(at: 0) : 0
        current.reset()
        let highest = try connection.cachedStatement("SELECT max(Z_PK) FROM \(table)")
        let inTable = try highest.step() ? highest.int64(at: 0) : 0
        highest.reset()
        let first = max(stored, inTable) + 1
        try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            .run([.integer(first + Int64(count) - 1), .integer(Int64(entity))])
        return first
    }

    private func transactionStatement() throws -> Statement {
        if let insertTransaction { return insertTransaction }
        let statement = try connection.prepare(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) "
                + "VALUES (?1, \(HistorySchema.transactionEntity), NULL, ?2, ?3, ?4, ?5, ?6)")
        insertTransaction = statement
        return statement
    }

    private func changeStatement() throws -> Statement {
        if let insertChange { return insertChange }
        let tombstones = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
        let placeholders = (0..<tombstoneColumns).map { ", ?\($0 + 7)" }.joined()
        let statement = try connection.prepare(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstones)) "
                + "VALUES (?1, \(HistorySchema.changeEntity), NULL, ?2, ?3, ?4, ?5, ?6\(placeholders))")
        insertChange = statement
        return statement
    }

    /// The first ID when `ids` are one entity's consecutive keys in ascending order.
    static func consecutiveRun(_ ids: [ObjectID]) -> ObjectID? {
        guard let first = ids.first else { return nil }
        for (offset, id) in ids.enumerated() where id.entityNumber != first.entityNumber || id.primaryKey != first.primaryKey + Int64(offset) {
            return nil
        }
        return first
    }

    static func keyOrder(_ left: ObjectID, _ right: ObjectID) -> Bool {
        left.entityNumber != right.entityNumber ? left.entityNumber < right.entityNumber : left.primaryKey < right.primaryKey
    }
}
