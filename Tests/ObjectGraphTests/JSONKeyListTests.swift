@testable import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("The JSON lists of keys a store binds for json_each")
struct JSONKeyListTests {
    /// How the list was written before it was written as bytes.
    private func reference(_ keys: [Int64]) -> SQLiteValue {
        .text("[" + keys.map(String.init).joined(separator: ",") + "]")
    }

    @Test("random keys, the extremes and no key at all are written as decimal text joined by commas")
    func asDecimalText() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("JSONKeyListTests seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let fixed: [[Int64]] = [[], [0], [Int64.min], [Int64.max], [-1, 1, -10, 10, 9, 99, 100], [Int64.min, 0, Int64.max]]
        for keys in fixed { #expect(SQLiteStore.jsonList(keys) == reference(keys), "\(keys)") }
        for _ in 0..<2_000 {
            let keys = (0..<Int.random(in: 0...20, using: &generator)).map { _ -> Int64 in
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: Int64.random(in: Int64.min...Int64.max, using: &generator)
                case 1: Int64.random(in: -1_000...1_000, using: &generator)
                default: Int64.random(in: 0...1_000_000_000, using: &generator)
                }
            }
            #expect(SQLiteStore.jsonList(keys) == reference(keys), "seed \(seed): \(keys)")
        }
        // The store reads the list back through json_each: every key, in order.
        let connection = try Connection.inMemory()
        let keys: [Int64] = [3, Int64.min, 0, Int64.max, -42]
        let read = try connection.rows("SELECT value FROM json_each(?)", [SQLiteStore.jsonList(keys)]) { $0.int64(at: 0) }
        #expect(read == keys)
    }

    @Test("a list of keys read row by row holds each key once, ascending, as IN made of it")
    func uniqueAscending() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("JSONKeyListTests.uniqueAscending seed \(seed)")
        var generator = SplitMix64(seed: seed)
        #expect(SQLiteStore.uniqueAscending([]) == [])
        #expect(SQLiteStore.uniqueAscending([Int64.max, Int64.min, Int64.max, 0, 0]) == [Int64.min, 0, Int64.max])
        for _ in 0..<1_000 {
            let keys = (0..<Int.random(in: 0...40, using: &generator)).map { _ in Int64.random(in: -5...25, using: &generator) }
            #expect(SQLiteStore.uniqueAscending(keys) == Set(keys).sorted(), "seed \(seed): \(keys)")
        }
    }
}
