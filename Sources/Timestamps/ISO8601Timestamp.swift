import Foundation

/// ISO 8601 UTC text for a moment stored as seconds since 2001-01-01 (Core Data's `TIMESTAMP`),
/// in the proleptic Gregorian calendar (as ISO 8601 and Python's `datetime` count), for the
/// years 0001–9999. Anything else — Photos keeps sentinels such as `123456789012345`, some four
/// million years away; Foundation's `distantPast` is 0000-12-30 in this calendar — has no such
/// text: callers show the stored number instead of a wrong or unreadable date.
///
/// ```swift
/// ISO8601Timestamp.string(secondsSinceReferenceDate: 380894400)        // "2013-01-26T12:00:00Z"
/// ISO8601Timestamp.string(secondsSinceReferenceDate: 123456789012345)  // nil
/// ```
public enum ISO8601Timestamp {
    /// Seconds between 1970-01-01 and 2001-01-01.
    private static let referenceOffset: Int64 = 978_307_200
    /// Beyond this many seconds from 2001 no year has four digits; it also keeps the arithmetic in range.
    private static let limit = 400_000_000_000.0

    /// `2013-01-26T12:00:00Z`; with `milliseconds`, `.SSS` before the `Z` (rounded down).
    /// Nil when the value is not finite or its year is outside 0001–9999.
    public static func string(secondsSinceReferenceDate seconds: Double, milliseconds: Bool = false) -> String? {
        guard seconds.isFinite, abs(seconds) < limit else { return nil }
        let whole = seconds.rounded(.down)
        let unixSeconds = Int64(whole) + referenceOffset
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = unixSeconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        guard (1...9999).contains(year) else { return nil }
        // Digits written by hand into the string's own bytes: `String(format:)` goes through
        // Foundation's formatter and asks the runtime whether each argument conforms to its
        // protocols (the first questions of a process scan every conformance it has), and
        // appending piece by piece cost about 7,000 instructions a date.
        let fraction = milliseconds ? min(999, Int64(((seconds - whole) * 1000).rounded(.down))) : 0
        return String(unsafeUninitializedCapacity: milliseconds ? 24 : 20) { buffer in
            var position = 0
            func put(_ value: Int64, width: Int) {
                var rest = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                position += width
            }
            func put(_ character: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: character)
                position += 1
            }
            put(year, width: 4)
            put("-")
            put(month, width: 2)
            put("-")
            put(day, width: 2)
            put("T")
            put(secondOfDay / 3600, width: 2)
            put(":")
            put(secondOfDay % 3600 / 60, width: 2)
            put(":")
            put(secondOfDay % 60, width: 2)
            if milliseconds {
                put(".")
                put(fraction, width: 3)
            }
            put("Z")
            return position
        }
    }

    /// Year, month, day of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSince1970 + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
