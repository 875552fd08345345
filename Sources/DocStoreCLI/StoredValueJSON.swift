import Timestamps
import Foundation
import CommandLineKit
import ObjectGraph
import SQLiteDB

/// Renders stored attribute values as JSON, by the attribute's type: dates in ISO 8601 (UTC),
/// binary data in base64, UUIDs as text, decimals as JSON numbers with their exact digits.
/// A value that does not fit its type — text in a date column, a date four million years
/// away — is shown as SQLite holds it; infinite numbers as `"Infinity"` and `"-Infinity"`.
///
/// ```swift
/// StoredValueJSON.render(.real(380894400), as: .date)   // .string("2013-01-26T12:00:00Z")
/// ```
enum StoredValueJSON {
    static func render(_ value: SQLiteValue, as type: AttributeType) -> JSONValue {
        if value.isNull { return .null }
        switch type {
        case .boolean:
            if let flag = Bool(stored: value) { return .bool(flag) }
        case .integer16, .integer32, .integer64:
            if case .integer(let integer) = value { return .integer(integer) }
        case .double, .float:
            if let number = value.realValue { return number.isFinite ? .double(number) : .string(number > 0 ? "Infinity" : "-Infinity") }
        case .decimal:
            if let decimal = Decimal(stored: value) {
                return .decimal(NSDecimalNumber(decimal: decimal).description(withLocale: Locale(identifier: "en_US_POSIX")))
            }
        case .date:
            // A moment outside the years 0001–9999 (a sentinel) shows as the number stored.
            if let seconds = value.realValue, let text = iso8601(secondsSinceReferenceDate: seconds) { return .string(text) }
        case .string, .uri:
            if case .text(let text) = value { return .string(text) }
        case .uuid:
            if let uuid = UUID(stored: value) { return .string(uuid.uuidString) }
        case .binary, .transformable:
            if case .blob(let data) = value { return .string(data.base64EncodedString()) }
        case .undefined, .objectID, .composite:
            break
        }
        return raw(value)
    }

    /// A value as SQLite holds it, whatever the attribute's type.
    static func raw(_ value: SQLiteValue) -> JSONValue {
        switch value {
        case .null: .null
        case .integer(let integer): .integer(integer)
        case .real(let real): real.isFinite ? .double(real) : .string(real > 0 ? "Infinity" : "-Infinity")
        case .text(let text): .string(text)
        case .blob(let data): .string(data.base64EncodedString())
        }
    }

    /// `2013-01-26T12:00:00Z`; with milliseconds when the time has a fraction of a second; nil
    /// outside the years 0001–9999.
    static func iso8601(secondsSinceReferenceDate seconds: Double) -> String? {
        ISO8601Timestamp.string(secondsSinceReferenceDate: seconds, milliseconds: seconds.rounded(.down) != seconds)
    }
}
