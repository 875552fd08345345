import CSQLite

/// An error reported by SQLite, with the context in which it happened.
///
/// ```swift
/// do { try connection.execute("INSERT INTO t(id) VALUES (1)") }
/// catch let error as SQLiteError where error.resultCode == SQLITE_CONSTRAINT { … }
/// ```
///
/// Its description reads like
/// `SQLite error 19: UNIQUE constraint failed: t.id - while executing INSERT INTO t(id) VALUES (1)`.
package struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    package var resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); equals `resultCode` when SQLite gave none.
    package var extendedCode: Int32
    /// SQLite's own message, or ours for errors found before SQLite ran.
    package var message: String
    /// The SQL being executed, if any.
    package var sql: String?

    package init(resultCode: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.resultCode = resultCode
        self.extendedCode = extendedCode ?? resultCode
        self.message = message
        self.sql = sql
    }

    /// Builds the error from the connection's last error state.
    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let text: String
        if let connection, let raw = sqlite3_errmsg(connection) {
            text = String(cString: raw)
        } else if let raw = sqlite3_errstr(code) {
            text = String(cString: raw)
        } else {
            text = "unknown error"
        }
        self.init(resultCode: code & 0xFF, extendedCode: extended, message: text, sql: sql)
    }

    package var description: String {
        var text = "SQLite error \(resultCode): \(message)"
        // One line whatever the statement's layout: an error is printed as one line.
        if let sql { text += " - while executing " + sql.split(whereSeparator: \.isNewline).map { $0.drop(while: \.isWhitespace) }.joined(separator: " ") }
        return text
    }

    /// True for `SQLITE_BUSY` and `SQLITE_LOCKED`: another connection holds the lock.
    var isBusy: Bool { resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }

    /// True for a violated `UNIQUE` or `PRIMARY KEY` constraint.
    package var isUniqueConstraintViolation: Bool {
        extendedCode == SQLiteError.constraintUnique || extendedCode == SQLiteError.constraintPrimaryKey
    }

    // Extended codes are macros that Swift does not import.
    package static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
    /// `SQLITE_ABORT_ROLLBACK`: the transaction the statement belonged to was rolled back.
    package static let abortRollback: Int32 = SQLITE_ABORT | (2 << 8)
}

/// Turns a non-OK result code into a thrown `SQLiteError`.
@inline(__always)
func check(_ code: Int32, _ connection: OpaquePointer?, sql: String? = nil) throws {
    if code != SQLITE_OK { throw SQLiteError(connection: connection, code: code, sql: sql) }
}
