import Foundation

/// A value of a binary property list (`bplist00`), as the files Core Data compiles hold them.
///
/// `uid` is the keyed archiver's object reference, which Foundation's property list reader on
/// Linux hands out only as an opaque object; reading the format ourselves keeps it, and keeps
/// Booleans apart from integers (a Boolean attribute's default is archived as either).
indirect enum PlistValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 UTC.
    case date(Double)
    case data(Data)
    case string(String)
    case uid(Int)
    case array([PlistValue])
    /// A set or an ordered set, in file order.
    case set([PlistValue])
    case dictionary([String: PlistValue])

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

/// Why bytes are not a binary property list; `reason` is one line.
struct BinaryPropertyListError: Error, Sendable {
    var reason: String
}

/// Reads Apple's binary property list format, version `00`, checking every offset, count and
/// reference against the bytes there are: truncated or hostile input is an error, never a crash.
///
/// The format: the magic `bplist00`, the objects, a table of each object's offset, and a
/// 32-byte trailer giving the sizes of offsets and references, the number of objects, the top
/// object and where the offset table starts. Collections refer to their members by index in
/// the offset table, so a collection may refer to itself: that is refused as a cycle. Each
/// object is read once, however many collections refer to it.
///
/// ```swift
/// let value = try BinaryPropertyListReader.read(Data(contentsOf: momURL))
/// ```
struct BinaryPropertyListReader {
    /// Nesting deeper than this is refused (keyed archives nest three levels).
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let offsetTableStart: Int
    private var cache: [PlistValue?]
    private var reading: [Bool]

    /// The top object of the property list in `data`.
    ///
    /// - Throws: `BinaryPropertyListError` for anything that is not a well-formed `bplist00`.
    static func read(_ data: Data) throws(BinaryPropertyListError) -> PlistValue {
        var reader = try BinaryPropertyListReader(bytes: [UInt8](data))
        return try reader.value(at: reader.topObject, depth: 0)
    }

    /// Whether `data` starts like a binary property list.
    static func isBinaryPropertyList(_ data: some Collection<UInt8>) -> Bool {
        data.starts(with: Array("bplist0".utf8))
    }

    private init(bytes: [UInt8]) throws(BinaryPropertyListError) {
        let header = Array("bplist00".utf8)
        guard bytes.count >= header.count + 32 + 1 else {
            throw BinaryPropertyListError(reason: "\(bytes.count) bytes is too short for a binary property list")
        }
        guard bytes.starts(with: header) else {
            if bytes.starts(with: Array("bplist".utf8)) {
                throw BinaryPropertyListError(reason: "binary property list version \(String(decoding: bytes[6..<8], as: UTF8.self)) is not supported")
            }
            throw BinaryPropertyListError(reason: "not a binary property list (no bplist00 header)")
        }
        self.bytes = bytes
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw BinaryPropertyListError(reason: "the trailer gives offsets of \(offsetSize) and references of \(referenceSize) bytes")
        }
        let count = Self.unsigned(bytes, at: trailer + 8, size: 8)
        let top = Self.unsigned(bytes, at: trailer + 16, size: 8)
        let tableStart = Self.unsigned(bytes, at: trailer + 24, size: 8)
        guard count >= 1, count <= UInt64(bytes.count), top < count,
              tableStart >= UInt64(header.count), tableStart <= UInt64(trailer),
              UInt64(trailer) - tableStart >= count * UInt64(offsetSize) else {
            throw BinaryPropertyListError(reason: "the trailer's object count \(count), top object \(top) and offset table at \(tableStart) do not fit \(bytes.count) bytes")
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTableStart = Int(tableStart)
        cache = Array(repeating: nil, count: objectCount)
        reading = Array(repeating: false, count: objectCount)
    }

    private static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func fail(_ reason: String) -> BinaryPropertyListError {
        BinaryPropertyListError(reason: reason)
    }

    /// `size` bytes at `offset`, which must lie before the offset table.
    private func checkRange(_ offset: Int, _ size: Int, of object: Int) throws(BinaryPropertyListError) {
        guard offset >= 8, size >= 0, offset <= offsetTableStart, size <= offsetTableStart - offset else {
            throw fail("object \(object) runs past the end of the objects")
        }
    }

    private func offset(of object: Int) throws(BinaryPropertyListError) -> Int {
        let offset = Self.unsigned(bytes, at: offsetTableStart + object * offsetSize, size: offsetSize)
        guard offset >= 8, offset < UInt64(offsetTableStart) else {
            throw fail("object \(object) has offset \(offset), outside the objects")
        }
        return Int(offset)
    }

    private mutating func value(at object: Int, depth: Int) throws(BinaryPropertyListError) -> PlistValue {
        if let cached = cache[object] { return cached }
        guard !reading[object] else { throw fail("object \(object) contains itself") }
        guard depth < Self.maximumDepth else { throw fail("collections nested more than \(Self.maximumDepth) deep") }
        reading[object] = true
        defer { reading[object] = false }
        let value = try parse(object, depth: depth)
        cache[object] = value
        return value
    }

    private mutating func parse(_ object: Int, depth: Int) throws(BinaryPropertyListError) -> PlistValue {
        let start = try offset(of: object)
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch low {
            case 0x0: return .null
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            default: throw fail("object \(object) has the unknown marker 0x\(String(marker, radix: 16))")
            }
        case 0x1:
            return .integer(try integer(at: start, object: object))
        case 0x2:
            guard low == 2 || low == 3 else { throw fail("object \(object) is a real of \(1 << low) bytes") }
            try checkRange(start + 1, 1 << low, of: object)
            let raw = Self.unsigned(bytes, at: start + 1, size: 1 << low)
            return .real(low == 2 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
        case 0x3:
            guard low == 3 else { throw fail("object \(object) is a date of \(1 << low) bytes") }
            try checkRange(start + 1, 8, of: object)
            return .date(Double(bitPattern: Self.unsigned(bytes, at: start + 1, size: 8)))
        case 0x4:
            let (count, body) = try count(at: start, object: object)
            try checkRange(body, count, of: object)
            return .data(Data(bytes[body..<(body + count)]))
        case 0x5:
            let (count, body) = try count(at: start, object: object)
            try checkRange(body, count, of: object)
            // ASCII, per the format; bytes over 127 are read as Latin-1 rather than refused.
            return .string(String(String.UnicodeScalarView(bytes[body..<(body + count)].map { Unicode.Scalar($0) })))
        case 0x6:
            let (count, body) = try count(at: start, object: object)
            guard count <= (offsetTableStart - body) / 2 else { throw fail("object \(object) runs past the end of the objects") }
            try checkRange(body, count * 2, of: object)
            let units = (0..<count).map { UInt16(bytes[body + 2 * $0]) << 8 | UInt16(bytes[body + 2 * $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x7:
            let (count, body) = try count(at: start, object: object)
            try checkRange(body, count, of: object)
            return .string(String(decoding: bytes[body..<(body + count)], as: UTF8.self))
        case 0x8:
            try checkRange(start + 1, low + 1, of: object)
            let uid = Self.unsigned(bytes, at: start + 1, size: low + 1)
            guard uid <= UInt64(Int32.max) else { throw fail("object \(object) is the reference \(uid), out of range") }
            return .uid(Int(uid))
        case 0xA, 0xB, 0xC:
            let (count, body) = try count(at: start, object: object)
            let members = try references(count, at: body, object: object)
            var values: [PlistValue] = []
            values.reserveCapacity(members.count)
            for member in members { values.append(try value(at: member, depth: depth + 1)) }
            return marker >> 4 == 0xA ? .array(values) : .set(values)
        case 0xD:
            let (count, body) = try count(at: start, object: object)
            guard count <= offsetTableStart / 2 else { throw fail("object \(object) runs past the end of the objects") }
            let members = try references(count * 2, at: body, object: object)
            var dictionary: [String: PlistValue] = [:]
            for index in 0..<count {
                guard case .string(let key) = try value(at: members[index], depth: depth + 1) else {
                    throw fail("dictionary \(object) has a key that is not a string")
                }
                dictionary[key] = try value(at: members[count + index], depth: depth + 1)
            }
            return .dictionary(dictionary)
        default:
            throw fail("object \(object) has the unknown marker 0x\(String(marker, radix: 16))")
        }
    }

    /// An integer object (`0x1n`) at `start`: 1, 2 or 4 bytes unsigned, 8 signed, 16 when it fits 64 bits.
    private func integer(at start: Int, object: Int) throws(BinaryPropertyListError) -> Int64 {
        let exponent = Int(bytes[start] & 0x0F)
        guard exponent <= 4 else { throw fail("object \(object) is an integer of \(1 << exponent) bytes") }
        let size = 1 << exponent
        try checkRange(start + 1, size, of: object)
        if size == 16 {
            let high = Self.unsigned(bytes, at: start + 1, size: 8)
            let low = Self.unsigned(bytes, at: start + 9, size: 8)
            guard high == 0 && low <= UInt64(Int64.max) || high == UInt64.max && low > UInt64(Int64.max) else {
                throw fail("object \(object) is an integer too large for 64 bits")
            }
            return Int64(bitPattern: low)
        }
        return Int64(bitPattern: Self.unsigned(bytes, at: start + 1, size: size))
    }

    /// The element count of the object at `start` and where its body begins: the marker's low
    /// nibble, or, when that is `F`, the integer object that follows.
    private func count(at start: Int, object: Int) throws(BinaryPropertyListError) -> (Int, Int) {
        let low = Int(bytes[start] & 0x0F)
        guard low == 0xF else { return (low, start + 1) }
        try checkRange(start + 1, 1, of: object)
        guard bytes[start + 1] >> 4 == 0x1, bytes[start + 1] & 0x0F <= 3 else {
            throw fail("object \(object) has a count that is not an integer")
        }
        let count = try integer(at: start + 1, object: object)
        guard count >= 0, count <= Int64(offsetTableStart) else { throw fail("object \(object) has the count \(count)") }
        return (Int(count), start + 2 + (1 << Int(bytes[start + 1] & 0x0F)))
    }

    private func references(_ count: Int, at body: Int, object: Int) throws(BinaryPropertyListError) -> [Int] {
        guard count <= (offsetTableStart - min(body, offsetTableStart)) / referenceSize else {
            throw fail("object \(object) runs past the end of the objects")
        }
        try checkRange(body, count * referenceSize, of: object)
        return try (0..<count).map { (index: Int) throws(BinaryPropertyListError) -> Int in
            let reference = Self.unsigned(bytes, at: body + index * referenceSize, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw fail("object \(object) refers to object \(reference) of \(objectCount)")
            }
            return Int(reference)
        }
    }
}
