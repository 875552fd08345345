import Foundation

/// A Foundation value read from a keyed archive: a default value, a user-info entry, a
/// predicate's constant.
indirect enum ArchivedValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// An `NSDecimalNumber`, as its exact decimal digits (`-12.5`).
    case decimal(String)
    case string(String)
    case data(Data)
    /// An `NSDate`: seconds since 2001-01-01 UTC.
    case date(Double)
    case uuid(UUID)
    case url(String)
    case array([ArchivedValue])
    case dictionary([Entry])
    /// An instance of a class that is not a Foundation value (an app's own class, archived as
    /// a transformable attribute's default): only its class name is known.
    case object(className: String)

    struct Entry: Sendable, Equatable {
        var key: ArchivedValue
        var value: ArchivedValue
    }

    /// The value as text, for user info and messages: strings as they are, numbers in their
    /// shortest form, collections in property-list style.
    var text: String {
        switch self {
        case .null: return ""
        case .bool(let flag): return flag ? "YES" : "NO"
        case .integer(let number): return String(number)
        case .real(let number): return Self.shortest(number)
        case .decimal(let digits): return digits
        case .string(let text): return text
        case .data(let bytes): return bytes.base64EncodedString()
        case .date(let seconds): return Self.shortest(seconds)
        case .uuid(let uuid): return uuid.uuidString
        case .url(let text): return text
        case .array(let values): return "(" + values.map(\.text).joined(separator: ", ") + ")"
        case .dictionary(let entries): return "{" + entries.map { "\($0.key.text) = \($0.value.text)" }.joined(separator: "; ") + "}"
        case .object(let className): return "<\(className)>"
        }
    }

    /// `1.5`, `0.3`, `1e+20`; integral values without a fraction (`2`).
    static func shortest(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }
}

extension KeyedArchive {
    /// Nesting of values deeper than this is refused.
    static let maximumValueDepth = 32

    /// The Foundation value `value` holds or refers to; `.null` for none.
    ///
    /// - Throws: for references out of range or in a cycle, nesting deeper than
    ///   `maximumValueDepth`, and Foundation objects whose keys are missing.
    func value(_ value: PlistValue?, _ what: @autoclosure () -> String) throws -> ArchivedValue {
        var visiting: Set<Int> = []
        return try self.value(value, what(), depth: 0, visiting: &visiting)
    }

    private func value(_ value: PlistValue?, _ what: String, depth: Int, visiting: inout Set<Int>) throws -> ArchivedValue {
        guard depth < Self.maximumValueDepth else { throw error("\(what) nests values more than \(Self.maximumValueDepth) deep") }
        guard let value else { return .null }
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .date(let seconds): return .date(seconds)
        case .data(let bytes): return .data(bytes)
        case .string(let text): return .string(text)
        case .array, .set, .dictionary: throw error("\(what) is a collection stored in place, which keyed archives do not write")
        case .uid: break
        }
        guard let uid = try reference(value, what) else { return .null }
        switch objects[uid] {
        case .dictionary: break
        case .array, .set, .uid: throw error("\(what) refers to object \(uid), which is not a value")
        default: return try self.value(objects[uid], what, depth: depth + 1, visiting: &visiting)
        }
        guard visiting.insert(uid).inserted else { throw error("\(what) contains itself (object \(uid))") }
        defer { visiting.remove(uid) }
        let object = try self.object(uid)
        func member(_ member: PlistValue, _ index: Int) throws -> ArchivedValue {
            try self.value(member, "\(what)[\(index)]", depth: depth + 1, visiting: &visiting)
        }
        if object.isKind(of: "NSNull") { return .null }
        if object.isKind(of: "NSString") || object["NS.string"] != nil {
            return .string(try string(value, what) ?? "")
        }
        if object.isKind(of: "NSDecimalNumber") || object.className == "NSDecimalNumberPlaceholder" {
            return .decimal(try decimalDigits(object, what))
        }
        if object.isKind(of: "NSDate") {
            guard let seconds = try real(object["NS.time"], "the time of \(what)") else { throw error("\(what) is a date without NS.time") }
            return .date(seconds)
        }
        if object.isKind(of: "NSUUID") {
            guard case .data(let bytes)? = object["NS.uuidbytes"], bytes.count == 16 else { throw error("\(what) is a UUID without 16 bytes") }
            let raw = [UInt8](bytes)
            return .uuid(UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                                     raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15])))
        }
        if object.isKind(of: "NSURL") {
            let relative = try string(object["NS.relative"], "the text of \(what)") ?? ""
            let base = try self.value(object["NS.base"], "the base of \(what)", depth: depth + 1, visiting: &visiting)
            guard case .url(let baseText) = base else { return .url(relative) }
            return .url(URL(string: relative, relativeTo: URL(string: baseText))?.absoluteString ?? relative)
        }
        if object.isKind(of: "NSData") {
            guard case .data(let bytes)? = object["NS.data"] else { throw error("\(what) is data without NS.data") }
            return .data(bytes)
        }
        if object.isKind(of: "NSDictionary") {
            return .dictionary(try entries(value, what).enumerated().map { index, entry in
                ArchivedValue.Entry(key: try member(entry.key, index), value: try member(entry.value, index))
            })
        }
        if ["NSArray", "NSSet", "NSOrderedSet"].contains(where: object.isKind(of:)) {
            return .array(try members(value, what).enumerated().map { try member($1, $0) })
        }
        return .object(className: object.className)
    }

    /// The digits of an archived `NSDecimalNumber`: a mantissa of up to eight 16-bit words
    /// (`NS.length` of them, in the byte order `NS.mantissa.bo` gives), times ten to `NS.exponent`.
    private func decimalDigits(_ object: Object, _ what: String) throws -> String {
        let length = try integer(object["NS.length"], "the length of \(what)") ?? 0
        let exponent = try integer(object["NS.exponent"], "the exponent of \(what)") ?? 0
        let isNegative = try flag(object["NS.negative"], "the sign of \(what)")
        guard (0...8).contains(length), (-128...127).contains(exponent) else {
            throw error("\(what) is a decimal with length \(length) and exponent \(exponent)")
        }
        var words: [UInt32] = []
        if length > 0 {
            guard case .data(let mantissa)? = object["NS.mantissa"], mantissa.count >= Int(length) * 2 else {
                throw error("\(what) is a decimal without its mantissa")
            }
            let bytes = [UInt8](mantissa)
            let bigEndian = try integer(object["NS.mantissa.bo"], "the byte order of \(what)") == 2
            words = (0..<Int(length)).map { index in
                let first = UInt32(bytes[2 * index]), second = UInt32(bytes[2 * index + 1])
                return bigEndian ? first << 8 | second : second << 8 | first
            }
        }
        var digits = Self.decimalString(ofLittleEndianWords: words)
        if digits == "0" { return length == 0 && isNegative ? "NaN" : "0" }
        if exponent > 0 {
            digits += String(repeating: "0", count: Int(exponent))
        } else if exponent < 0 {
            let places = Int(-exponent)
            if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
            while digits.hasSuffix("0") { digits.removeLast() }
            if digits.hasSuffix(".") { digits.removeLast() }
        }
        return (isNegative ? "-" : "") + digits
    }

    /// The decimal digits of an unsigned number given as 16-bit words, least significant first.
    private static func decimalString(ofLittleEndianWords words: [UInt32]) -> String {
        var remaining = Array(words.reversed())
        var groups: [String] = []
        while remaining.contains(where: { $0 != 0 }) {
            var carry: UInt32 = 0
            for index in remaining.indices {
                let current = carry << 16 | remaining[index]
                remaining[index] = current / 10_000
                carry = current % 10_000
            }
            groups.append(String(carry))
        }
        guard let last = groups.popLast() else { return "0" }
        return last + groups.reversed().map { String(repeating: "0", count: 4 - $0.count) + $0 }.joined()
    }
}
