import Foundation
import Testing
@testable import CoreDataFiles

@Suite("Binary property lists (bplist00)")
struct BinaryPropertyListTests {
    @Test("every kind of value reads back as written, Booleans apart from integers")
    func roundTrip() throws {
        let value = PlistValue.dictionary([
            "true": .bool(true), "false": .bool(false), "zero": .integer(0), "one": .integer(1), "negative": .integer(-5),
            "large": .integer(Int64.max), "real": .real(0.1), "date": .date(-946688700.5), "data": .data(Data([0, 255, 7])),
            "ascii": .string("NSEntityDescription"), "unicode": .string("Belém 東京 🌍"), "uid": .uid(70_000),
            "array": .array([.integer(1), .string("two"), .array([])]), "set": .set([.string("1")]), "null": .null,
            "long": .string(String(repeating: "x", count: 300)),
        ])
        #expect(try BinaryPropertyListReader.read(BinaryPropertyListWriter.write(value)) == value)
    }

    @Test("the sizes other writers use: 1-, 2- and 4-byte integers, 16-byte integers, 4-byte reals, 1-byte offsets")
    func compactSizes() throws {
        // An array of: int8 200, int16 513, int32 70000, int128 -2, float32 1.5; offsets and references of one byte.
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        func object(_ encoded: [UInt8]) { offsets.append(UInt8(bytes.count)); bytes += encoded }
        object([0xA5, 1, 2, 3, 4, 5])
        object([0x10, 200])
        object([0x11, 0x02, 0x01])
        object([0x12, 0x00, 0x01, 0x11, 0x70])
        object([0x14] + [UInt8](repeating: 0xFF, count: 15) + [0xFE])
        object([0x22] + withUnsafeBytes(of: Float(1.5).bitPattern.bigEndian, Array.init))
        let tableStart = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 6] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, UInt8(tableStart)]
        #expect(try BinaryPropertyListReader.read(Data(bytes)) == .array([.integer(200), .integer(513), .integer(70000), .integer(-2), .real(1.5)]))
    }

    @Test("an object shared by many collections is read once, so a wide diamond of references stays cheap")
    func sharedObjects() throws {
        // 30 levels, each an array holding the next level twice: 2^30 paths, 31 objects.
        let table: [BinaryPropertyListWriter.Entry] = (0..<30).map { .array([$0 + 1, $0 + 1]) } + [.scalar(.string("leaf"))]
        let value = try BinaryPropertyListReader.read(BinaryPropertyListWriter.write(table, top: 0))
        var depth = 0
        var current = value
        while case .array(let members) = current, let first = members.first {
            depth += 1
            current = first
        }
        #expect(depth == 30 && current == .string("leaf"))
    }
}
