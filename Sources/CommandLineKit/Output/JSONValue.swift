import Timestamps
import Foundation

/// A JSON value whose object keys keep the order they were given in, so that output is
/// stable and reads in the order the CLI contract lists the keys.
///
/// ```swift
/// let value: JSONValue = .object([("name", .string("sea")), ("count", .number(3))])
/// print(value.rendered())   // {"name": "sea", "count": 3}
/// ```
///
/// Not `indirect`: arrays and objects hold their elements in array storage already, and an
/// indirect enum boxes every value, a string or a number too (an allocation and a release per
/// value: 4 M instructions of a `tags --json`).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    /// A number written exactly as given (a decimal's digits); the caller supplies valid JSON.
    case decimal(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// A string, or null.
    package static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// A number, or null; integral values print without a fraction.
    package static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number(value)
    }

    /// An ISO 8601 UTC timestamp in whole seconds (`2023-04-01T10:15:00Z`), or null: one
    /// format for every date, which strict decoders (Swift's `.iso8601`, for one) all read. A
    /// date outside the years 0001–9999 (a store's sentinel) is the number of seconds since
    /// 2001-01-01 it holds, never a wrong date.
    package static func date(_ value: Date?) -> JSONValue {
        guard let value else { return .null }
        let seconds = value.timeIntervalSinceReferenceDate
        guard let text = ISO8601Timestamp.string(secondsSinceReferenceDate: seconds) else {
            return seconds.isFinite ? .number(seconds) : .null
        }
        return .string(text)
    }

    /// `2023-04-01T10:15:00Z`, in whole seconds rounded down (a visit at 10:15:00.9 was still at
    /// 10:15:00); outside the years 0001–9999, the seconds since 2001-01-01 as a number.
    package static func formatDate(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        return ISO8601Timestamp.string(secondsSinceReferenceDate: seconds) ?? "\(seconds)"
    }

    /// The value as JSON text: pretty-printed with two-space indents when `pretty`.
    package func rendered(pretty: Bool = true) -> String {
        rendered(pretty: pretty, lineBreak: false)
    }

    /// `rendered(pretty:)` and a line break, made as one string (not a long answer copied again
    /// to add the break).
    package func renderedLine(pretty: Bool = true) -> String {
        rendered(pretty: pretty, lineBreak: true)
    }

    private func rendered(pretty: Bool, lineBreak: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        append(to: &bytes, indent: pretty ? 0 : nil)
        if lineBreak { bytes.append(UInt8(ascii: "\n")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the value pretty-printed, continuing a line already indented by `indent` levels
    /// (nil: compact, on one line).
    package func write(to output: inout some TextOutputStream, indent: Int?) {
        var bytes: [UInt8] = []
        append(to: &bytes, indent: indent)
        output.write(String(decoding: bytes, as: UTF8.self))
    }

    /// The text is built as UTF-8 bytes and made a `String` once: appending to a `String` piece
    /// by piece, scalar by scalar, cost a `tags --json` of 2,000 tags 26 M instructions, more
    /// than the rest of the command (README "Performance").
    private func append(to bytes: inout [UInt8], indent: Int?) {
        switch self {
        case .null: Self.appendLiteral("null", to: &bytes)
        case .bool(let value): Self.appendLiteral(value ? "true" : "false", to: &bytes)
        case .integer(let value): Self.appendInteger(value, to: &bytes)
        case .number(let value):
            if value == value.rounded(.towardZero), abs(value) < 1e15 {
                Self.appendInteger(Int64(value), to: &bytes)
            } else {
                bytes.append(contentsOf: "\(value)".utf8)
            }
        case .decimal(let text): bytes.append(contentsOf: text.utf8)
        case .string(let value): Self.appendString(value, to: &bytes)
        case .array(let values):
            guard !values.isEmpty else { return Self.appendLiteral("[]", to: &bytes) }
            bytes.append(UInt8(ascii: "["))
            let inner = indent.map { $0 + 1 }
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.newline(&bytes, inner)
                value.append(to: &bytes, indent: inner)
            }
            Self.newline(&bytes, indent)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return Self.appendLiteral("{}", to: &bytes) }
            bytes.append(UInt8(ascii: "{"))
            let inner = indent.map { $0 + 1 }
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.newline(&bytes, inner)
                Self.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                if indent != nil { bytes.append(UInt8(ascii: " ")) }
                value.append(to: &bytes, indent: inner)
            }
            Self.newline(&bytes, indent)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A line break and two spaces a level, the spaces copied from one literal in runs (a
    /// `photos --json` line is mostly indent).
    private static func newline(_ bytes: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        bytes.append(UInt8(ascii: "\n"))
        var spaces = 2 * max(indent, 0)
        let run: StaticString = "                                "
        run.withUTF8Buffer { run in
            while spaces > 0 {
                let take = min(spaces, run.count)
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: run[0..<take]))
                spaces -= take
            }
        }
    }

    /// A literal's bytes, straight from the binary (a `String`'s `utf8` view is copied through
    /// generic code, about 170 instructions an append).
    private static func appendLiteral(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `String(value)`'s digits, written straight into the bytes.
    private static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var magnitude = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        // Swapped in place: reversing the slice `bytes[start...]` copied the whole array.
        var low = start, high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, the rest as is.
    package static func quoted(_ value: String) -> String {
        var bytes: [UInt8] = []
        appendString(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes `"`, `\\`, the C0 controls, DEL and U+2028/U+2029 (which JavaScript does not
    /// allow in a string literal); every other byte of the text's UTF-8 is copied as it is, in
    /// runs. A `String` is valid UTF-8, so the bytes E2 80 A8/A9 are exactly those two scalars.
    private static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            // Most strings need no escape: found eight bytes at a time, and copied in one go.
            guard mayNeedEscaping(utf8) else { return bytes.append(contentsOf: utf8) }
            var runStart = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                var escape: StaticString?
                var length = 1
                var hex: UInt32?
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case 0x0A: escape = "\\n"
                case 0x0D: escape = "\\r"
                case 0x09: escape = "\\t"
                case 0x08: escape = "\\b"
                case 0x0C: escape = "\\f"
                case 0x00..<0x20, 0x7F: hex = UInt32(byte)
                case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                    hex = utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029
                    length = 3
                default:
                    index += 1
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                if let escape {
                    escape.withUTF8Buffer { bytes.append(contentsOf: $0) }
                } else if let hex {
                    appendUnicodeEscape(hex, to: &bytes)
                }
                index += length
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// False when no byte of `utf8` is one `appendString` escapes or must look at twice: a
    /// quote, a backslash, a C0 control, DEL, or any byte of a non-ASCII scalar (U+2028 and
    /// U+2029 begin with E2). Eight bytes a step, as one word; the tail byte by byte.
    package static func mayNeedEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// Nonzero exactly when some byte of `word` is zero (for words with no byte 0x80 or above).
        @inline(__always) func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
        var index = 0
        if let base = utf8.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= utf8.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                // Any byte 0x80 or above sends the string to the byte-by-byte path; below that,
                // `zeroBytes` is exact, and a byte under 0x20 is one whose top three bits are zero.
                if word & highs != 0 { return true }
                if zeroBytes(word & (ones &* 0xE0)) | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
                    | zeroBytes(word ^ (ones &* 0x7F)) != 0 {
                    return true
                }
                index += 8
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            index += 1
        }
        return false
    }

    /// `\\u` and four lowercase hexadecimal digits.
    private static func appendUnicodeEscape(_ value: UInt32, to bytes: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        bytes.append(contentsOf: "\\u".utf8)
        digits.withUTF8Buffer { digits in
            for shift in stride(from: 12, through: 0, by: -4) {
                bytes.append(digits[Int((value >> UInt32(shift)) & 0xF)])
            }
        }
    }
}
