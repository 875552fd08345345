import CSQLite
import Foundation

final class FunctionBox {
    let body: ([SQLiteValue]) throws -> SQLiteValue
    init(body: @escaping ([SQLiteValue]) throws -> SQLiteValue) { self.body = body }
}

extension Connection {
    /// Registers a scalar SQL function implemented in Swift.
    ///
    /// ```swift
    /// try connection.createFunction("fold", argumentCount: 1) { arguments in
    ///     .text(arguments[0].textValue?.lowercased() ?? "")
    /// }
    /// ```
    /// A thrown error becomes an SQL error of the statement that called the function.
    package func createFunction(_ name: String, argumentCount: Int32, deterministic: Bool = true,
                               _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) throws {
        let box = FunctionBox(body: body)
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, Unmanaged.passUnretained(box).toOpaque(),
            { context, count, arguments in
                guard let context, let user = sqlite3_user_data(context) else { return }
                let box = Unmanaged<FunctionBox>.fromOpaque(user).takeUnretainedValue()
                var values: [SQLiteValue] = []
                values.reserveCapacity(Int(count))
                for index in 0..<Int(count) { values.append(sqliteValue(arguments?[index])) }
                do {
                    setResult(try box.body(values), context)
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                }
            }, nil, nil, nil)
        try check(code, handle, sql: "create function \(name)")
        // The connection keeps the box alive for as long as SQLite may call it.
        functionBoxes["\(name)/\(argumentCount)"] = box
    }
}

func sqliteValue(_ value: OpaquePointer?) -> SQLiteValue {
    guard let value else { return .null }
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
        guard let text = sqlite3_value_text(value) else { return .text("") }
        let count = Int(sqlite3_value_bytes(value))
        return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
        guard let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
        return .blob(Data(bytes: bytes, count: Int(sqlite3_value_bytes(value))))
    default: return .null
    }
}

private func setResult(_ value: SQLiteValue, _ context: OpaquePointer) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let integer): sqlite3_result_int64(context, integer)
    case .real(let real): sqlite3_result_double(context, real)
    case .text(let text):
        var text = text
        text.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_result_text(context, $0, Int32(bytes.count), sqliteTransient)
                }
            } else {
                sqlite3_result_text(context, "", 0, sqliteTransient)
            }
        }
    case .blob(let blob):
        if blob.isEmpty {
            sqlite3_result_zeroblob(context, 0)
        } else {
            blob.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), sqliteTransient) }
        }
    }
}
