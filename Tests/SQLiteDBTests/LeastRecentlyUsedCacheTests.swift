import SQLiteDB
import Testing
import TestSupport

@Suite("The least-recently-used cache")
struct LeastRecentlyUsedCacheTests {
    @Test("when full, lets go of the value used least recently, and returns it")
    func evictsLeastRecentlyUsed() {
        var cache = LeastRecentlyUsedCache<String, Int>(capacity: 3)
        #expect(cache.insert(1, forKey: "a") == nil)
        #expect(cache.insert(2, forKey: "b") == nil)
        #expect(cache.insert(3, forKey: "c") == nil)
        #expect(cache.value(forKey: "a") == 1)          // order, oldest first: b c a
        #expect(cache.insert(4, forKey: "d") == 2)      // b goes: c a d
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.insert(30, forKey: "c") == nil)   // replaced in place: a d c
        #expect(cache.insert(5, forKey: "e") == 1)      // a goes: d c e
        #expect(cache.count == 3)
        #expect([cache.value(forKey: "c"), cache.value(forKey: "d"), cache.value(forKey: "e")] == [30, 4, 5])
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.value(forKey: "c") == nil)
        #expect(cache.insert(6, forKey: "f") == nil)
        #expect(cache.value(forKey: "f") == 6)
    }

    @Test("a capacity below one keeps one value")
    func capacityOfOne() {
        var cache = LeastRecentlyUsedCache<Int, Int>(capacity: 0)
        cache.insert(1, forKey: 1)
        #expect(cache.insert(2, forKey: 2) == 1)
        #expect(cache.value(forKey: 1) == nil)
        #expect(cache.value(forKey: 2) == 2)
    }

    @Test("agrees with a plain list model over random lookups and insertions")
    func randomAgainstModel() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LeastRecentlyUsedCacheTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        for capacity in [1, 2, 3, 7, 16] {
            var cache = LeastRecentlyUsedCache<Int, Int>(capacity: capacity)
            var model: [(key: Int, value: Int)] = []   // oldest first
            for step in 0..<2_000 {
                let key = Int(random.next() % 24)
                if random.next() % 2 == 0 {
                    let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                    if let expected { model.append(expected) }
                    #expect(cache.value(forKey: key) == expected?.value, "seed \(seed), step \(step)")
                } else {
                    var evicted: Int?
                    if let index = model.firstIndex(where: { $0.key == key }) {
                        model.remove(at: index)
                    } else if model.count == capacity {
                        evicted = model.removeFirst().value
                    }
                    model.append((key, step))
                    #expect(cache.insert(step, forKey: key) == evicted, "seed \(seed), step \(step)")
                }
                #expect(cache.count == model.count)
            }
        }
    }
}

@Suite("A connection's statement cache")
struct StatementCacheEvictionTests {
    @Test("a statement in steady use stays prepared while many others come and go")
    func busyStatementStays() throws {
        let connection = try Connection.inMemory()
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        let busy = try connection.cachedStatement("SELECT count(*) FROM t")
        for index in 0..<(Connection.statementCacheLimit * 3) {
            _ = try connection.cachedStatement("SELECT id FROM t WHERE id = \(index)")
            #expect(try connection.cachedStatement("SELECT count(*) FROM t") === busy)
        }
        #expect(connection.cachedStatementCount == Connection.statementCacheLimit)
    }
}
