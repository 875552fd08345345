import CommandLineKit
import Foundation
import Testing
import TestSupport

/// The renderer builds UTF-8 bytes; these hold it to the scalar-by-scalar `String` renderer it
/// replaced (`Reference`, kept here as the oracle), byte for byte, on fixed and random values.
@Suite("JSON rendering")
struct JSONValueRenderingTests {
    @Test("strings escape quotes, backslashes, controls, DEL and U+2028/U+2029, and keep every other scalar")
    func strings() {
        let cases: [(String, String)] = [
            ("", "\"\""),
            ("sea", "\"sea\""),
            ("a\"b\\c", "\"a\\\"b\\\\c\""),
            ("\n\r\t\u{08}\u{0C}", "\"\\n\\r\\t\\b\\f\""),
            ("\u{00}\u{01}\u{1F}\u{7F}", "\"\\u0000\\u0001\\u001f\\u007f\""),
            ("x\u{2028}y\u{2029}z", "\"x\\u2028y\\u2029z\""),
            ("\u{2027}\u{202A}\u{80}é日本🏖️", "\"\u{2027}\u{202A}\u{80}é日本🏖️\""),
            ("e\u{301}", "\"e\u{301}\""),
        ]
        for (text, expected) in cases {
            #expect(JSONValue.quoted(text) == expected)
            #expect(JSONValue.quoted(text) == Reference.quoted(text))
        }
    }

    @Test("the word-at-a-time scan flags every byte it must, at every offset, and no other")
    func escapeScan() {
        for length in 0...19 {
            let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(!plain.withUnsafeBufferPointer(JSONValue.mayNeedEscaping), "length \(length)")
            for offset in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = plain
                    bytes[offset] = byte
                    let expected = byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                    #expect(bytes.withUnsafeBufferPointer(JSONValue.mayNeedEscaping) == expected,
                            "byte \(byte) at \(offset) of \(length)")
                }
            }
        }
    }

    @Test("long strings escape what they hold wherever it lies, before, across and after a word's eight bytes")
    func longStrings() {
        let specials = ["\"", "\\", "\n", "\u{01}", "\u{7F}", "\u{2028}", "é", "🏖️"]
        for length in 0...24 {
            for offset in 0...length {
                for special in specials {
                    var text = String(repeating: "x", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: offset))
                    #expect(JSONValue.quoted(text) == Reference.quoted(text), "\(special.debugDescription) at \(offset) of \(length)")
                }
            }
        }
    }

    @Test("random values render as the String renderer rendered them, pretty and compact, whole and continued")
    func randomValues() {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("JSONValueRenderingTests seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<400 {
            let value = Self.randomValue(depth: 0, using: &generator)
            #expect(value.rendered() == Reference.rendered(value, pretty: true), "seed \(seed)")
            #expect(value.rendered(pretty: false) == Reference.rendered(value, pretty: false), "seed \(seed)")
            for indent in [nil, 0, 1, 3] as [Int?] {
                var ours = "> "
                value.write(to: &ours, indent: indent)
                var theirs = "> "
                Reference.write(value, to: &theirs, indent: indent)
                #expect(ours == theirs, "seed \(seed)")
            }
        }
    }

    @Test("numbers: integers, integral reals without a fraction, other reals as Swift prints them")
    func numbers() {
        let values: [JSONValue] = [.integer(0), .integer(-42), .integer(.max), .integer(.min), .number(3), .number(-0.0),
                                   .number(2.5), .number(1e15), .number(1e300), .number(nil), .decimal("1.50")]
        #expect(JSONValue.array(values).rendered(pretty: false)
                == "[0,-42,9223372036854775807,-9223372036854775808,3,0,2.5,1000000000000000.0,1e+300,null,1.50]")
        for value in values { #expect(value.rendered() == Reference.rendered(value, pretty: true)) }
    }

    private static let alphabet: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}",
                                                     "\u{1F}", "\u{7F}", "\u{80}", "é", "\u{301}", "\u{2028}", "\u{2029}", "\u{2027}",
                                                     "\u{202A}", "日", "\u{E2}", "\u{FEFF}", "🏖", "\u{10FFFF}"]

    private static func randomString(using generator: inout SplitMix64) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            scalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(scalars)
    }

    private static func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0...(depth < 3 ? 8 : 6), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3: return .number([0.5, -3, 1e20, 123.25, -0.0][Int.random(in: 0..<5, using: &generator)])
        case 4: return .decimal("12.50")
        case 5, 6: return .string(randomString(using: &generator))
        case 7: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            return .object((0..<Int.random(in: 0...4, using: &generator)).map { _ in
                (randomString(using: &generator), randomValue(depth: depth + 1, using: &generator))
            })
        }
    }

    /// The renderer as it was before it built bytes: appends to a `String`, scalar by scalar.
    private enum Reference {
        static func rendered(_ value: JSONValue, pretty: Bool) -> String {
            var output = ""
            write(value, to: &output, indent: pretty ? 0 : nil)
            return output
        }

        static func write(_ value: JSONValue, to output: inout String, indent: Int?) {
            switch value {
            case .null: output.write("null")
            case .bool(let value): output.write(value ? "true" : "false")
            case .integer(let value): output.write(String(value))
            case .number(let value):
                if value == value.rounded(.towardZero), abs(value) < 1e15 {
                    output.write(String(Int64(value)))
                } else {
                    output.write("\(value)")
                }
            case .decimal(let text): output.write(text)
            case .string(let value): output.write(quoted(value))
            case .array(let values):
                guard !values.isEmpty else { return output.write("[]") }
                output.write("[")
                for (index, value) in values.enumerated() {
                    if index > 0 { output.write(",") }
                    newline(&output, indent.map { $0 + 1 })
                    write(value, to: &output, indent: indent.map { $0 + 1 })
                }
                newline(&output, indent)
                output.write("]")
            case .object(let members):
                guard !members.isEmpty else { return output.write("{}") }
                output.write("{")
                for (index, (key, value)) in members.enumerated() {
                    if index > 0 { output.write(",") }
                    newline(&output, indent.map { $0 + 1 })
                    output.write(quoted(key))
                    output.write(indent == nil ? ":" : ": ")
                    write(value, to: &output, indent: indent.map { $0 + 1 })
                }
                newline(&output, indent)
                output.write("}")
            }
        }

        static func newline(_ output: inout String, _ indent: Int?) {
            guard let indent else { return }
            output.write("\n" + String(repeating: "  ", count: indent))
        }

        static func quoted(_ value: String) -> String {
            var output = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case "\r": output += "\\r"
                case "\t": output += "\\t"
                case "\u{08}": output += "\\b"
                case "\u{0C}": output += "\\f"
                case let control where control.value < 0x20 || control.value == 0x7F || (0x2028...0x2029).contains(control.value):
                    output += String(format: "\\u%04x", control.value)
                default: output.unicodeScalars.append(scalar)
                }
            }
            return output + "\""
        }
    }
}
