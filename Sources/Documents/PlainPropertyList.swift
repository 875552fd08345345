import Foundation

/// Reads the plain XML property list `PropertyListSerialization` writes for a flat dictionary of
/// strings, integers, dates and booleans (what `DocumentMetadata.plist` holds), without
/// Foundation's parser: that parser, and casting its bridged objects back to Swift values, cost
/// every command about 2 M instructions of a process's first steps. Anything else in the file
/// (another value type, a nested collection, CDATA, character references, a comment, another
/// layout) gives nil, and the caller reads the file with Foundation as before.
enum PlainPropertyList {
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case date(Date)
        case boolean(Bool)
    }

    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        """

    /// The dictionary's values by key; nil unless the whole file is in the plain form.
    static func values(_ data: Data) -> [String: Value]? {
        // Valid UTF-8 throughout, so that text cut at ASCII markup is valid too.
        guard String(validating: data, as: UTF8.self) != nil else { return nil }
        var scanner = Scanner(Array(data))
        guard scanner.skip(header) else { return nil }
        var values: [String: Value] = [:]
        while true {
            scanner.skipWhitespace()
            if scanner.skip("</dict>") { break }
            guard scanner.skip("<key>"), let key = scanner.text(until: "</key>") else { return nil }
            scanner.skipWhitespace()
            let value: Value
            if scanner.skip("<string/>") {
                value = .string("")
            } else if scanner.skip("<string>") {
                guard let string = scanner.text(until: "</string>") else { return nil }
                value = .string(string)
            } else if scanner.skip("<integer>") {
                guard let digits = scanner.text(until: "</integer>"), let integer = integer(digits) else { return nil }
                value = .integer(integer)
            } else if scanner.skip("<date>") {
                guard let stamp = scanner.text(until: "</date>"), let date = date(stamp) else { return nil }
                value = .date(date)
            } else if scanner.skip("<true/>") {
                value = .boolean(true)
            } else if scanner.skip("<false/>") {
                value = .boolean(false)
            } else {
                return nil
            }
            guard values.updateValue(value, forKey: key) == nil else { return nil }
        }
        scanner.skipWhitespace()
        guard scanner.skip("</plist>") else { return nil }
        scanner.skipWhitespace()
        return scanner.isAtEnd ? values : nil
    }

    /// `-?[0-9]+` within `Int64` (Foundation reads larger ones as unsigned; they go to it).
    private static func integer(_ text: String) -> Int64? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a real moment of the years 1601–9999 (the Gregorian calendar
    /// throughout, as Foundation counts them); nil for anything else.
    private static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
              bytes[19] == 0x5A else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19),
              (1601...9999).contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: [Int64] = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[Int(month) - 1]).contains(day) else { return nil }
        // Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Just enough of a scanner for the plain form, over the file's bytes: literal text,
    /// whitespace, and text up to a closing tag with XML's five named entities.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { position == bytes.count }

        private func matches(_ literal: String, at index: Int) -> Bool {
            var index = index
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
            }
            return true
        }

        mutating func skip(_ literal: String) -> Bool {
            guard matches(literal, at: position) else { return false }
            position += literal.utf8.count
            return true
        }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        /// The text before `end` (which is consumed), its entities replaced; nil when the text
        /// holds markup, a carriage return (XML reads it as a line feed), a character reference
        /// or an entity other than the five.
        mutating func text(until end: String) -> String? {
            var text: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                if byte == 0x3C {  // <
                    guard matches(end, at: position) else { return nil }
                    position += end.utf8.count
                    return String(decoding: text, as: UTF8.self)
                }
                if byte == 0x0D { return nil }
                if byte == 0x26 {  // &
                    let entities: [(String, UInt8)] = [("&amp;", 0x26), ("&lt;", 0x3C), ("&gt;", 0x3E), ("&quot;", 0x22), ("&apos;", 0x27)]
                    guard let (entity, character) = entities.first(where: { matches($0.0, at: position) }) else { return nil }
                    text.append(character)
                    position += entity.utf8.count
                    continue
                }
                text.append(byte)
                position += 1
            }
            return nil
        }
    }
}
