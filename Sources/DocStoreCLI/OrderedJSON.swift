import Foundation

/// A JSON document whose object keys keep the order they were given in, so that output is
/// stable and reads in a sensible order (`entity`, `uri`, then properties).
///
/// ```swift
/// let value: OrderedJSON = .object([("name", .string("Ebook")), ("rows", .integer(1))])
/// value.rendered()   // "{\n  \"name\": \"Ebook\",\n  \"rows\": 1\n}"
/// ```
enum OrderedJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// Written as given: the caller supplies valid JSON number text (a decimal's digits).
    case number(String)
    case string(String)
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    /// A floating-point number; `null` when it is not finite, which JSON cannot hold.
    static func double(_ value: Double) -> OrderedJSON {
        value.isFinite ? .number("\(value)") : .null
    }

    /// Pretty printed with two-space indentation, without a trailing newline.
    func rendered(indent: Int = 0) -> String {
        var text = ""
        write(to: &text, indent: indent)
        return text
    }

    /// Writes the value pretty printed, continuing a line already indented by `indent` levels.
    func write(to output: inout some TextOutputStream, indent: Int = 0) {
        switch self {
        case .null: output.write("null")
        case .bool(let value): output.write(value ? "true" : "false")
        case .integer(let value): output.write(String(value))
        case .number(let text): output.write(text)
        case .string(let text): output.write(Self.quoted(text))
        case .array(let items):
            guard !items.isEmpty else { return output.write("[]") }
            output.write("[\n")
            for (position, item) in items.enumerated() {
                output.write(Self.padding(indent + 1))
                item.write(to: &output, indent: indent + 1)
                output.write(position + 1 < items.count ? ",\n" : "\n")
            }
            output.write(Self.padding(indent) + "]")
        case .object(let members):
            guard !members.isEmpty else { return output.write("{}") }
            output.write("{\n")
            for (position, member) in members.enumerated() {
                output.write(Self.padding(indent + 1) + Self.quoted(member.0) + ": ")
                member.1.write(to: &output, indent: indent + 1)
                output.write(position + 1 < members.count ? ",\n" : "\n")
            }
            output.write(Self.padding(indent) + "}")
        }
    }

    static func padding(_ level: Int) -> String { String(repeating: "  ", count: level) }

    /// A JSON string literal: quotes, backslashes and control characters escaped, the rest as is.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16, uppercase: false)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }
}
