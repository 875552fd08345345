import Foundation
import SQLiteDB

extension StoreCoordinator {
    /// Opens a store read-only as it is, without comparing its schema with `model` and so
    /// without any migration: for stores whose tables our layout rules cannot regenerate
    /// (ordered relationships, history tracking, compound indexes…). Reads use the model's
    /// tables and columns only, which must exist; the journal mode is left as the file has it.
    ///
    /// ```swift
    /// let coordinator = try StoreCoordinator(readingAsIsAt: storeURL, model: inferred.model)
    /// ```
    /// - Throws: `SQLiteError` when the file cannot be read, `StoreError` when it is not a store.
    public convenience init(readingAsIsAt url: URL, model: ObjectModel, busyTimeout: Double = 10) throws {
        try self.init(readingAt: url, model: model, busyTimeout: busyTimeout, checksSchema: false)
    }

    /// Opens a store read-only, comparing its schema with `model` (and refusing one that would
    /// need migrating) only when `checksSchema`.
    package convenience init(readingAt url: URL, model: ObjectModel, busyTimeout: Double, checksSchema: Bool) throws {
        try self.init(url: url, model: model, options: .init(readOnly: true, journalMode: nil, busyTimeout: busyTimeout,
                                                              checksSchema: checksSchema))
    }
}

/// Plans a lightweight migration without running it.
public enum StoreMigrationPlan {
    /// The SQL that opening the store at `url` with `model` would run, in order; empty when
    /// the store already matches the model. The store is opened read-only.
    ///
    /// ```swift
    /// let statements = try StoreMigrationPlan.statements(forStoreAt: storeURL, model: model)
    /// ```
    /// - Throws: `MigrationError` when the migration is not lightweight, `StoreError` when the
    ///   file is not a store.
    public static func statements(forStoreAt url: URL, model: ObjectModel) throws -> [String] {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        guard try connection.tableExists("Z_METADATA") else {
            throw StoreError("\(url.path) is not a Core Data store (no Z_METADATA table)")
        }
        return try MigrationPlanner(connection: connection, model: model).plan().statements.map { statement in
            statement.values.isEmpty ? statement.sql : statement.sql + " -- " + statement.values.map(\.description).joined(separator: ", ")
        }
    }

    /// True when reading the store at `url` with `model` needs a migration first: its tables,
    /// columns or keys differ. Index names and a table's `CREATE` text alone do not count (they
    /// do not change what a read finds; opening for writing brings them to Core Data's layout).
    ///
    /// - Throws: as `statements(forStoreAt:model:)`.
    package static func readingNeedsMigration(forStoreAt url: URL, model: ObjectModel) throws -> Bool {
        let connection = try Connection(path: url.path, configuration: .init(
            readOnly: true, create: false, journalMode: nil, synchronous: nil))
        guard try connection.tableExists("Z_METADATA") else {
            throw StoreError("\(url.path) is not a Core Data store (no Z_METADATA table)")
        }
        return try MigrationPlanner(connection: connection, model: model).plan().changesData
    }

    /// The SQL (without bound values) that migrating the store open on `connection` to `model`
    /// would run; empty when the store matches.
    package static func sql(on connection: Connection, model: ObjectModel) throws -> [String] {
        try MigrationPlanner(connection: connection, model: model).plan().statements.map(\.sql)
    }
}
