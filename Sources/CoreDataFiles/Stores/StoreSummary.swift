import Foundation
import ObjectGraph
import SQLiteDB

/// What a Core Data store says about itself, read without a model: its UUID, metadata,
/// journal mode, and each entity of `Z_PRIMARYKEY` with its row count (its own rows and its
/// subentities', `EntityRowFilter`).
///
/// ```swift
/// let summary = try StoreSummary(storeAt: storeURL)
/// print(summary.uuid, summary.entities.map { "\($0.name) \($0.rows ?? 0)" })
/// ```
public struct StoreSummary: Sendable {
    /// An entity of `Z_PRIMARYKEY` and how many rows it has.
    public struct EntityRows: Sendable, Equatable {
        /// The entity's number (`Z_ENT`).
        public var number: Int
        /// The entity's name (`Z_NAME`).
        public var name: String
        /// The parent's number; nil for a root.
        public var parent: Int?
        /// The table of the entity's hierarchy.
        public var table: String
        /// The entity's rows: those whose `Z_ENT` is its own number or one of its subentities', as
        /// a fetch with subentities counts them (`EntityRowFilter`); nil when the table is missing.
        public var rows: Int?
        /// `Z_MAX`: the highest key handed out.
        package var maximumKey: Int64
    }

    /// `Z_METADATA.Z_UUID`.
    public var uuid: String
    /// `Z_METADATA.Z_PLIST`, decoded.
    package var metadata: [String: any Sendable]
    /// `wal`, `delete`, … as SQLite reports it.
    public var journalMode: String
    /// Every entity of `Z_PRIMARYKEY`, in entity-number order.
    public var entities: [EntityRows]
    /// `NSStoreModelVersionHashes`: the model the store was last written with.
    package var versionHashes: [String: Data]
    /// Whether the store keeps Core Data's compiled model in `Z_MODELCACHE`.
    package var hasModelCache: Bool

    /// Reads the store at `url`, which is opened read-only.
    ///
    /// - Throws: `StoreError` when the file is not a Core Data store, `SQLiteError` when it is
    ///   not a database or cannot be read.
    public init(storeAt url: URL) throws {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        try self.init(connection: connection)
    }

    /// Reads the store open on `connection`.
    public init(connection: Connection) throws {
        let catalog = try StoreCatalog(connection: connection)
        let stored = try StoreMetadata(connection: connection)
        uuid = stored.uuid
        metadata = stored.values
        versionHashes = stored.versionHashes
        journalMode = try connection.journalMode()
        hasModelCache = catalog.tables["Z_MODELCACHE"] != nil

        let byNumber = Dictionary(catalog.entries.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        func root(of entry: StoreCatalog.Entry) -> StoreCatalog.Entry {
            var current = entry
            var seen: Set<Int> = [entry.number]
            while current.parent != 0, let parent = byNumber[current.parent], seen.insert(parent.number).inserted { current = parent }
            return current
        }
        // The entity's own number and its subentities', at any depth.
        func hierarchy(of entry: StoreCatalog.Entry) -> [Int] {
            catalog.entries.filter { candidate in
                var current = candidate
                var seen: Set<Int> = [candidate.number]
                while current.number != entry.number {
                    guard current.parent != 0, let parent = byNumber[current.parent], seen.insert(parent.number).inserted else { return false }
                    current = parent
                }
                return true
            }.map(\.number)
        }
        var counts: [String: [Int: Int]] = [:]
        var result: [EntityRows] = []
        for entry in catalog.entries {
            // Core Data's own entities (history, CloudKit; numbered from 16001) live in `A<NAME>`.
            let rootName = root(of: entry).name
            let table = entry.number >= 16000 ? CoreDataEntityTable.tableName(rootName) : StoreCatalog.tableName(ofRoot: rootName)
            if counts[table] == nil, catalog.tables[table]?.contains(where: { $0.name == "Z_ENT" }) == true {
                let rows = try connection.rows("SELECT Z_ENT, count(*) FROM \(quoteIdentifier(table)) GROUP BY Z_ENT") {
                    ($0.int(at: 0), $0.int(at: 1))
                }
                counts[table] = Dictionary(rows, uniquingKeysWith: +)
            }
            result.append(EntityRows(number: entry.number, name: entry.name, parent: entry.parent == 0 ? nil : entry.parent,
                                     table: table, rows: counts[table].map { EntityRowFilter.count(of: hierarchy(of: entry), countsByEntity: $0) },
                                     maximumKey: entry.maximumKey))
        }
        entities = result
    }
}
