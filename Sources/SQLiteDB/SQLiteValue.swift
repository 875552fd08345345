import Foundation

/// One value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// let values: [SQLiteValue] = [.integer(1), .text("Lisbon"), .null]
/// ```
public enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as SQL would show it: `NULL`, a number, quoted text or an `X'…'` blob.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    package var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value.rounded(.towardZero))
        default: nil
        }
    }

    package var realValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    package var textValue: String? { if case .text(let value) = self { value } else { nil } }
    package var blobValue: Data? { if case .blob(let value) = self { value } else { nil } }
}

/// Dates are stored as Core Data stores them: seconds since 2001-01-01 00:00:00 UTC, as a REAL.
enum SQLiteDate {
    static func storedValue(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate }
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }
}
