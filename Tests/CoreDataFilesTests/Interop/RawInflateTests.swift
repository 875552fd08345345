import Foundation
import SQLiteDB
import Testing
import TestSupport
@testable import CoreDataFiles

@Suite("Raw DEFLATE, as Z_MODELCACHE holds it")
struct RawInflateTests {
    /// Made with Python's zlib (`compressobj(level, DEFLATED, -15, 9, strategy)`): a stored
    /// block, a block with the fixed code, a block with a dynamic code.
    static let vectors: [(name: String, compressed: String, original: Data)] = [
        ("stored", "AR8A4P9Db3JlIERhdGEga2VlcHMgaXRzIG1vZGVsIGhlcmUu", Data("Core Data keeps its model here.".utf8)),
        ("fixed", "S0xKTkRFChmpOTn5yCQA", Data("abcabcabcabcabcabc hello hello hello".utf8)),
        ("dynamic", "8wt2zSvJLKl0SS1OLsosKMnMz1PwC3YsKSnKTCotSUUVDkrNSQQxizMyC1BlRg0ZNWTUkFFDRg3BYggDIxMzCysbOwcnFzcPLx+/gKCQsIiomLiEpJS0jKycvIKikrKKqpq6hqaWto6unr6BoZGxiamZuYWllbWNrZ29g6OTs4urm7uHp5e3j6+ff0BgUHBIaFh4RGRUdExsXHxCYlJySmpaekZmVnZObl5+QWFRcUlpWXlFZVV1TW1dfUNjU3NLa1t7R2dXd09vX/+EiZMmT5k6bfqMmbNmz5k7b/6ChYsWL1m6bPmKlatWr1m7bv2GjZs2b9m6bfuOnbt279m7b/+Bg4cOHzl67PiJk6dOnzl77vyFi5cuX7l67fqNm7du37l77/6Dh48eP3n67PmLl69ev3n77v2Hj58+f/n67fuPn79+//n77z8A",
         Data(String(repeating: "NSEntityDescription NSAttributeDescription NSRelationshipDescription ", count: 20).utf8) + Data(0...255)),
    ]

    @Test("inflates stored, fixed-code and dynamic-code blocks to exactly the original bytes")
    func vectors() throws {
        for vector in Self.vectors {
            let compressed = try #require(Data(base64Encoded: vector.compressed))
            #expect(try RawInflate.inflate(compressed) == vector.original, "\(vector.name)")
            for length in 0..<compressed.count {
                #expect(throws: InflateError.self, "\(vector.name) cut to \(length) bytes") { try RawInflate.inflate(compressed.prefix(length)) }
            }
        }
    }

    @Test("the model caches of MoneyWell and Photos inflate to keyed archives of the sizes Python's zlib gives")
    func storeCaches() throws {
        let stores: [(store: CompiledModelFixtures.AppleStore, compressed: Int, inflated: Int)] = [
            (CompiledModelFixtures.storesWithCache[0], 30891, 60015),
            (CompiledModelFixtures.storesWithCache[8], 123_005, 255_004),
        ]
        let directory = try TemporaryDirectory()
        for store in stores {
            // A copy: the last connection to close a WAL store checkpoints it and removes its -wal.
            let url = try CompiledModelFixtures.copy(store.store, into: directory)
            let connection = try Connection(path: url.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
            let blob = try #require(try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.blobValue)
            #expect(blob.count == store.compressed)
            let archive = try RawInflate.inflate(blob)
            #expect(archive.count == store.inflated)
            #expect(archive.prefix(8) == Data("bplist00".utf8))
        }
    }

    @Test("bad streams are refused: the reserved block type, a bad stored length, a distance before the start, output past the limit")
    func badStreams() throws {
        let cases: [(Data, String)] = [
            (Data([0x07]), "a block of the reserved type 3"),
            (Data([0x01, 0x05, 0x00, 0x00, 0x00]), "a stored block whose length does not match its complement"),
            // Fixed code: the match symbol 257 (length 3) at distance code 0 with nothing written yet.
            (Data([0x03, 0x02]), "a distance of 1 bytes back from 0"),
        ]
        for (data, reason) in cases {
            #expect(throws: InflateError(reason: reason)) { try RawInflate.inflate(data) }
        }
        let dynamic = try #require(Data(base64Encoded: Self.vectors[2].compressed))
        #expect(throws: InflateError(reason: "the data inflates to more than 1000 bytes")) { try RawInflate.inflate(dynamic, maximumOutput: 1000) }
        #expect(try RawInflate.inflate(dynamic, maximumOutput: Self.vectors[2].original.count) == Self.vectors[2].original)
    }
}

extension InflateError: Equatable {
    public static func == (left: InflateError, right: InflateError) -> Bool { left.reason == right.reason }
}
