import Foundation

/// A constant in a predicate: the values a format string, an argument or a builder can carry.
///
/// Values print in the format language, so a predicate's description parses back to the
/// same predicate:
///
/// ```swift
/// let value: PredicateValue = ["beach", 2, nil]
/// print(value)   // {"beach", 2, nil}
/// ```
///
/// Equality here is structural (`.int(1) != .double(1)`); the evaluator compares values
/// with the predicate semantics instead (numbers numerically, strings by UTF-8 bytes).
public enum PredicateValue: Sendable, Hashable {
    /// `nil` / `NULL`.
    case null
    /// `TRUE` / `YES` / `FALSE` / `NO`; compares with numbers as 1 and 0.
    case bool(Bool)
    /// An integer literal or argument.
    case int(Int64)
    /// A decimal literal or floating-point argument.
    case double(Double)
    /// A quoted string or string argument.
    case string(String)
    /// A date argument; prints as `CAST(<seconds since 2001-01-01>, "NSDate")`.
    case date(Date)
    /// A data argument; prints as `CAST("<base64>", "NSData")`.
    case data(Data)
    /// An aggregate of constants: `{1, 2}` or an array / set argument.
    case array([PredicateValue])
    /// An object (a managed object or a test stand-in), compared by identity.
    /// It has no format syntax and prints as `<object …>`.
    case object(PredicateObjectReference)

    /// Whether the value is `.null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension PredicateValue: CustomStringConvertible {
    /// The value in format syntax: `nil`, `TRUE`, `42`, `2.5`, `"text"`, `{1, 2}`,
    /// `CAST(726000000.0, "NSDate")`, `CAST("AAE=", "NSData")`.
    public var description: String {
        switch self {
        case .null:
            return "nil"
        case .bool(let value):
            return value ? "TRUE" : "FALSE"
        case .int(let value):
            return String(value)
        case .double(let value):
            return Self.formatDouble(value)
        case .string(let value):
            return Self.quote(value)
        case .date(let value):
            return "CAST(\(Self.formatDouble(value.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .data(let value):
            return "CAST(\(Self.quote(value.base64EncodedString())), \"NSData\")"
        case .array(let values):
            return "{" + values.map(\.description).joined(separator: ", ") + "}"
        case .object(let reference):
            return reference.description
        }
    }

    /// Doubles print so that they lex back as doubles: always with a `.` or an exponent;
    /// infinities and NaN go through `CAST(…, "NSNumber")`.
    static func formatDouble(_ value: Double) -> String {
        guard value.isFinite else {
            let text = value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")
            return "CAST(\"\(text)\", \"NSNumber\")"
        }
        let text = value.description
        if text.contains(".") || text.contains("e") { return text }
        return text + ".0"
    }

    /// A double-quoted string literal with `\"`, `\\`, `\n`, `\t`, `\r` and `\uXXXX` escapes
    /// for the other control characters.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

extension PredicateValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral
{
    /// `nil` in Swift is the predicate's `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean literal is `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is `.int`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal is `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal is `.array`, for `IN`.
    public init(arrayLiteral elements: PredicateValue...) { self = .array(elements) }
}
