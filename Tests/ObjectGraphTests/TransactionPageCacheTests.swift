import ObjectGraph
import ObjectGraphTestModels
import SQLiteDB
import Testing

@Suite("A transaction's page cache and journals for bulk work")
struct TransactionPageCacheTests {
    private func cacheSize(_ store: TestStore) throws -> [[SQLiteValue]] {
        try store.rows("PRAGMA cache_size")
    }

    @Test("the cache asked for holds while the transaction runs, and the connection's own comes back after it, committed or not")
    func cacheForTheTransaction() throws {
        struct Abandon: Error {}
        for (kibibytes, fails) in [(64 * 1024, false), (8 * 1024, true), (1, false), (100_000, true)] {
            let store = try TestStore()
            try store.sql { try $0.execute("PRAGMA cache_size = -3000") }
            var inside: [[SQLiteValue]] = []
            do {
                try store.coordinator.performTransaction(pageCacheKibibytes: kibibytes) {
                    inside = try cacheSize(store)
                    let context = store.context()
                    Place(context: context).name = "Lisbon"
                    try context.save()
                    if fails { throw Abandon() }
                }
                #expect(!fails)
            } catch is Abandon {
                #expect(fails)
            }
            #expect(inside == [[.integer(Int64(-kibibytes))]], "\(kibibytes)")
            #expect(try cacheSize(store) == [[.integer(-3000)]], "\(kibibytes)")
            #expect(try store.rows("SELECT count(*) FROM ZPLACE") == [[.integer(fails ? 0 : 1)]])
        }
    }

    @Test("journals in memory while the transaction runs, the connection's temporary store after it, committed or not")
    func journalsInMemory() throws {
        struct Abandon: Error {}
        for (mode, fails) in [(0, false), (1, true), (0, true), (1, false)] {
            let store = try TestStore()
            try store.sql { try $0.execute("PRAGMA temp_store = \(mode)") }
            let before = try cacheSize(store)
            var inside: [[SQLiteValue]] = []
            do {
                try store.coordinator.performTransaction(memoryJournals: true) {
                    inside = try store.rows("PRAGMA temp_store") + cacheSize(store)
                    let context = store.context()
                    Place(context: context).name = "Porto"
                    try context.save()
                    if fails { throw Abandon() }
                }
            } catch is Abandon {
                #expect(fails)
            }
            // 2 is MEMORY; the cache is left as it was when no size is asked for.
            #expect(inside == [[.integer(2)]] + before)
            #expect(try store.rows("PRAGMA temp_store") == [[.integer(Int64(mode))]])
            #expect(try store.rows("SELECT count(*) FROM ZPLACE") == [[.integer(fails ? 0 : 1)]])
        }
    }

    @Test("without a size the transaction leaves the connection's cache alone")
    func noSize() throws {
        let store = try TestStore()
        let before = try cacheSize(store)
        let inside = try store.coordinator.performTransaction { try cacheSize(store) }
        #expect(inside == before)
        #expect(try cacheSize(store) == before)
    }
}
