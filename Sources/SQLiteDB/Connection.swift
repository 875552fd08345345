import CSQLite
import Foundation
import Locking

/// One connection to a SQLite database file, with a per-connection statement cache.
///
/// A connection is not `Sendable`: use it from one isolation domain at a time (the store
/// coordinator guards it with a lock).
///
/// ```swift
/// let connection = try Connection(path: url.path, configuration: .init(journalMode: .wal))
/// try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
/// ```
public final class Connection {
    let handle: OpaquePointer
    /// The path as given; `:memory:` for an in-memory database.
    public let path: String
    package let configuration: Configuration
    private var statementCache = LeastRecentlyUsedCache<String, Statement>(capacity: Connection.statementCacheLimit)
    var savepointDepth = 0
    /// Whether `savepoint(_:)` inside a transaction opens a real savepoint. Off, for a bulk
    /// transaction that is all or nothing, nested work writes straight into the transaction:
    /// SQLite then journals no page for it (a savepoint keeps a copy of every page it changes
    /// that existed before it began, and a chunk of an import changes thousands), and a failure
    /// rolls back the whole transaction, there being no smaller point to go back to.
    package var nestsSavepoints = true
    /// A ROLLBACK that failed and left the transaction open (see `rollbackAfterFailure()`).
    var failedRollback: SQLiteError?
    /// True from `beginTransaction()` until its commit or rollback.
    var hasBegunTransaction = false
    var traceBox: TraceBox?
    var functionBoxes: [String: FunctionBox] = [:]
    /// Row changes and commits observed (`Connection+RowChanges.swift`).
    var rowChangeBox: RowChangeBox?

    /// How a connection opens its file.
    public struct Configuration: Sendable {
        /// Opens the file for reading only: no writes, no journal mode change, no new file.
        public var readOnly: Bool
        /// Create the file when it does not exist (ignored when `readOnly`).
        package var create: Bool
        /// Journal mode to set after opening; nil keeps the file's own.
        public var journalMode: JournalMode?
        /// How long a statement waits for another connection's lock, in seconds.
        package var busyTimeout: Double
        var foreignKeys: Bool
        package var synchronous: Synchronous?

        /// A configuration; the defaults open (or create) a file for writing in WAL mode.
        public init(readOnly: Bool = false, create: Bool = true, journalMode: JournalMode? = .wal,
                    busyTimeout: Double = 5, foreignKeys: Bool = false, synchronous: Synchronous? = .normal) {
            self.readOnly = readOnly
            self.create = create
            self.journalMode = journalMode
            self.busyTimeout = busyTimeout
            self.foreignKeys = foreignKeys
            self.synchronous = synchronous
        }
    }

    /// SQLite's `PRAGMA journal_mode` values.
    public enum JournalMode: String, Sendable { case wal, delete, truncate, persist, memory, off }
    /// SQLite's `PRAGMA synchronous` values: how often SQLite waits for the disk.
    public enum Synchronous: String, Sendable { case off, normal, full, extra }

    /// Opens (and with `create`, creates) the database at `path`.
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened or is not a database.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        // A reader opens read-write all the same, with `query_only` on (below): SQLite lets
        // only a writable connection, when it is the last to close, checkpoint the WAL and
        // remove the `-wal` and `-shm` files; a read-only one leaves them behind. A file that
        // cannot be written is opened read-only by SQLite itself.
        Self.configureOnce()
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE
        if configuration.create && !configuration.readOnly { flags |= SQLITE_OPEN_CREATE }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(connection: connection, code: code, sql: nil)
            sqlite3_close_v2(connection)
            throw SQLiteError(resultCode: error.resultCode, extendedCode: error.extendedCode,
                              message: "\(error.message) (opening \(path))")
        }
        self.handle = connection
        self.path = path
        self.configuration = configuration
        OpenConnections.shared.withLock { $0.add(connection: connection) }
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, Int32(max(0, configuration.busyTimeout * 1000)))
        do {
            // Reading the schema fails fast, with SQLITE_NOTADB, on a file that is not a database.
            try execute("SELECT count(*) FROM sqlite_master")
            if configuration.readOnly { try execute("PRAGMA query_only = ON") }
            if configuration.foreignKeys { try execute("PRAGMA foreign_keys = ON") }
            if let mode = configuration.journalMode, !configuration.readOnly {
                try setJournalMode(mode)
            }
            if let synchronous = configuration.synchronous {
                try execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
            }
        } catch {
            statementCache.removeAll()
            _ = OpenConnections.shared.withLock { $0.remove(connection: connection) }
            sqlite3_close_v2(connection)
            throw error
        }
    }

    /// SQLite's process-wide settings, made before the first connection: no memory statistics
    /// (nothing here reads them), so that allocations skip the global mutex that counts them
    /// (about a tenth of opening a store, which parses its whole schema). Too late when
    /// something else in the process started SQLite first; then nothing changes.
    private static let processSettings: Int32 = vacations_sqlite3_disable_memory_statistics()

    static func configureOnce() { _ = processSettings }

    /// An in-memory database, for tests and scratch work.
    package static func inMemory() throws -> Connection {
        try Connection(path: ":memory:", configuration: Configuration(journalMode: nil, synchronous: nil))
    }

    /// Closes every connection of the process that is not inside a transaction, for a process
    /// about to `exit` with Swift objects still holding them: each connection's statements are
    /// finalized and the connection closed as its deinit would, so that SQLite does what a last
    /// close does (checkpoint the WAL, remove `-wal` and `-shm`) without the objects around it
    /// being torn down first. From then on no statement or connection of the process finalizes
    /// or closes itself. A connection with a transaction open is left to the exit, which drops
    /// it as a crash would (SQLite rolls it back at the next open).
    ///
    /// Call it only right before `exit`, once no other thread uses SQLite.
    package static func closeAllBeforeExit() {
        OpenConnections.shared.withLock { $0.closeAllForExit() }
    }

    deinit {
        // Closed already when the process is exiting (`closeAllBeforeExit`). Its statements,
        // finalized next, find it gone and finalize themselves all the same.
        guard OpenConnections.shared.withLock({ $0.remove(connection: handle) }) else { return }
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Executing

    /// Runs one or more SQL statements that take no parameters.
    ///
    /// - Throws: `SQLiteError` naming the SQL that failed.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) }
            sqlite3_free(errorMessage)
            var error = SQLiteError(connection: handle, code: code, sql: sql)
            if let message { error.message = message }
            throw error
        }
    }

    /// Prepares `sql` and runs it once with `values` bound.
    public func execute(_ sql: String, _ values: [SQLiteValue]) throws {
        try cachedStatement(sql).run(values)
    }

    /// Prepares a new statement that the caller owns.
    package func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// The most statements the cache keeps. Fetches build their SQL from predicates, so a
    /// long-lived connection (a document open for hours, a search field) would otherwise keep
    /// every statement it ever ran.
    package static let statementCacheLimit = 512

    /// Returns this connection's prepared statement for `sql`, preparing it on first use.
    ///
    /// The statement comes back reset; bind every parameter before running it. The cache holds
    /// at most `statementCacheLimit` statements and lets go of the least recently used first; a
    /// statement a caller still holds stays valid when the cache lets go of it.
    package func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache.value(forKey: sql) {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql)
        statementCache.insert(statement, forKey: sql)
        return statement
    }

    /// How many statements the cache holds now (for tests and diagnostics).
    package var cachedStatementCount: Int { statementCache.count }

    /// Drops every cached statement (needed before schema changes that would invalidate them).
    package func clearStatementCache() { statementCache.removeAll() }

    /// Runs a query and returns the first column of the first row, or nil when there is none.
    package func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try cachedStatement(sql)
        statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// Runs a query and maps every row.
    public func rows<T>(_ sql: String, _ values: [SQLiteValue] = [], _ map: (Statement) throws -> T) throws -> [T] {
        let statement = try cachedStatement(sql)
        statement.bind(values)
        var result: [T] = []
        try statement.forEachRow { result.append(try map($0)) }
        return result
    }

    /// The rowid of the last successful INSERT on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// True while no explicit transaction is open.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    // MARK: Pragmas

    /// Sets the journal mode and returns the mode SQLite reports afterwards.
    @discardableResult
    package func setJournalMode(_ mode: JournalMode) throws -> String {
        let reported = try scalar("PRAGMA journal_mode = \(mode.rawValue.uppercased())")?.textValue ?? ""
        if reported.lowercased() != mode.rawValue, path != ":memory:", !path.isEmpty {
            throw SQLiteError(resultCode: SQLITE_ERROR,
                              message: "could not set journal_mode to \(mode.rawValue) (still \(reported))")
        }
        return reported
    }

    /// The journal mode in force (`wal`, `delete`, …).
    public func journalMode() throws -> String {
        try scalar("PRAGMA journal_mode")?.textValue?.lowercased() ?? ""
    }

    /// Runs `PRAGMA integrity_check` and returns its messages; `["ok"]` means sound.
    package func integrityCheck() throws -> [String] {
        let statement = try prepare("PRAGMA integrity_check")
        var messages: [String] = []
        try statement.forEachRow { messages.append($0.string(at: 0) ?? "") }
        return messages
    }

    /// True when a table of that name exists.
    package func tableExists(_ name: String) throws -> Bool {
        try scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) != nil
    }

    /// The column names of `table`, in order.
    public func columns(of table: String) throws -> [String] {
        let statement = try prepare("PRAGMA table_info(\(quoteIdentifier(table)))")
        var names: [String] = []
        try statement.forEachRow { names.append($0.string(at: 1) ?? "") }
        return names
    }
}

/// Quotes an identifier for SQL (`"name"`), doubling embedded quotes.
package func quoteIdentifier(_ name: String) -> String {
    // A name without a quote (every name a model gives) has nothing to double: Foundation's
    // `replacingOccurrences` bridges to NSString, about 9,000 instructions a call and four
    // runtime conformance scans (0.9 M) at its first use in a process; it was half of building
    // a search index's trigger SQL, which a store's first open compares with the store's.
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
