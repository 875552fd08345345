import Foundation
import Testing
import TestSupport
@testable import Vacations

@Suite("Export text: escaping per format, plain decimals, ISO 8601 dates")
struct ExportTextTests {
    @Test("XML escapes markup and quotes, keeps tab/LF/CR as references, replaces what XML 1.0 cannot carry")
    func xml() {
        let cases: [(String, String)] = [
            ("plain", "plain"),
            ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
            ("\"q\" 'a' ]]>", "&quot;q&quot; &apos;a&apos; ]]&gt;"),
            ("t\tl\nc\r", "t&#9;l&#10;c&#13;"),
            ("\u{0}\u{1}\u{8}\u{B}\u{C}\u{1F}", String(repeating: "\u{FFFD}", count: 6)),
            ("\u{FFFE}\u{FFFF}\u{FFFD}", "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ("\u{7F}\u{85}\u{202E}\u{200F}é🥮", "\u{7F}\u{85}\u{202E}\u{200F}é🥮"),
        ]
        for (input, expected) in cases {
            #expect(ExportText.xml(input) == expected, "\(input.debugDescription)")
        }
    }

    /// Noncharacters cannot be written as literals.
    static func scalar(_ value: UInt32) -> String { Unicode.Scalar(value).map { String($0) } ?? "" }

    @Test("HTML escapes markup and quotes, replaces controls and noncharacters, keeps bidi marks")
    func html() {
        let cases: [(String, String)] = [
            ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
            ("\"'&", "&quot;&#39;&amp;"),
            ("a\u{0}b\u{7}c\u{7F}d\u{85}e" + Self.scalar(0xFDD0) + "f" + Self.scalar(0x1FFFF),
             "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}"),
            ("tab\tlf\ncr\r", "tab\tlf\ncr\r"),
            ("\u{202E}evil\u{200F}", "\u{202E}evil\u{200F}"),
        ]
        for (input, expected) in cases {
            #expect(ExportText.html(input) == expected, "\(input.debugDescription)")
        }
    }

    @Test("JSON strings round-trip through JSONSerialization for every character class")
    func json() throws {
        var generator = SplitMix64(seed: 20)
        print("ExportTextTests.json seed 20")
        let alphabet: [Unicode.Scalar] = ["\u{0}", "\u{7}", "\n", "\r", "\t", "\"", "\\", "/", "\u{7F}", "\u{2028}", "\u{2029}",
                                          "é", "🥮", "\u{202E}", "a", " ", "<", "\u{FFFE}"]
        for _ in 0..<300 {
            let length = Int(generator.next() % 12)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
            let literal = ExportText.json(text)
            let decoded = try JSONSerialization.jsonObject(with: Data(("[" + literal + "]").utf8)) as? [String]
            #expect(decoded == [text], "\(text.debugDescription)")
            #expect(!literal.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        }
        #expect(ExportText.json(nil as String?) == "null")
    }

    @Test("CSV quotes fields with a comma, quote, CR or LF, doubling quotes, and leaves others alone")
    func csv() {
        #expect(ExportText.csvField("plain text") == "plain text")
        #expect(ExportText.csvField("a,b") == "\"a,b\"")
        #expect(ExportText.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(ExportText.csvField("line\nbreak") == "\"line\nbreak\"")
        #expect(ExportText.csvField("cr\r") == "\"cr\r\"")
        #expect(ExportText.csvField("=1+2 \u{0}") == "=1+2 \u{0}")
        #expect(ExportText.csvField("") == "")
    }

    @Test("decimals are plain (no exponent) and read back as the same Double")
    func decimals() {
        let fixed: [(Double, String)] = [(38.7, "38.7"), (-9.0, "-9"), (0.00001, "0.00001"), (-1.5e-7, "-0.00000015"),
                                         (180, "180"), (-0.0, "0"), (Double.leastNonzeroMagnitude, "0." + String(repeating: "0", count: 323) + "5"),
                                         (1e21, "1000000000000000000000"), (123.456e10, "1234560000000")]
        for (value, expected) in fixed {
            #expect(ExportText.decimal(value) == expected, "\(value)")
        }
        var generator = SplitMix64(seed: 7)
        print("ExportTextTests.decimals seed 7")
        for _ in 0..<2_000 {
            let magnitude = pow(10, Double(Int(generator.next() % 16)) - 10)
            let value = (Double(generator.next() % 2_000_001) / 1_000_000 - 1) * 180 * magnitude
            let text = ExportText.decimal(value)
            #expect(!text.contains("e") && Double(text) == value, "\(value) → \(text)")
        }
    }

    @Test("the fast date formatter agrees with the slow one, across days, years, eras and fractions")
    func dates() {
        var formatter = ISO8601Formatter()
        var generator = SplitMix64(seed: 11)
        print("ExportTextTests.dates seed 11")
        var samples: [Double] = [0, -0.5, 0.999, -1, 86_399.9, 86_400, -86_400.1, -63_000_000_000, 700_000_000, 1e12]
        for _ in 0..<2_000 { samples.append(Double(Int64(generator.next() % 20_000_000_000)) - 15_000_000_000 + 0.25) }
        for seconds in samples {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            #expect(formatter.string(date) == ExportText.iso8601(date), "\(seconds)")
        }
        #expect(ExportText.iso8601(Date.utc("2023-04-01T10:15:00Z").addingTimeInterval(0.9)) == "2023-04-01T10:15:00Z")
    }

    @Test("coordinates: missing, non-finite, out of range and 0,0 are unknown; anything else is kept")
    func coordinates() {
        #expect(Coordinate(latitude: Double?(38.7), longitude: Double?(-9.1)) != nil)
        #expect(Coordinate(latitude: Double?(0), longitude: Double?(0.0001)) != nil)
        #expect(Coordinate(latitude: Double?(0.0001), longitude: Double?(0)) != nil)
        #expect(Coordinate(latitude: Double?(90), longitude: Double?(-180)) != nil)
        let unknown: [(Double?, Double?)] = [(nil, nil), (1, nil), (nil, 1), (0, 0), (-0.0, 0), (.nan, 1), (1, .infinity),
                                             (90.1, 0), (1, 180.5), (-91, 1)]
        for (latitude, longitude) in unknown {
            #expect(Coordinate(latitude: latitude, longitude: longitude) == nil, "\(String(describing: latitude)), \(String(describing: longitude))")
        }
    }

    @Test("only absolute http(s) URLs without spaces or controls become links or image sources")
    func links() {
        #expect(WebLink.loadable("https://live.staticflickr.com/1/2_s.jpg") == "https://live.staticflickr.com/1/2_s.jpg")
        #expect(WebLink.loadable("HTTP://example.com/a?b=1&c=2") == "HTTP://example.com/a?b=1&c=2")
        for bad in [nil, "", "javascript:alert(1)", "data:text/html,<script>", "/etc/passwd", "thumbnails/1.jpg",
                    "https://exa mple.com/", "https://example.com/\u{202E}gpj.exe", "https:///nohost", "file:///etc/passwd",
                    "https://example.com/\n", "https://user@evil.example/", "https://example.com/<script>", "ftp://example.com/a.jpg"] {
            #expect(WebLink.loadable(bad) == nil, "\(String(describing: bad))")
        }
    }
}
