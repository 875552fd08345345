import Foundation
import SQLiteDB

/// A Swift type that an `@Attribute` can hold: the primitives below and their optionals.
///
/// Values are kept in memory as SQLite stores them (`SQLiteValue`), so that saving binds them
/// directly and change tracking compares stored forms.
public protocol AttributeValue {
    static var attributeType: AttributeType { get }
    static var isOptional: Bool { get }
    /// Converts the stored form back; a NULL for a non-optional type yields its zero value.
    static func fromStored(_ value: SQLiteValue) -> Self
    var storedValue: SQLiteValue { get }
}

/// A non-optional attribute type with its stored form.
public protocol AttributePrimitive: AttributeValue {
    /// Converts a stored value; nil when it is NULL or cannot represent this type.
    init?(stored: SQLiteValue)
    /// The value a non-optional attribute reads as while it holds NULL.
    static var zero: Self { get }
}

extension AttributePrimitive {
    /// False: a primitive attribute is required; its optional may hold NULL.
    public static var isOptional: Bool { false }
    /// The stored value converted, or `zero` when it is NULL or does not convert.
    public static func fromStored(_ value: SQLiteValue) -> Self { Self(stored: value) ?? zero }
}

extension Optional: AttributeValue where Wrapped: AttributePrimitive {
    /// The wrapped type's attribute type.
    public static var attributeType: AttributeType { Wrapped.attributeType }
    /// True: an optional attribute may hold NULL.
    public static var isOptional: Bool { true }
    /// The stored value converted; nil when it is NULL or does not convert.
    public static func fromStored(_ value: SQLiteValue) -> Wrapped? { Wrapped(stored: value) }
    /// The wrapped value's stored form; NULL for nil.
    public var storedValue: SQLiteValue { self?.storedValue ?? .null }
}

extension String: AttributePrimitive {
    /// `.string`: the attribute type of a `String` property.
    public static var attributeType: AttributeType { .string }
    /// What a `String` attribute reads as while it holds NULL: `""`.
    public static var zero: String { "" }
    /// A `String` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        switch stored {
        case .text(let text): self = text
        case .integer(let integer): self = String(integer)
        case .real(let real): self = String(real)
        case .blob(let data): self = String(decoding: data, as: UTF8.self)
        case .null: return nil
        }
    }
    /// The value as SQLite stores it: `.text(self)`.
    public var storedValue: SQLiteValue { .text(self) }
}

extension Bool: AttributePrimitive {
    /// `.boolean`: the attribute type of a `Bool` property.
    public static var attributeType: AttributeType { .boolean }
    /// What a `Bool` attribute reads as while it holds NULL: `false`.
    public static var zero: Bool { false }
    /// A `Bool` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard let number = stored.realValue else { return nil }
        self = number != 0
    }
    /// The value as SQLite stores it: `.integer(self ? 1 : 0)`.
    public var storedValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Int64: AttributePrimitive {
    /// `.integer64`: the attribute type of a `Int64` property.
    public static var attributeType: AttributeType { .integer64 }
    /// What a `Int64` attribute reads as while it holds NULL: `0`.
    public static var zero: Int64 { 0 }
    /// A `Int64` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        switch stored {
        case .integer(let integer): self = integer
        case .real(let real):
            guard let integer = Int64(exactly: real.rounded(.towardZero)) else { return nil }
            self = integer
        case .text(let text):
            guard let integer = Int64(text) else { return nil }
            self = integer
        default: return nil
        }
    }
    /// The value as SQLite stores it: `.integer(self)`.
    public var storedValue: SQLiteValue { .integer(self) }
}

extension Int: AttributePrimitive {
    /// `.integer64`: the attribute type of a `Int` property.
    public static var attributeType: AttributeType { .integer64 }
    /// What a `Int` attribute reads as while it holds NULL: `0`.
    public static var zero: Int { 0 }
    /// A `Int` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard let integer = Int64(stored: stored) else { return nil }
        self = Int(integer)
    }
    /// The value as SQLite stores it: `.integer(Int64(self))`.
    public var storedValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int32: AttributePrimitive {
    /// `.integer32`: the attribute type of a `Int32` property.
    public static var attributeType: AttributeType { .integer32 }
    /// What a `Int32` attribute reads as while it holds NULL: `0`.
    public static var zero: Int32 { 0 }
    /// A `Int32` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard let integer = Int64(stored: stored) else { return nil }
        self = Int32(truncatingIfNeeded: integer)
    }
    /// The value as SQLite stores it: `.integer(Int64(self))`.
    public var storedValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int16: AttributePrimitive {
    /// `.integer16`: the attribute type of a `Int16` property.
    public static var attributeType: AttributeType { .integer16 }
    /// What a `Int16` attribute reads as while it holds NULL: `0`.
    public static var zero: Int16 { 0 }
    /// A `Int16` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard let integer = Int64(stored: stored) else { return nil }
        self = Int16(truncatingIfNeeded: integer)
    }
    /// The value as SQLite stores it: `.integer(Int64(self))`.
    public var storedValue: SQLiteValue { .integer(Int64(self)) }
}

extension Double: AttributePrimitive {
    /// `.double`: the attribute type of a `Double` property.
    public static var attributeType: AttributeType { .double }
    /// What a `Double` attribute reads as while it holds NULL: `0`.
    public static var zero: Double { 0 }
    /// A `Double` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        switch stored {
        case .text(let text):
            guard let number = Double(text) else { return nil }
            self = number
        default:
            guard let number = stored.realValue else { return nil }
            self = number
        }
    }
    /// The value as SQLite stores it: `.real(self)`.
    public var storedValue: SQLiteValue { .real(self) }
}

extension Float: AttributePrimitive {
    /// `.float`: the attribute type of a `Float` property.
    public static var attributeType: AttributeType { .float }
    /// What a `Float` attribute reads as while it holds NULL: `0`.
    public static var zero: Float { 0 }
    /// A `Float` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard let number = Double(stored: stored) else { return nil }
        self = Float(number)
    }
    /// The value as SQLite stores it: `.real(Double(self))`.
    public var storedValue: SQLiteValue { .real(Double(self)) }
}

extension Decimal: AttributePrimitive {
    /// `.decimal`: the attribute type of a `Decimal` property.
    public static var attributeType: AttributeType { .decimal }
    /// What a `Decimal` attribute reads as while it holds NULL: `0`.
    public static var zero: Decimal { 0 }
    private static let posix = Locale(identifier: "en_US_POSIX")
    /// A `Decimal` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        // A DECIMAL column may hand back INTEGER, REAL or TEXT; the shortest decimal text of a
        // REAL is the value that was written, without binary noise.
        let text: String
        switch stored {
        case .integer(let integer): text = String(integer)
        case .real(let real): text = String(real)
        case .text(let string): text = string
        default: return nil
        }
        guard let decimal = Decimal(string: text, locale: Decimal.posix) else { return nil }
        self = decimal
    }
    /// The value as SQLite stores it: `.text(NSDecimalNumber(decimal: self).description(withLocale: Decimal.posix))`.
    public var storedValue: SQLiteValue { .text(NSDecimalNumber(decimal: self).description(withLocale: Decimal.posix)) }
}

extension Date: AttributePrimitive {
    /// `.date`: the attribute type of a `Date` property.
    public static var attributeType: AttributeType { .date }
    /// What a `Date` attribute reads as while it holds NULL: `Date(timeIntervalSinceReferenceDate: 0)`.
    public static var zero: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// A `Date` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard let seconds = Double(stored: stored) else { return nil }
        self = Date(timeIntervalSinceReferenceDate: seconds)
    }
    /// The value as SQLite stores it: `.real(timeIntervalSinceReferenceDate)`.
    public var storedValue: SQLiteValue { .real(timeIntervalSinceReferenceDate) }
}

extension Data: AttributePrimitive {
    /// `.binary`: the attribute type of a `Data` property.
    public static var attributeType: AttributeType { .binary }
    /// What a `Data` attribute reads as while it holds NULL: `Data()`.
    public static var zero: Data { Data() }
    /// A `Data` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        switch stored {
        case .blob(let data): self = data
        case .text(let text): self = Data(text.utf8)
        default: return nil
        }
    }
    /// The value as SQLite stores it: `.blob(self)`.
    public var storedValue: SQLiteValue { .blob(self) }
}

extension UUID: AttributePrimitive {
    /// `.uuid`: the attribute type of a `UUID` property.
    public static var attributeType: AttributeType { .uuid }
    /// What a `UUID` attribute reads as while it holds NULL: `UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))`.
    public static var zero: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    /// A `UUID` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        switch stored {
        case .blob(let data) where data.count == 16:
            let b = [UInt8](data)
            self = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                               b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case .text(let text):
            guard let uuid = UUID(uuidString: text) else { return nil }
            self = uuid
        default: return nil
        }
    }
    /// The value as SQLite stores it.
    public var storedValue: SQLiteValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }
}

extension URL: AttributePrimitive {
    /// `.uri`: the attribute type of a `URL` property.
    public static var attributeType: AttributeType { .uri }
    /// What a `URL` attribute reads as while it holds NULL: `URL(fileURLWithPath: "/")`.
    public static var zero: URL { URL(fileURLWithPath: "/") }
    /// A `URL` from its stored form; nil for NULL or a value that does not convert.
    public init?(stored: SQLiteValue) {
        guard case .text(let text) = stored, let url = URL(string: text) else { return nil }
        self = url
    }
    /// The value as SQLite stores it: `.text(absoluteString)`.
    public var storedValue: SQLiteValue { .text(absoluteString) }
}

extension SQLiteValue {
    /// Converts a value to the stored form of `type`, as a dynamically typed setter needs.
    /// Returns nil when the value cannot be represented.
    package static func coerce(_ value: SQLiteValue, to type: AttributeType) -> SQLiteValue? {
        if value.isNull { return .null }
        switch type {
        case .string: return String(stored: value)?.storedValue
        case .boolean: return Bool(stored: value)?.storedValue
        case .integer16, .integer32, .integer64: return Int64(stored: value)?.storedValue
        case .double, .float: return Double(stored: value)?.storedValue
        case .decimal: return Decimal(stored: value)?.storedValue
        case .date: return Date(stored: value)?.storedValue
        case .binary, .transformable: return Data(stored: value)?.storedValue
        case .uuid: return UUID(stored: value)?.storedValue
        case .uri: return URL(stored: value)?.storedValue
        // Transient-only types hold whatever they are given; a composite's value lives in its
        // elements' slots, never in one of its own.
        case .undefined, .objectID, .composite: return value
        }
    }
}
