import Foundation

/// Flickr's date and number formats, parsed from bytes.
enum FlickrDates {
    /// `datetaken`: "YYYY-MM-DD HH:MM:SS" (or just the date), a wall-clock time read as UTC.
    /// Flickr writes "0000-00-00 00:00:00" for unknown dates: that is `nil`.
    static func takenDate(_ bytes: UnsafeRawBufferPointer) -> Date? {
        guard bytes.count == 10 || bytes.count == 16 || bytes.count == 19 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for index in from..<(from + count) {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              year > 0, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        if bytes.count >= 16 {
            guard bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
                  let parsedHour = number(11, 2), let parsedMinute = number(14, 2),
                  parsedHour < 24, parsedMinute < 60 else { return nil }
            hour = parsedHour
            minute = parsedMinute
            if bytes.count == 19 {
                guard bytes[16] == UInt8(ascii: ":"), let parsedSecond = number(17, 2), parsedSecond < 61 else { return nil }
                second = parsedSecond
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Whether a `datetaken` is Flickr's "unknown": zeros where the digits go
    /// ("0000-00-00 00:00:00", "0000-00-00").
    static func isZeroDate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let zeros = "0000-00-00 00:00:00".utf8
        return (bytes.count == 10 || bytes.count == 19) && bytes.elementsEqual(zeros.prefix(bytes.count))
    }

    /// `dateupload`: seconds since 1970 as decimal digits (a string or a JSON number).
    static func unixDate(_ bytes: UnsafeRawBufferPointer) -> Date? {
        guard !bytes.isEmpty, bytes.count <= 15 else { return nil }
        var value = 0
        for byte in bytes {
            let digit = Int(byte) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
        }
        return Date(timeIntervalSince1970: TimeInterval(value))
    }

    static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count < 64, let value = Double(string(bytes)), value.isFinite else { return nil }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
