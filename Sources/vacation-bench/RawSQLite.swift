import CSQLite
import Foundation

/// The baseline's whole access to SQLite: the C API with nothing in between but this thin,
/// inlinable veneer, so that what the baseline measures is SQLite's own cost.
struct RawSQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }
}

/// `SQLITE_TRANSIENT`, which Swift does not import.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

final class RawDatabase {
    let handle: OpaquePointer

    /// Opens `path` as the framework's stores are opened: WAL, `synchronous = NORMAL`.
    init(path: String, readOnly: Bool = false) throws {
        var database: OpaquePointer?
        let flags = SQLITE_OPEN_NOMUTEX | (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
        let code = sqlite3_open_v2(path, &database, flags, nil)
        guard code == SQLITE_OK, let database else {
            sqlite3_close_v2(database)
            throw RawSQLiteError(code: code, message: "cannot open \(path)")
        }
        handle = database
        sqlite3_busy_timeout(database, 10_000)
        if !readOnly {
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = NORMAL")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql) }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, sql) }
        return RawStatement(handle: statement, database: self)
    }

    /// The first column of the first row as an integer (0 when there is no row).
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }

    func error(_ code: Int32, _ context: String) -> RawSQLiteError {
        RawSQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)) + " (\(context))")
    }
}

/// A prepared statement; parameters and columns are 0-based, as in the framework's `Statement`.
final class RawStatement {
    let handle: OpaquePointer
    private unowned let database: RawDatabase

    init(handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always) func bind(_ value: Int64, _ index: Int32) { sqlite3_bind_int64(handle, index + 1, value) }
    @inline(__always) func bind(_ value: Double, _ index: Int32) { sqlite3_bind_double(handle, index + 1, value) }
    @inline(__always) func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index + 1) }

    @inline(__always) func bind(_ value: String, _ index: Int32) {
        var value = value
        value.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    _ = sqlite3_bind_text(handle, index + 1, $0, Int32(bytes.count), transient)
                }
            } else {
                _ = sqlite3_bind_text(handle, index + 1, "", 0, transient)
            }
        }
    }

    @inline(__always) func bind(_ value: String?, _ index: Int32) {
        if let value { bind(value, index) } else { bindNull(index) }
    }

    @inline(__always) func bind(_ value: Double?, _ index: Int32) {
        if let value { bind(value, index) } else { bindNull(index) }
    }

    @inline(__always) func bind(_ value: Date?, _ index: Int32) {
        if let value { bind(value.timeIntervalSinceReferenceDate, index) } else { bindNull(index) }
    }

    /// True while there is a row; throws on failure.
    @inline(__always) func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        sqlite3_reset(handle)
        throw database.error(code, String(cString: sqlite3_sql(handle)))
    }

    /// Runs to completion and resets.
    @inline(__always) func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    @inline(__always) func reset() { sqlite3_reset(handle) }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    @inline(__always) func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inline(__always) func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inline(__always) func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    @inline(__always) func date(_ column: Int32) -> Date? {
        isNull(column) ? nil : Date(timeIntervalSinceReferenceDate: double(column))
    }

    @inline(__always) func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }
}
