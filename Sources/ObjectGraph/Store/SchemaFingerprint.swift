import Foundation
import Locking
import SQLiteDB

/// Everything about a store that decides its migration plan, read by one statement into one
/// byte string: every `sqlite_master` row (type, names and `CREATE` text, in order),
/// `Z_PRIMARYKEY`'s entity rows without their key counters, and `Z_METADATA`'s property list
/// as stored, bytes and all (no value is made of any of it: a fingerprint costs a tenth of a plan).
///
/// The planner reads nothing else (its only reads of rows are counts made while planning a
/// table it rebuilds, which an empty plan never does), so two stores with equal fingerprints
/// get the same plan for the same model. A model remembers the fingerprints it found needing
/// no migration (`ObjectModel.verifiedSchemas`): opening such a store again compares the bytes
/// instead of planning (1.8 M instructions for a vacation) and reuses the metadata's decoded
/// values. Any change to the schema — a dropped search index or trigger,
/// an index someone added, an older model's tables — or to the metadata changes the
/// fingerprint, and the full plan runs.
struct SchemaFingerprint: Equatable, Sendable {
    /// The rows of `query` but for the UUID, each value as `Statement.appendRecord` writes it.
    var record: [UInt8]

    static func == (left: SchemaFingerprint, right: SchemaFingerprint) -> Bool {
        // Tens of kilobytes of SQL text: compared as memory, not byte by byte in Swift.
        left.record.count == right.record.count && left.record.withUnsafeBytes { leftBytes in
            right.record.withUnsafeBytes { rightBytes in
                guard let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress else { return leftBytes.count == rightBytes.count }
                return memcmp(leftStart, rightStart, leftBytes.count) == 0
            }
        }
    }

    /// What one read found: the fingerprint, the store's UUID, and (from the same rows) whether
    /// it has the history tables and which of its triggers and views call Core Data's functions.
    struct Reading {
        var fingerprint: SchemaFingerprint
        var uuid: String
        var hasHistoryTables: Bool
        /// The SQL of every trigger and view that names `NSCoreData…` (Apple's stores: their
        /// triggers call functions that `StoreFunctions` must register before a write fires them).
        var coreDataSources: [String]
        /// Whether the rows below were kept (`keepingRows`).
        var keptRows: Bool
        /// The same rows as values, for `StoreLayout` (made only when asked for).
        var objects: [StoreLayout.Object] = []
        var entityRows: [StoreLayout.EntityRow] = []
        /// `Z_PLIST` as `StoreMetadata` reads it.
        var plist: Data?
    }

    /// The store's fingerprint, or nil when the store lacks one of the three tables, its
    /// metadata row, or cannot be read: the full open then finds out why, with its own errors.
    ///
    /// Without `keepingRows` no value is made of a row but the UUID (and the rare Core Data
    /// trigger's SQL): types and names are compared where SQLite holds them. That is the read
    /// of a store the model knows, which needs nothing else.
    static func read(_ connection: Connection, keepingRows: Bool = false) -> Reading? {
        // A store that cannot answer this is opened the long way, which reports what is wrong:
        // the error here has no meaning of its own.
        guard let statement = try? connection.prepare(query) else { return nil }
        var record: [UInt8] = []
        record.reserveCapacity(32_768)
        var uuid: String?
        var plist: Data?
        var historyTables = 0
        var coreDataSources: [String] = []
        var objects: [StoreLayout.Object] = []
        var entityRows: [StoreLayout.EntityRow] = []
        while true {
            // A row that fails to read leaves no fingerprint at all, never part of one.
            guard let more = try? statement.step() else { return nil }
            guard more else { break }
            statement.appendRecord(of: 0..<3, to: &record)
            let kind = statement.withText(at: 0, RowKind.init) ?? .other
            if kind == .metadata {
                uuid = statement.string(at: 3) ?? ""
                if keepingRows { plist = statement.data(at: 1) }
                continue
            }
            if kind == .entity {
                // Read as `StoredSchema` reads them.
                if keepingRows {
                    entityRows.append(StoreLayout.EntityRow(number: statement.int(at: 1), name: statement.string(at: 2) ?? "",
                                                            parent: statement.int(at: 3)))
                }
            } else {
                if kind == .table {
                    if HistorySchema.tableNames.contains(where: { statement.text(at: 1, is: $0) }) { historyTables += 1 }
                } else if kind == .triggerOrView, statement.text(at: 3, contains: coreDataFunctionPrefix) {
                    coreDataSources.append(statement.string(at: 3) ?? "")
                }
                if keepingRows {
                    objects.append(StoreLayout.Object(type: statement.string(at: 0) ?? "", name: statement.string(at: 1) ?? "",
                                                      table: statement.string(at: 2) ?? "", sql: statement.string(at: 3)))
                }
            }
            statement.appendRecord(of: 3..<4, to: &record)
        }
        guard let uuid else { return nil }
        return Reading(fingerprint: SchemaFingerprint(record: record), uuid: uuid,
                       hasHistoryTables: historyTables == HistorySchema.tableNames.count,
                       coreDataSources: coreDataSources, keptRows: keepingRows,
                       objects: objects, entityRows: entityRows, plist: plist)
    }

    /// What a row of `query` is, by its first column (compared as bytes: no String is made).
    private enum RowKind {
        case metadata, entity, table, triggerOrView, other

        init(_ type: UnsafeRawBufferPointer) {
            func equals(_ text: StaticString) -> Bool {
                text.utf8CodeUnitCount == type.count && memcmp(text.utf8Start, type.baseAddress!, type.count) == 0
            }
            switch type.count {
            case 0: self = .other
            case 5: self = equals("table") ? .table : .other
            case 4: self = equals("view") ? .triggerOrView : .other
            case 7: self = equals("trigger") ? .triggerOrView : .other
            default: self = equals(metadataRow) ? .metadata : equals(keyRow) ? .entity : .other
            }
        }
    }

    /// What every function Core Data's triggers call begins with (`StoreFunctions`).
    static let coreDataFunctionPrefix = "NSCoreData"

    private static let keyRow: StaticString = "Z_PRIMARYKEY"

    private static let metadataRow: StaticString = "Z_METADATA"

    /// Rows in the order SQLite keeps them (rowid; `Z_ENT` is `Z_PRIMARYKEY`'s), which a store's
    /// file fixes: the same schema in another order only misses, and plans.
    private static let query = """
        SELECT type, name, tbl_name, sql FROM sqlite_master
        UNION ALL SELECT '\(keyRow)', Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < \(StoredSchema.firstPrivateEntityNumber)
        UNION ALL SELECT * FROM (SELECT '\(metadataRow)', Z_PLIST, NULL, Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1)
        """
}

/// The fingerprints of stores a model found needing no migration, with their decoded metadata;
/// the most recent few, since a process opens few different stores again.
package final class VerifiedSchemas: Sendable {
    struct Entry: Sendable {
        var fingerprint: SchemaFingerprint
        var metadata: [String: any Sendable]
    }

    static let capacity = 8
    private let entries = Locked<[Entry]>([])
    private let reused = Locked(0)

    package init() {}

    /// The decoded metadata of a store with this fingerprint, when one was found needing no migration.
    func metadata(for fingerprint: SchemaFingerprint) -> [String: any Sendable]? {
        let found = entries.withLock { entries in entries.last { $0.fingerprint == fingerprint }?.metadata }
        if found != nil { reused.withLock { $0 += 1 } }
        return found
    }

    func remember(_ fingerprint: SchemaFingerprint, metadata: [String: any Sendable]) {
        entries.withLock { entries in
            entries.removeAll { $0.fingerprint == fingerprint }
            entries.append(Entry(fingerprint: fingerprint, metadata: metadata))
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        }
    }

    /// How many stores this model knows to need no migration.
    package var count: Int { entries.withLock { $0.count } }
    /// How many opens skipped the plan (tests tell the two ways apart by it).
    package var reuses: Int { reused.withLock { $0 } }
}
