import CSQLite
import Foundation

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the bind call returns.
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// A prepared SQL statement with typed binds and typed column reads.
///
/// Parameters and columns are 0-based here (SQLite's parameters are 1-based underneath).
///
/// ```swift
/// let insert = try connection.cachedStatement("INSERT INTO ZTAG (Z_PK, ZNAME) VALUES (?, ?)")
/// insert.bind(Int64(1), at: 0)
/// insert.bind("sea", at: 1)
/// try insert.run()
/// ```
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text as prepared.
    package let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { sqlite3_prepare_v3(connection.handle, $0, -1, 0, &statement, &tail) }
        try check(code, connection.handle, sql: sql)
        guard let statement else {
            throw SQLiteError(resultCode: SQLITE_MISUSE, message: "no SQL statement in text", sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
        OpenConnections.shared.withLock { $0.add(statement: statement, of: connection.handle) }
    }

    deinit {
        // Once the process exits through `Connection.closeAllBeforeExit`, that finalizes.
        if OpenConnections.shared.withLock({ $0.remove(statement: handle) }) { sqlite3_finalize(handle) }
    }

    /// Number of `?` parameters.
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Number of result columns.
    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index`.
    package func columnName(at index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    // MARK: Binding

    package func bind(_ value: Int64, at index: Int) {
        sqlite3_bind_int64(handle, Int32(index + 1), value)
    }

    package func bind(_ value: Int, at index: Int) { bind(Int64(value), at: index) }

    package func bind(_ value: Double, at index: Int) {
        sqlite3_bind_double(handle, Int32(index + 1), value)
    }

    package func bind(_ value: Bool, at index: Int) { bind(Int64(value ? 1 : 0), at: index) }

    /// Binds a date as seconds since 2001-01-01 UTC (Core Data's `TIMESTAMP`).
    package func bind(_ value: Date, at index: Int) { bind(SQLiteDate.storedValue(value), at: index) }

    package func bind(_ value: String, at index: Int) {
        var value = value
        value.withUTF8 { bindText($0, at: index) }
    }

    /// Binds UTF-8 bytes as text, copied by SQLite (the caller gives valid UTF-8: the bytes of
    /// strings, joined), without making a `String` of them.
    package func bindText(utf8 bytes: [UInt8], at index: Int) {
        bytes.withUnsafeBufferPointer { bindText($0, at: index) }
    }

    /// Binds text's UTF-8 bytes, copied by SQLite.
    private func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) {
        // An empty buffer may have no base address, which SQLite would read as NULL.
        guard let base = bytes.baseAddress else {
            _ = sqlite3_bind_text(handle, Int32(index + 1), "", 0, sqliteTransient)
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            _ = sqlite3_bind_text(handle, Int32(index + 1), $0, Int32(bytes.count), sqliteTransient)
        }
    }

    package func bind(_ value: Data, at index: Int) {
        if value.isEmpty {
            // A nil pointer would bind NULL; an empty blob is a value.
            sqlite3_bind_zeroblob(handle, Int32(index + 1), 0)
            return
        }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, Int32(index + 1), bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }

    package func bindNull(at index: Int) { sqlite3_bind_null(handle, Int32(index + 1)) }

    package func bind(_ value: SQLiteValue, at index: Int) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let integer): bind(integer, at: index)
        case .real(let real): bind(real, at: index)
        case .text(let text): bind(text, at: index)
        case .blob(let blob): bind(blob, at: index)
        }
    }

    /// Binds `values` to parameters 0, 1, 2, …
    package func bind(_ values: [SQLiteValue]) {
        for (index, value) in values.enumerated() { bind(value, at: index) }
    }

    func clearBindings() { sqlite3_clear_bindings(handle) }

    // MARK: Stepping

    /// Advances to the next row; returns false when the statement is done.
    ///
    /// - Throws: `SQLiteError` carrying this statement's SQL.
    @discardableResult
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(connection: connection.handle, code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so that it can run again; bindings are kept.
    public func reset() { sqlite3_reset(handle) }

    /// Runs the statement to completion with the current bindings, then resets it.
    package func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds `values`, runs to completion and resets.
    package func run(_ values: [SQLiteValue]) throws {
        bind(values)
        try run()
    }

    /// Calls `body` once per result row, then resets.
    package func forEachRow(_ body: (Statement) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while try step() { try body(self) }
    }

    // MARK: Columns

    package func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    package func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    package func int(at index: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(index))) }

    package func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    package func bool(at index: Int) -> Bool { sqlite3_column_int64(handle, Int32(index)) != 0 }

    /// The column as text, or nil when it is NULL.
    package func string(at index: Int) -> String? {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Whether the column is text of exactly `text`'s bytes; compared where SQLite holds it, no
    /// String made.
    package func text(at index: Int, is text: String) -> Bool {
        withText(at: index) { bytes in
            var text = text
            return text.withUTF8 { expected in
                expected.count == bytes.count && (bytes.isEmpty || memcmp(expected.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            }
        } ?? false
    }

    /// Whether the column is text holding `needle`'s bytes somewhere (a non-empty needle).
    package func text(at index: Int, contains needle: String) -> Bool {
        withText(at: index) { bytes in
            var needle = needle
            return needle.withUTF8 { needle in
                guard let first = needle.first, bytes.count >= needle.count, let base = bytes.baseAddress else { return false }
                var offset = 0
                let last = bytes.count - needle.count
                while offset <= last {
                    // memchr finds each candidate first byte, memcmp checks the rest.
                    guard let found = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                    let position = base.distance(to: found)
                    if memcmp(found, needle.baseAddress!, needle.count) == 0 { return true }
                    offset = position + 1
                }
                return false
            }
        } ?? false
    }

    /// The column's text bytes as SQLite holds them (valid only inside `body`), or nil when it
    /// is not text.
    package func withText<T>(at index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { return nil }
        guard let start = sqlite3_column_text(handle, column) else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// Appends the current row's `columns` to `bytes` exactly and unambiguously, each as its
    /// storage class, then (text and blobs) its length and bytes as stored or (numbers) their
    /// 8 bytes: a record to compare rows by without making values of them.
    package func appendRecord(of columns: Range<Int>, to bytes: inout [UInt8]) {
        func append(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        for index in columns {
            let column = Int32(index)
            let type = sqlite3_column_type(handle, column)
            bytes.append(UInt8(truncatingIfNeeded: type))
            switch type {
            case SQLITE_INTEGER:
                append(UInt64(bitPattern: sqlite3_column_int64(handle, column)))
            case SQLITE_FLOAT:
                append(sqlite3_column_double(handle, column).bitPattern)
            case SQLITE_TEXT, SQLITE_BLOB:
                let start = type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(handle, column)) : sqlite3_column_blob(handle, column)
                let count = Int(sqlite3_column_bytes(handle, column))
                append(UInt64(count))
                if let start, count > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(start: start, count: count)) }
            default:
                continue
            }
        }
    }

    /// The column as bytes, or nil when it is NULL; an empty blob is empty `Data`.
    public func data(at index: Int) -> Data? {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The column as a date stored as seconds since 2001, or nil when it is NULL.
    package func date(at index: Int) -> Date? {
        isNull(at: index) ? nil : SQLiteDate.date(double(at: index))
    }

    /// The column as whatever storage class SQLite holds it in.
    public func value(at index: Int) -> SQLiteValue {
        // One column call, then the value's own accessors: each `sqlite3_column_*` call checks
        // the statement and settles its error state again, and a text column needs three. The
        // value is "unprotected" (no mutex held), which is safe here: a connection opens without
        // mutexes and is used by one thread at a time.
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            // Text first, then its length in bytes, as SQLite's documentation asks.
            guard let text = sqlite3_value_text(value) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_value_bytes(value))))
        default: return .null
        }
    }

    /// SQL with the current bindings substituted, as SQLite renders it.
    package var expandedSQL: String? {
        guard let raw = sqlite3_expanded_sql(handle) else { return nil }
        defer { sqlite3_free(raw) }
        return String(cString: raw)
    }
}
