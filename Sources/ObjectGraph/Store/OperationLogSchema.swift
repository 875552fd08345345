import Foundation
import SQLiteDB

/// The operation log's tables, beside Core Data's (outside its `Z…` and `A…` namespaces, so that
/// Core Data and the history work leave them alone):
///
/// ```sql
/// UNDO_OPERATION (ID, AUTHOR, DATE, SESSION, INSERTED, UPDATED, DELETED, UNDONE_BY, UNDOES,
///                 FIRST_TRANSACTION, LAST_TRANSACTION)
/// UNDO_ROW (OPERATION, SEQUENCE, KIND, TABLE_NAME, FIRST_KEY, LAST_KEY, OLD_VALUES)
/// ```
///
/// An operation is one command: every transaction it committed. `DATE` is seconds since 1970 of
/// its first transaction; `INSERTED`, `UPDATED`, `DELETED` are JSON objects from entity name to
/// a count of objects; `UNDONE_BY` names the undo that reverted it, `UNDOES` the operation an
/// undo reverted. `FIRST_TRANSACTION` and `LAST_TRANSACTION` are the persistent-history
/// transactions (`ATRANSACTION.Z_PK`) of its first and last commits, NULL in a store without
/// history (and in logs written before they were kept). A row of `UNDO_ROW` is a run of inserted keys (`KIND` 0, `FIRST_KEY` through
/// `LAST_KEY`), or one updated (1) or deleted (2) row with its old values (`RowValueCoding`).
package enum OperationLogSchema {
    /// Package-visible so that the bench's hand-written baseline makes the same tables.
    package static let statements = [
        """
        CREATE TABLE IF NOT EXISTS UNDO_OPERATION (ID INTEGER PRIMARY KEY, AUTHOR TEXT NOT NULL, DATE REAL NOT NULL, \
        SESSION TEXT, INSERTED TEXT NOT NULL DEFAULT '{}', UPDATED TEXT NOT NULL DEFAULT '{}', \
        DELETED TEXT NOT NULL DEFAULT '{}', UNDONE_BY INTEGER, UNDOES INTEGER, FIRST_TRANSACTION INTEGER, \
        LAST_TRANSACTION INTEGER)
        """,
        """
        CREATE TABLE IF NOT EXISTS UNDO_ROW (OPERATION INTEGER NOT NULL, SEQUENCE INTEGER NOT NULL, KIND INTEGER NOT NULL, \
        TABLE_NAME TEXT NOT NULL, FIRST_KEY INTEGER NOT NULL, LAST_KEY INTEGER NOT NULL, OLD_VALUES BLOB, \
        PRIMARY KEY (OPERATION, SEQUENCE)) WITHOUT ROWID
        """,
    ]

    static func create(on connection: Connection) throws {
        if try connection.tableExists("UNDO_ROW") && connection.tableExists("UNDO_OPERATION") { return }
        for statement in statements { try connection.execute(statement) }
    }

    /// Adds the history transactions' columns to a log written before they were kept.
    static func upgrade(on connection: Connection) throws {
        guard try connection.tableExists("UNDO_OPERATION"), try !hasTransactionColumns(on: connection) else { return }
        try connection.execute("ALTER TABLE UNDO_OPERATION ADD COLUMN FIRST_TRANSACTION INTEGER")
        try connection.execute("ALTER TABLE UNDO_OPERATION ADD COLUMN LAST_TRANSACTION INTEGER")
    }

    /// The columns `LoggedOperation(row:storeUUID:)` reads, in its order (`LAST_TRANSACTION` as
    /// NULL in a log written before it was kept: `hasTransactionColumns`).
    static func operationColumns(hasTransactions: Bool) -> String {
        "ID, AUTHOR, DATE, INSERTED, UPDATED, DELETED, UNDONE_BY, UNDOES, " + (hasTransactions ? "LAST_TRANSACTION" : "NULL")
    }

    static func hasTransactionColumns(on connection: Connection) throws -> Bool {
        try connection.scalar("SELECT 1 FROM pragma_table_info('UNDO_OPERATION') WHERE name = 'LAST_TRANSACTION'") != nil
    }

    /// `{"Photo":42,"Tag":7}`: names in order, entities with no change left out.
    static func countsText(_ counts: [String: Int]) -> String {
        let members = counts.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { "\(jsonString($0.key)):\($0.value)" }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func parseCounts(_ text: String) -> [String: Int] {
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            // Written by `countsText` only: anything else is a log someone edited, and has no counts to show.
            return [:]
        }
        return object.compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    private static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// A row's values as one blob: for each value a tag byte (0 NULL, 1 integer, 2 real, 3 text,
/// 4 blob), then 8 bytes little-endian for numbers, or a 4-byte little-endian length and the
/// bytes for text (UTF-8) and blobs.
enum RowValueCoding {
    static func encode(_ values: [SQLiteValue]) -> Data {
        // Built in an array and copied once: appending to `Data` a byte at a time cost more
        // than the rest of recording a row.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 9 + 64)
        func append(_ number: UInt64, count: Int) {
            withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0.prefix(count)) }
        }
        for value in values {
            switch value {
            case .null:
                bytes.append(0)
            case .integer(let integer):
                bytes.append(1)
                append(UInt64(bitPattern: integer), count: 8)
            case .real(let real):
                bytes.append(2)
                append(real.bitPattern, count: 8)
            case .text(var text):
                bytes.append(3)
                text.withUTF8 { utf8 in
                    append(UInt64(utf8.count), count: 4)
                    bytes.append(contentsOf: utf8)
                }
            case .blob(let blob):
                bytes.append(4)
                append(UInt64(blob.count), count: 4)
                bytes.append(contentsOf: blob)
            }
        }
        return Data(bytes)
    }

    /// - Throws: `StoreError` when the blob is not one `encode` wrote.
    static func decode(_ data: Data) throws -> [SQLiteValue] {
        let bytes = [UInt8](data)
        var position = 0
        var values: [SQLiteValue] = []
        func number(_ count: Int) throws -> UInt64 {
            guard position + count <= bytes.count else { throw StoreError("the operation log holds a damaged row") }
            var result: UInt64 = 0
            for index in 0..<count { result |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
            position += count
            return result
        }
        while position < bytes.count {
            let tag = bytes[position]
            position += 1
            switch tag {
            case 0: values.append(.null)
            case 1: values.append(.integer(Int64(bitPattern: try number(8))))
            case 2: values.append(.real(Double(bitPattern: try number(8))))
            case 3, 4:
                let count = Int(try number(4))
                guard position + count <= bytes.count else { throw StoreError("the operation log holds a damaged row") }
                let slice = Array(bytes[position..<(position + count)])
                position += count
                values.append(tag == 3 ? .text(String(decoding: slice, as: UTF8.self)) : .blob(Data(slice)))
            default:
                throw StoreError("the operation log holds a damaged row")
            }
        }
        return values
    }
}
