import Timestamps
import Foundation

/// A JSON value whose object keys keep the order they were given in, so that output is
/// stable and reads in the order the CLI contract lists the keys.
///
/// ```swift
/// let value: JSONValue = .object([("name", .string("sea")), ("count", .number(3))])
/// print(value.rendered())   // {"name": "sea", "count": 3}
/// ```
package indirect enum JSONValue: Sendable, Equatable {
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
        var output = ""
        write(to: &output, indent: pretty ? 0 : nil)
        return output
    }

    /// Writes the value pretty-printed, continuing a line already indented by `indent` levels
    /// (nil: compact, on one line).
    package func write(to output: inout some TextOutputStream, indent: Int?) {
        switch self {
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
        case .string(let value): output.write(JSONValue.quoted(value))
        case .array(let values):
            guard !values.isEmpty else { return output.write("[]") }
            output.write("[")
            for (index, value) in values.enumerated() {
                if index > 0 { output.write(",") }
                Self.newline(&output, indent.map { $0 + 1 })
                value.write(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output.write("]")
        case .object(let members):
            guard !members.isEmpty else { return output.write("{}") }
            output.write("{")
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.write(",") }
                Self.newline(&output, indent.map { $0 + 1 })
                output.write(JSONValue.quoted(key))
                output.write(indent == nil ? ":" : ": ")
                value.write(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output.write("}")
        }
    }

    private static func newline(_ output: inout some TextOutputStream, _ indent: Int?) {
        guard let indent else { return }
        output.write("\n" + String(repeating: "  ", count: indent))
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, the rest as is.
    package static func quoted(_ value: String) -> String {
        var output = ""
        writeString(value, to: &output)
        return output
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
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
        output += "\""
    }
}
