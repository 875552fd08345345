import Foundation
import SQLiteDB

/// Errors about a store as a whole: opening it, its metadata, its schema.
package struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A Core Data-layout SQLite store for one model. Not `Sendable`: the coordinator guards it.
final class SQLiteStore {
    let connection: Connection
    let model: ObjectModel
    let schema: StoreSchema
    /// `Z_METADATA.Z_UUID`.
    private(set) var uuid: String
    /// `Z_METADATA.Z_PLIST` as stored, decoded.
    private(set) var metadata: [String: any Sendable]
    var rowReaders: [String: RowReader] = [:]
    /// Compiled predicates and orders, so that a repeated fetch does not compile again; the
    /// least recently used goes first once `compiledQueryLimit` are kept.
    var compiledQueries = LeastRecentlyUsedCache<CompiledQueryKey, CompiledQuery>(capacity: SQLiteStore.compiledQueryLimit)
    static let compiledQueryLimit = 512

    struct CompiledQueryKey: Hashable {
        var entity: Int
        /// The predicate itself, or a shape's stand-in predicate (`PredicateShape`).
        var predicate: ObjectPredicate?
        var sortDescriptors: [ObjectSortDescriptor]
        /// Whether `predicate` is a shape's: one query for all the predicates of that shape.
        var isShape = false
    }

    /// What the cache keeps for a key.
    enum CompiledQuery {
        /// The query of a predicate keyed by its values.
        case exact(SQLFetchQuery)
        /// The query of a shape's stand-ins, and where its arguments come from.
        case template(SQLFetchQuery, [QueryArgumentSource])
        /// A shape whose query turned out to depend on its constants: key by values instead.
        case byValue
    }
    /// Statements for writing rows, prepared on first use (see `WritePlans`).
    var writePlans = WritePlans()
    /// Records each write for the operation log, once asked to (`OperationLog.swift`).
    var operationRecorder: OperationRecorder?
    /// Writes persistent history with every commit; nil when the store does not track history.
    private(set) var history: HistoryRecorder?

    struct Options: Sendable {
        var readOnly = false
        var journalMode: Connection.JournalMode? = .wal
        var busyTimeout: Double = 10
        /// Compare the store's schema with the model and migrate; off only to read a store as it is.
        var checksSchema = true
        /// Keep persistent history (`NSPersistentHistoryTrackingKey`): a store without the
        /// history tables gets them. A store that has them tracks history whatever this says.
        var tracksHistory = false
    }

    /// Opens the store at `path`, creating it for `model` when the file is new, migrating it
    /// lightweight when its schema is older than the model.
    init(path: String, model: ObjectModel, options: Options = Options()) throws {
        self.model = model
        self.schema = StoreSchema(model: model)
        connection = try Connection(path: path, configuration: .init(
            readOnly: options.readOnly, create: !options.readOnly, journalMode: options.journalMode,
            busyTimeout: options.busyTimeout))
        // The fingerprint and the plan from one read snapshot, so that the fingerprint a model
        // remembers is that of the schema planned; a store it knows needs no plan at all.
        let opened = connection
        var coreDataSources: [String]?
        let opening = try opened.transaction { () throws -> Opening in
            // A model that knows stores (this process opened one before) most likely opens one
            // of them again, which needs only the fingerprint: the rows are made as values when
            // the fingerprint is new, by a second read of the same snapshot.
            var reading = options.checksSchema
                ? SchemaFingerprint.read(opened, keepingRows: model.verifiedSchemas.count == 0) : nil
            coreDataSources = reading?.coreDataSources
            if let found = reading, let known = model.verifiedSchemas.metadata(for: found.fingerprint) {
                return .known(found, metadata: known)
            }
            if let found = reading, !found.keptRows { reading = SchemaFingerprint.read(opened, keepingRows: true) }
            let stored: StoreMetadata
            if let reading {
                // The fingerprint's statement read the metadata row (so Z_METADATA is there).
                stored = try StoreMetadata(uuid: reading.uuid, plist: reading.plist)
            } else {
                guard try opened.tableExists("Z_METADATA") else { return .notCoreData }
                stored = try StoreMetadata(connection: opened)
            }
            let plan: MigrationPlanner.Plan
            if let reading, model.storeLayout.matches(objects: reading.objects, entityRows: reading.entityRows, metadata: stored) {
                // Already in the model's layout: the planner would plan nothing (`StoreLayout`).
                plan = .init()
            } else {
                plan = options.checksSchema ? try MigrationPlanner(connection: opened, model: model, metadata: stored).plan() : .init()
            }
            if plan.isEmpty, let reading { model.verifiedSchemas.remember(reading.fingerprint, metadata: stored.values) }
            return .planned(stored, plan, historyTables: reading?.hasHistoryTables)
        }
        // Before anything prepares a statement that could fire a trigger calling one of them;
        // nothing above writes.
        try StoreFunctions.register(on: connection, coreDataSources: coreDataSources)
        if case .known(let reading, let known) = opening {
            (uuid, metadata) = (reading.uuid, known)
            try openHistory(tracking: options.tracksHistory, readOnly: options.readOnly, present: reading.hasHistoryTables)
        } else if case .planned(let stored, let plan, let historyTables) = opening {
            (uuid, metadata) = (stored.uuid, stored.values)
            if options.readOnly {
                // Index names and a table's CREATE text do not change what reading finds.
                guard !plan.changesData else {
                    throw StoreError("the store needs migrating to this model, but it is open read-only")
                }
            } else if !plan.isEmpty {
                try connection.transaction(.immediate) {
                    try plan.apply(to: connection)
                    // Only a migration that changes the layout describes another model in the metadata.
                    if plan.changesData { metadata = try writeMetadata(replacingHashes: true) }
                }
                connection.clearStatementCache()
            }
            // What the fingerprint's rows say of history holds while the plan changed nothing.
            try openHistory(tracking: options.tracksHistory, readOnly: options.readOnly, present: plan.isEmpty ? historyTables : nil)
        } else {
            guard !options.readOnly else { throw StoreError("\(path) is not a Core Data store (no Z_METADATA table)") }
            let existing = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'")?.integerValue ?? 0
            guard existing == 0 else { throw StoreError("\(path) is a SQLite database but not a Core Data store") }
            uuid = UUID().uuidString
            metadata = [:]
            try connection.transaction(.immediate) {
                for statement in schema.creationStatements() { try connection.execute(statement) }
                let insert = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
                for entity in model.entities {
                    try insert.run([.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.parent ?? 0))])
                }
                metadata = try writeMetadata(replacingHashes: true, creating: true)
                if options.tracksHistory { try HistorySchema.install(on: connection, model: model) }
            }
            if options.tracksHistory { history = try HistoryRecorder(model: model, connection: connection) }
        }
    }

    /// What the store's open found before changing anything.
    private enum Opening {
        /// A store the model found needing no migration before, unchanged since.
        case known(SchemaFingerprint.Reading, metadata: [String: any Sendable])
        /// With whether the store has the history tables, when the fingerprint's rows tell.
        case planned(StoreMetadata, MigrationPlanner.Plan, historyTables: Bool?)
        /// No `Z_METADATA`: a new file, or not a Core Data store.
        case notCoreData
    }

    /// Starts writing history when the store has the history tables, adding them first when
    /// asked to track history (or when the model needs more tombstone columns than are there);
    /// `present` when the caller knows whether they are there.
    private func openHistory(tracking: Bool, readOnly: Bool, present known: Bool? = nil) throws {
        var present = try known ?? HistorySchema.isPresent(on: connection)
        guard present || tracking else { return }
        if !readOnly, try HistorySchema.needsInstall(on: connection, model: model) {
            try connection.transaction(.immediate) { try HistorySchema.install(on: connection, model: model) }
            connection.clearStatementCache()
            present = try HistorySchema.isPresent(on: connection)
        }
        if present { history = try HistoryRecorder(model: model, connection: connection) }
    }

    // MARK: Metadata

    /// Writes `Z_METADATA` keeping every key already there. With `replacingHashes` it sets what
    /// Core Data rewrites when it creates or migrates a store: the model's version hashes, their
    /// digest and checksum (in stores that have them, and in every store we create), the version
    /// identifiers. Our model record goes only into stores this framework created; an Apple
    /// store's metadata keeps exactly its own keys.
    @discardableResult
    func writeMetadata(replacingHashes: Bool, creating: Bool = false, extra: [String: any Sendable] = [:]) throws -> [String: any Sendable] {
        var plist: [String: Any] = metadata.mapValues { $0 as Any }
        plist["NSStoreType"] = "SQLite"
        plist["NSStoreModelVersionHashesVersion"] = 3
        if plist["NSPersistenceFrameworkVersion"] == nil { plist["NSPersistenceFrameworkVersion"] = 1 }
        if plist["_NSAutoVacuumLevel"] == nil { plist["_NSAutoVacuumLevel"] = "2" }
        if replacingHashes {
            let hashes = model.versionHashes
            plist["NSStoreModelVersionIdentifiers"] = [model.versionIdentifier]
            plist["NSStoreModelVersionHashes"] = hashes
            // Newer Core Data writes these two; stale ones would describe the old model.
            if creating || plist["NSStoreModelVersionHashesDigest"] != nil {
                plist["NSStoreModelVersionHashesDigest"] = CoreDataVersionHash.hashesDigest(hashes).base64EncodedString()
            }
            if creating || plist["NSStoreModelVersionChecksumKey"] != nil {
                plist["NSStoreModelVersionChecksumKey"] = CoreDataVersionHash.hashesChecksum(hashes).base64EncodedString()
            }
            if creating || plist[ModelRecord.metadataKey] != nil {
                plist[ModelRecord.metadataKey] = ModelRecord(model: model).plist
            }
        }
        for (key, value) in extra { plist[key] = value }
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try connection.execute("DELETE FROM Z_METADATA")
        try connection.execute("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                               [.text(uuid), .blob(data)])
        return plist.compactMapValues { PropertyListValue.sendable($0) }
    }

    /// Sets keys of the store metadata (as `NSPersistentStoreCoordinator.setMetadata` does).
    func setMetadata(_ values: [String: any Sendable]) throws {
        try connection.transaction(.immediate) {
            metadata = try writeMetadata(replacingHashes: false, extra: values)
        }
    }

    func reader(forTable table: String) -> RowReader {
        if let reader = rowReaders[table] { return reader }
        let reader = RowReader(model: model, table: table)
        rowReaders[table] = reader
        return reader
    }
}

/// Converts property-list values (Foundation's `Any`) into `Sendable` values we can keep.
package enum PropertyListValue {
    package static func sendable(_ value: Any) -> (any Sendable)? {
        switch value {
        case let value as String: return value
        case let value as Data: return value
        case let value as Date: return value
        case let value as Bool: return value
        case let value as Int: return value
        case let value as Double: return value
        case let value as NSNumber: return value.intValue
        case let value as [Any]: return value.compactMap { sendable($0) }
        case let value as [String: Any]: return value.compactMapValues { sendable($0) }
        default: return nil
        }
    }
}
