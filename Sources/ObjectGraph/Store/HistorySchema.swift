import Foundation
import SQLiteDB

/// Core Data's persistent history tables, exactly as an Apple-made store that tracks history has
/// them (`NSPersistentHistoryTrackingKey`): `ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`, their
/// indexes, and their `Z_PRIMARYKEY` rows 16001 `CHANGE`, 16002 `TRANSACTION`, 16003
/// `TRANSACTIONSTRING` (ARCHITECTURE.md §9).
///
/// `ACHANGE` has one `ZTOMBSTONE<i> BLOB` column per attribute marked "preserve after deletion"
/// in the entity with most of them (Photos.sqlite: MomentShare has four, so `ZTOMBSTONE0…3`).
enum HistorySchema {
    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003

    static let entityRows: [(number: Int, name: String)] = [
        (changeEntity, "CHANGE"), (transactionEntity, "TRANSACTION"), (stringEntity, "TRANSACTIONSTRING"),
    ]

    /// `NSPersistentHistoryChangeType`.
    static let insertType: Int64 = 0
    static let updateType: Int64 = 1
    static let deleteType: Int64 = 2

    static func createChangeTableSQL(tombstones: Int) -> String {
        let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZCHANGETYPE INTEGER", "ZENTITY INTEGER",
                       "ZENTITYPK INTEGER", "ZTRANSACTIONID INTEGER", "ZCOLUMNS BLOB"]
            + (0..<tombstones).map { "ZTOMBSTONE\($0) BLOB" }
        return "CREATE TABLE ACHANGE ( \(columns.joined(separator: ", ")) )"
    }

    static let createTransactionTableSQL = "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "
        + "ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, "
        + "ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )"

    static let createStringTableSQL = "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )"

    /// In the order Core Data creates them.
    static let indexSQL = [
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

    /// The number of tombstone columns a model needs.
    static func tombstoneCount(of model: ObjectModel) -> Int {
        model.entities.map { HistoryLayout.preservedAttributes(of: $0).count }.max() ?? 0
    }

    /// Core Data's history tables; a store has history when it has all three.
    static let tableNames: Set<String> = ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"]

    /// True when the store has Core Data's history tables.
    static func isPresent(on connection: Connection) throws -> Bool {
        // One statement rather than three: every store's open asks.
        try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ATRANSACTION', 'ACHANGE', 'ATRANSACTIONSTRING')"
        )?.integerValue == 3
    }

    /// Every statement that adds history to a store that has none; `Z_PRIMARYKEY` must exist.
    static func creationStatements(tombstones: Int) -> [String] {
        [createChangeTableSQL(tombstones: tombstones), createTransactionTableSQL, createStringTableSQL] + indexSQL
    }

    /// Makes the history tables, indexes and key rows that are missing, and the tombstone
    /// columns the model needs beyond those there; the caller runs it in a transaction.
    static func install(on connection: Connection, model: ObjectModel) throws {
        let tombstones = tombstoneCount(of: model)
        if try !connection.tableExists("ACHANGE") { try connection.execute(createChangeTableSQL(tombstones: tombstones)) }
        if try !connection.tableExists("ATRANSACTION") { try connection.execute(createTransactionTableSQL) }
        if try !connection.tableExists("ATRANSACTIONSTRING") { try connection.execute(createStringTableSQL) }
        let existing = try storedTombstoneCount(on: connection)
        for index in existing..<max(existing, tombstones) {
            try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB")
        }
        for sql in indexSQL {
            // "CREATE [UNIQUE] INDEX <name> ON …": the name is the word before ON.
            let words = sql.split(separator: " ")
            guard let on = words.firstIndex(of: "ON"), on > 0 else { continue }
            let name = String(words[on - 1])
            let present = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(name)])?.integerValue ?? 0
            if present == 0 { try connection.execute(sql) }
        }
        for row in entityRows {
            try connection.execute("INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)",
                                   [.integer(Int64(row.number)), .text(row.name)])
        }
    }

    /// True when a table, an index, a key row or a tombstone column the model needs is missing.
    static func needsInstall(on connection: Connection, model: ObjectModel) throws -> Bool {
        guard try isPresent(on: connection) else { return true }
        if try storedTombstoneCount(on: connection) < tombstoneCount(of: model) { return true }
        let indexes = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')")?.integerValue ?? 0
        let keys = try connection.scalar("SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)")?.integerValue ?? 0
        return indexes < Int64(indexSQL.count) || keys < Int64(entityRows.count)
    }

    /// How many `ZTOMBSTONE<i>` columns the store's `ACHANGE` has, counted from 0 without gaps.
    static func storedTombstoneCount(on connection: Connection) throws -> Int {
        let columns = Set(try connection.columns(of: "ACHANGE"))
        var count = 0
        while columns.contains("ZTOMBSTONE\(count)") { count += 1 }
        return count
    }
}

/// How an entity's properties map to the bits of `ACHANGE.ZCOLUMNS` and to tombstone columns.
///
/// Read off Photos.sqlite (macOS 10.15) against the model in its `Z_MODELCACHE` (README.md,
/// "Persistent history"): the vector has one bit per property, most significant bit first
/// within each byte, `ceil(count / 8)` bytes; properties in Core Data's order: attributes by
/// name, then to-one relationships by name, then to-many relationships by name (names compared
/// ignoring case, then as they are). Tombstones hold the preserved attributes' stored values in
/// name order, `ZTOMBSTONE0` first.
struct HistoryLayout: Sendable {
    /// Property names in bit order.
    let properties: [String]
    let bitOfProperty: [String: Int]
    /// Attribute slots kept in tombstones, in tombstone order.
    let tombstoneSlots: [Int]
    var byteCount: Int { (properties.count + 7) / 8 }

    init(entity: Entity) {
        let ordered = { (names: [String]) in names.sorted(by: HistoryLayout.precedes) }
        properties = ordered(entity.attributes.map(\.name))
            + ordered(entity.relationships.filter { !$0.isToMany }.map(\.name))
            + ordered(entity.relationships.filter(\.isToMany).map(\.name))
        var bits: [String: Int] = [:]
        for (index, name) in properties.enumerated() where bits[name] == nil { bits[name] = index }
        bitOfProperty = bits
        tombstoneSlots = Self.preservedAttributes(of: entity).map(\.slot)
    }

    static func preservedAttributes(of entity: Entity) -> [EntityAttribute] {
        entity.attributes.filter { $0.declaration.preservesValueInHistoryOnDeletion && $0.column != nil }
            .sorted { precedes($0.name, $1.name) }
    }

    /// Names compared ignoring case, then as they are (Xcode's order).
    static func precedes(_ left: String, _ right: String) -> Bool {
        let folded = (left.lowercased(), right.lowercased())
        return folded.0 == folded.1 ? left < right : folded.0 < folded.1
    }

    /// The bit vector of `names`; names the entity does not have are left out.
    func columns(for names: Set<String>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for name in names {
            guard let bit = bitOfProperty[name] else { continue }
            bytes[bit / 8] |= UInt8(0x80) >> UInt8(bit % 8)
        }
        return bytes
    }

    /// The property names whose bits are set; bits past the entity's properties are ignored.
    func names(in columns: [UInt8]) -> Set<String> {
        var names = Set<String>()
        for (byteIndex, byte) in columns.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (UInt8(0x80) >> UInt8(bit)) != 0 {
                let index = byteIndex * 8 + bit
                if index < properties.count { names.insert(properties[index]) }
            }
        }
        return names
    }
}
