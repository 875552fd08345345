import Foundation
import Timestamps

/// How exports write text, numbers and dates: each format's escaping, in one place.
///
/// Every text a vacation holds (titles, tags, place names, URLs) is untrusted: a feed or another
/// tool wrote it. Each function here makes any Swift string come out as *text* in its format,
/// never as markup, and never as a document that its parser refuses.
///
/// ```swift
/// ExportText.xml("Tom & Jerry <b>")      // "Tom &amp; Jerry &lt;b&gt;"
/// ExportText.json("say \"hi\"")          // "\"say \\\"hi\\\"\""
/// ExportText.csvField("a,b")             // "\"a,b\""
/// ExportText.decimal(1e-05)              // "0.00001"
/// ```
enum ExportText {
    /// The character written in place of one that a format cannot carry at all.
    static let replacement: Unicode.Scalar = "\u{FFFD}"

    // MARK: XML (KML, GPX)

    /// Text for XML 1.0 element content and attribute values (either quote style):
    /// `& < > " '` as entities; tab, line feed and carriage return as character references
    /// (so that attribute normalisation and line-end handling give them back unchanged);
    /// characters XML 1.0 cannot carry at all — C0 controls other than tab, LF and CR,
    /// U+FFFE and U+FFFF — replaced by U+FFFD.
    static func xml(_ text: String) -> String {
        guard text.utf8.contains(where: needsXMLWork) || text.unicodeScalars.contains(where: isXMLNoncharacter) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output.append(contentsOf: "&amp;".unicodeScalars)
            case "<": output.append(contentsOf: "&lt;".unicodeScalars)
            case ">": output.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": output.append(contentsOf: "&quot;".unicodeScalars)
            case "'": output.append(contentsOf: "&apos;".unicodeScalars)
            case "\t": output.append(contentsOf: "&#9;".unicodeScalars)
            case "\n": output.append(contentsOf: "&#10;".unicodeScalars)
            case "\r": output.append(contentsOf: "&#13;".unicodeScalars)
            case _ where scalar.value < 0x20 || isXMLNoncharacter(scalar): output.append(replacement)
            default: output.append(scalar)
            }
        }
        return String(output)
    }

    private static func needsXMLWork(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private static func isXMLNoncharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }

    // MARK: HTML

    /// Text for HTML content and quoted attribute values: `& < > " '` as entities; controls
    /// other than tab, line feed and carriage return, and Unicode noncharacters (parse errors
    /// in HTML) replaced by U+FFFD. Bidirectional marks stay: the album isolates each text
    /// in `<bdi>` so that they cannot reorder what surrounds it.
    static func html(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsHTMLWork($0) }) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output.append(contentsOf: "&amp;".unicodeScalars)
            case "<": output.append(contentsOf: "&lt;".unicodeScalars)
            case ">": output.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": output.append(contentsOf: "&quot;".unicodeScalars)
            case "'": output.append(contentsOf: "&#39;".unicodeScalars)
            case "\t", "\n", "\r": output.append(scalar)
            case _ where isHTMLForbidden(scalar): output.append(replacement)
            default: output.append(scalar)
            }
        }
        return String(output)
    }

    private static func needsHTMLWork(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "&", "<", ">", "\"", "'": return true
        case "\t", "\n", "\r": return false
        default: return isHTMLForbidden(scalar)
        }
    }

    private static func isHTMLForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
    }

    // MARK: JSON (GeoJSON)

    /// A JSON string literal, escaped as every JSON the CLI prints: quotes, backslashes,
    /// C0 controls, DEL and U+2028/U+2029 escaped; everything else as it is.
    static func json(_ text: String) -> String {
        // Most text needs no escape: bytes below 0x20, the quote, the backslash, DEL, and 0xE2
        // (the lead byte of U+2028 and U+2029) are the only ones that can need one.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }) {
            return "\"" + text + "\""
        }
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// A JSON string, or `null`.
    static func json(_ text: String?) -> String {
        text.map { json($0) } ?? "null"
    }

    // MARK: CSV

    /// One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF, with quotes doubled;
    /// otherwise as it is. Every other character, controls included, is kept: CSV has no
    /// escapes, and a reader gets back exactly the text.
    static func csvField(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10 }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Numbers and dates

    /// A number in plain decimal notation with the fewest digits that read back as the same
    /// `Double` — never an exponent, which GPX's `xsd:decimal` and some KML readers refuse:
    /// `38.7`, `-9`, `0.00001`.
    static func decimal(_ value: Double) -> String {
        var text = "\(value)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        guard let exponentIndex = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
              let exponent = Int(text[text.index(after: exponentIndex)...]) else { return text == "-0" ? "0" : text }
        var mantissa = String(text[..<exponentIndex])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let pointOffset = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        let digits = mantissa.filter { $0 != "." }
        // The decimal point moves `exponent` places from where it stood in the mantissa.
        let point = pointOffset + exponent
        var plain: String
        if point <= 0 {
            plain = "0." + String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            plain = digits + String(repeating: "0", count: point - digits.count)
        } else {
            plain = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
        }
        if plain.contains(".") {
            while plain.hasSuffix("0") { plain.removeLast() }
            if plain.hasSuffix(".") { plain.removeLast() }
        }
        return negative && plain != "0" ? "-" + plain : plain
    }

    /// An ISO 8601 UTC timestamp in whole seconds, rounded down (`2023-04-01T10:15:00Z`), in the
    /// proleptic Gregorian calendar: the form of every date the CLI prints in JSON. A date outside
    /// the years 0001–9999 (a store's sentinel) is its seconds since 2001, as the CLI shows it.
    static func iso8601(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        return ISO8601Timestamp.string(secondsSinceReferenceDate: seconds) ?? "\(seconds)"
    }
}

/// Formats many dates quickly: the day's text is made once per day met, the time of day by
/// arithmetic (UTC has no daylight saving, and Foundation no leap seconds). Exports format a
/// date per photo; a million photos span few days.
struct ISO8601Formatter {
    private var cachedDay: Int64 = .min
    private var cachedPrefix = ""

    mutating func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate.rounded(.down)
        // Beyond this, days do not fit comfortably in an Int64; such dates take the slow path.
        guard seconds.isFinite, abs(seconds) < 1e15 else { return ExportText.iso8601(date) }
        let whole = Int64(seconds)
        let day = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let time = whole - day * 86_400
        if day != cachedDay {
            guard let midnight = ISO8601Timestamp.string(secondsSinceReferenceDate: Double(day * 86_400)) else {
                return ExportText.iso8601(date)
            }
            cachedPrefix = String(midnight.prefix(while: { $0 != "T" }))
            cachedDay = day
        }
        return cachedPrefix + "T" + Self.two(time / 3_600) + ":" + Self.two(time / 60 % 60) + ":" + Self.two(time % 60) + "Z"
    }

    private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
}
