@testable import CoreDataFiles
import Foundation

/// Writes binary property lists (`bplist00`) for tests: from a value tree, or from a flat table
/// of objects whose collections refer to members by index, so that tests can write what no
/// well-behaved writer would (a collection that contains itself, a reference past the table).
enum BinaryPropertyListWriter {
    /// One object of the table: a scalar, or a collection of references (indices).
    enum Entry {
        case scalar(PlistValue)
        case array([Int])
        case set([Int])
        case dictionary([(key: Int, value: Int)])
    }

    /// `value` as a binary property list; every member is an object of its own.
    static func write(_ value: PlistValue) -> Data {
        var table: [Entry] = []
        let top = flatten(value, into: &table)
        return write(table, top: top)
    }

    @discardableResult
    private static func flatten(_ value: PlistValue, into table: inout [Entry]) -> Int {
        let index = table.count
        switch value {
        case .array(let members), .set(let members):
            table.append(.array([]))
            let references = members.map { flatten($0, into: &table) }
            if case .set = value { table[index] = .set(references) } else { table[index] = .array(references) }
        case .dictionary(let dictionary):
            table.append(.dictionary([]))
            let entries = dictionary.sorted { $0.key < $1.key }.map { entry in
                (key: flatten(.string(entry.key), into: &table), value: flatten(entry.value, into: &table))
            }
            table[index] = .dictionary(entries)
        default:
            table.append(.scalar(value))
        }
        return index
    }

    /// The table as a binary property list with `top` as its top object. References are
    /// written in `referenceSize` bytes (wide enough for any index a test gives).
    static func write(_ table: [Entry], top: Int, referenceSize: Int = 4) -> Data {
        var body: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        func appendInteger(_ value: UInt64, size: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { body.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        func marker(_ high: UInt8, count: Int) {
            if count < 15 {
                body.append(high << 4 | UInt8(count))
            } else {
                body.append(high << 4 | 0xF)
                body.append(0x13)
                appendInteger(UInt64(count), size: 8)
            }
        }
        for entry in table {
            offsets.append(body.count)
            switch entry {
            case .scalar(let value):
                switch value {
                case .null: body.append(0x00)
                case .bool(let flag): body.append(flag ? 0x09 : 0x08)
                case .integer(let number):
                    body.append(0x13)
                    appendInteger(UInt64(bitPattern: number), size: 8)
                case .real(let number):
                    body.append(0x23)
                    appendInteger(number.bitPattern, size: 8)
                case .date(let seconds):
                    body.append(0x33)
                    appendInteger(seconds.bitPattern, size: 8)
                case .data(let bytes):
                    marker(0x4, count: bytes.count)
                    body += bytes
                case .string(let text):
                    if text.unicodeScalars.allSatisfy(\.isASCII) {
                        marker(0x5, count: text.utf8.count)
                        body += Array(text.utf8)
                    } else {
                        let units = Array(text.utf16)
                        marker(0x6, count: units.count)
                        for unit in units { appendInteger(UInt64(unit), size: 2) }
                    }
                case .uid(let uid):
                    body.append(0x83)
                    appendInteger(UInt64(uid), size: 4)
                case .array, .set, .dictionary:
                    preconditionFailure("collections are table entries of their own")
                }
            case .array(let members), .set(let members):
                if case .set = entry { marker(0xC, count: members.count) } else { marker(0xA, count: members.count) }
                for member in members { appendInteger(UInt64(member), size: referenceSize) }
            case .dictionary(let entries):
                marker(0xD, count: entries.count)
                for entry in entries { appendInteger(UInt64(entry.key), size: referenceSize) }
                for entry in entries { appendInteger(UInt64(entry.value), size: referenceSize) }
            }
        }
        let tableStart = body.count
        for offset in offsets { appendInteger(UInt64(offset), size: 8) }
        body += [0, 0, 0, 0, 0, 0, 8, UInt8(referenceSize)]
        appendInteger(UInt64(table.count), size: 8)
        appendInteger(UInt64(top), size: 8)
        appendInteger(UInt64(tableStart), size: 8)
        return Data(body)
    }
}
