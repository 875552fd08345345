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

extension PredicateValue {
    /// Structural equality, strings by their UTF-8 bytes: "é" and "e\u{301}" are different
    /// constants, as they are to SQLite and to the evaluator, although Swift's `String ==`
    /// takes them for one. Caches keyed by predicates (compiled queries) rely on this.
    public static func == (lhs: PredicateValue, rhs: PredicateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(left), .bool(right)): left == right
        case let (.int(left), .int(right)): left == right
        case let (.double(left), .double(right)): left == right
        case let (.string(left), .string(right)): ExactString(left) == ExactString(right)
        case let (.date(left), .date(right)): left == right
        case let (.data(left), .data(right)): left == right
        case let (.array(left), .array(right)): left == right
        case let (.object(left), .object(right)): left == right
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(ExactString(value))
        case .date(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        case .data(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        case .array(let values):
            hasher.combine(7 as UInt8)
            hasher.combine(values)
        case .object(let reference):
            hasher.combine(8 as UInt8)
            hasher.combine(reference)
        }
    }
}
