import Foundation

/// Reads a binary property list (`bplist00`, the format Core Data and this framework write
/// `Z_METADATA.Z_PLIST` in) straight into the `Sendable` values `PropertyListValue.sendable`
/// makes of Foundation's decoding — the same values, without Foundation's objects in between.
///
/// Why: decoding a store's 2 KB of metadata through `PropertyListSerialization` and converting
/// its bridged objects took about 9 M instructions, the dearest single step of opening a store
/// (README.md, "Performance"); this reader takes a few tens of thousands.
///
/// It reads only what store metadata holds: strings, data, dates, integers up to 64 bits,
/// booleans, arrays and dictionaries with string keys. Anything else (reals, sets, UIDs,
/// 128-bit integers, other keys), and anything malformed, answers nil: the caller then decodes
/// with Foundation as before, so that what comes back never depends on which reader ran.
/// Foundation's conversion rules are kept: the integers 0 and 1 come back as `Bool` (as an
/// `NSNumber` they cast to it), and dictionaries drop values that do not convert.
///
/// ```swift
/// let values = BinaryPropertyList.dictionary(from: data)   // ["NSStoreType": "SQLite", …] or nil
/// ```
package enum BinaryPropertyList {
    /// The top-level dictionary, or nil when the data is not a binary property list this reader
    /// handles (see above).
    package static func dictionary(from data: Data) -> [String: any Sendable]? {
        data.withUnsafeBytes { buffer -> [String: any Sendable]? in
            guard var reader = Reader(buffer) else { return nil }
            return reader.readTop()
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        let offsetTable: Int
        /// Objects being read, so that a reference cycle in damaged data stops the reader.
        var inProgress: Set<Int> = []
        /// How deep the reader is; damaged data could nest past any sensible depth.
        var depth = 0
        static let maximumDepth = 64

        init?(_ bytes: UnsafeRawBufferPointer) {
            let magic: [UInt8] = Array("bplist00".utf8)
            guard bytes.count >= magic.count + 32, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else { return nil }
            guard let count = Self.unsigned(bytes, at: trailer + 8, size: 8),
                  let top = Self.unsigned(bytes, at: trailer + 16, size: 8),
                  let table = Self.unsigned(bytes, at: trailer + 24, size: 8),
                  count > 0, count < UInt64(bytes.count), top < count,
                  table >= UInt64(magic.count), table < UInt64(trailer),
                  (UInt64(trailer) - table) / UInt64(offsetSize) >= count else { return nil }
            objectCount = Int(count)
            topObject = Int(top)
            offsetTable = Int(table)
        }

        /// A big-endian unsigned integer of `size` bytes at `offset`, nil past the end.
        static func unsigned(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64? {
            guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
            var value: UInt64 = 0
            for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        mutating func readTop() -> [String: any Sendable]? {
            read(object: topObject) as? [String: any Sendable]
        }

        /// The object numbered `object`, or nil when this reader cannot read it (the caller
        /// then decodes the whole list with Foundation).
        mutating func read(object: Int) -> (any Sendable)? {
            guard object >= 0, object < objectCount, depth < Self.maximumDepth, !inProgress.contains(object),
                  let start = Self.unsigned(bytes, at: offsetTable + object * offsetSize, size: offsetSize).map(Int.init),
                  start >= 8, start < offsetTable else { return nil }
            let marker = bytes[start]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return false
                case 0x09: return true
                default: return nil
                }
            case 0x1:
                // 1, 2 and 4-byte integers are unsigned, 8-byte ones signed; 16-byte ones are left to Foundation.
                guard low <= 3, let raw = Self.unsigned(bytes, at: start + 1, size: 1 << low) else { return nil }
                let value = low == 3 ? Int(Int64(bitPattern: raw)) : Int(raw)
                // As an NSNumber, 0 and 1 cast to Bool before they cast to Int.
                if value == 0 || value == 1 { return value == 1 }
                return value
            case 0x3:
                guard marker == 0x33, let raw = Self.unsigned(bytes, at: start + 1, size: 8) else { return nil }
                return Date(timeIntervalSinceReferenceDate: Double(bitPattern: raw))
            case 0x4:
                guard let (begin, length) = extent(start: start, low: low, unit: 1) else { return nil }
                // From the buffer's own bytes: `Data` of a buffer's slice goes through a generic
                // path that cost 60,000 instructions a value.
                return Data(UnsafeRawBufferPointer(rebasing: bytes[begin..<(begin + length)]))
            case 0x5:
                guard let (begin, length) = extent(start: start, low: low, unit: 1),
                      bytes[begin..<(begin + length)].allSatisfy({ $0 < 0x80 }) else { return nil }
                return String(decoding: bytes[begin..<(begin + length)], as: UTF8.self)
            case 0x6:
                guard let (begin, length) = extent(start: start, low: low, unit: 2) else { return nil }
                var units: [UInt16] = []
                units.reserveCapacity(length / 2)
                for index in stride(from: begin, to: begin + length, by: 2) {
                    units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
                }
                // Foundation refuses text that is not valid UTF-16; leave such text to it.
                guard let text = String(validating: units, as: UTF16.self) else { return nil }
                return text
            case 0xA:
                guard let (begin, length) = extent(start: start, low: low, unit: referenceSize) else { return nil }
                inProgress.insert(object)
                depth += 1
                defer { inProgress.remove(object); depth -= 1 }
                var array: [any Sendable] = []
                array.reserveCapacity(length / referenceSize)
                for index in stride(from: begin, to: begin + length, by: referenceSize) {
                    guard let reference = Self.unsigned(bytes, at: index, size: referenceSize),
                          let element = read(object: Int(clamping: reference)) else { return nil }
                    array.append(element)
                }
                return array
            case 0xD:
                guard let (begin, length) = extent(start: start, low: low, unit: referenceSize * 2) else { return nil }
                inProgress.insert(object)
                depth += 1
                defer { inProgress.remove(object); depth -= 1 }
                let count = length / (referenceSize * 2)
                var dictionary: [String: any Sendable] = [:]
                dictionary.reserveCapacity(count)
                for index in 0..<count {
                    guard let keyReference = Self.unsigned(bytes, at: begin + index * referenceSize, size: referenceSize),
                          let valueReference = Self.unsigned(bytes, at: begin + (count + index) * referenceSize, size: referenceSize),
                          let key = read(object: Int(clamping: keyReference)) as? String,
                          let value = read(object: Int(clamping: valueReference)),
                          // Which of two equal keys Foundation keeps is its own affair.
                          dictionary.updateValue(value, forKey: key) == nil else { return nil }
                }
                return dictionary
            default:
                return nil
            }
        }

        /// Where the content of the object at `start` lies and how many bytes it takes: its
        /// count in the marker's low nibble, or in the integer after it when that is 15;
        /// `unit` bytes an element. Nil when it runs past the objects.
        func extent(start: Int, low: Int, unit: Int) -> (begin: Int, length: Int)? {
            var count = low
            var begin = start + 1
            if low == 0x0F {
                guard begin < offsetTable else { return nil }
                let marker = bytes[begin]
                let size = 1 << Int(marker & 0x0F)
                guard marker >> 4 == 0x1, size <= 8, let value = Self.unsigned(bytes, at: begin + 1, size: size),
                      value < UInt64(bytes.count) else { return nil }
                count = Int(value)
                begin += 1 + size
            }
            let (length, overflow) = count.multipliedReportingOverflow(by: unit)
            guard !overflow, begin <= offsetTable, length <= offsetTable - begin else { return nil }
            return (begin, length)
        }
    }
}
