import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport
import Testing
import Vacations

@Suite("An import's page cache, journals and savepoints")
struct ImportPageCacheTests {
    @Test("an import works with the bulk page cache (or the one asked for), journals in memory, and gives the connection its own back")
    func importCache() throws {
        for (asked, memoryJournals) in [(FeedImporter.bulkPageCacheKibibytes, true), (4_096, false), (nil, true), (nil, false)] as [(Int?, Bool)] {
            let directory = try TemporaryDirectory()
            let feed = directory.path("feed.xml")
            try FlickrFeedGenerator(photos: 25).writeXML(to: feed)
            let coordinator = try StoreCoordinator(url: directory.path("store.sqlite"), model: VacationModel.model)
            let before = try coordinator.withConnection { [try $0.scalar("PRAGMA cache_size"), try $0.scalar("PRAGMA temp_store")] }
            var importer = FeedImporter(coordinator: coordinator)
            #expect(importer.pageCacheKibibytes == FeedImporter.bulkPageCacheKibibytes)
            #expect(importer.memoryJournals)
            importer.memoryJournals = memoryJournals
            importer.chunkSize = 10
            importer.pageCacheKibibytes = asked
            var during: [[SQLiteValue?]] = []
            importer.progress = { _, _ in
                // Called between chunks, inside the import's transaction; a failed read shows as no
                // values, which the expectation below refuses.
                during.append((try? coordinator.withConnection { [try $0.scalar("PRAGMA cache_size"), try $0.scalar("PRAGMA temp_store")] }) ?? [])
            }
            let report = importer.importFeeds([.file(feed)], rules: DraftRules())
            #expect(report.added == 25)
            // temp_store 2 is MEMORY.
            let expected = [asked.map { SQLiteValue.integer(Int64(-$0)) } ?? before[0], memoryJournals ? .integer(2) : before[1]]
            #expect(during == [expected, expected, expected], "\(String(describing: asked))")
            #expect(try coordinator.withConnection { [try $0.scalar("PRAGMA cache_size"), try $0.scalar("PRAGMA temp_store")] } == before)
        }
    }

    /// Every row of the vacation's tables (history aside: its rows carry times), in key order.
    private func rows(_ coordinator: StoreCoordinator) throws -> [String: [[SQLiteValue]]] {
        try coordinator.withConnection { connection in
            let tables = try connection.rows("""
                SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'
                AND name NOT IN ('Z_METADATA', 'Z_MODELCACHE') ORDER BY name
                """) { $0.string(at: 0) ?? "" }
            var result: [String: [[SQLiteValue]]] = [:]
            for table in tables {
                result[table] = try connection.rows("SELECT * FROM \(table)") { row in
                    (0..<row.columnCount).map { row.value(at: $0) }
                }.sorted { "\($0)" < "\($1)" }
            }
            return result
        }
    }

    @Test("without chunk savepoints (the default) an import runs no SAVEPOINT and writes exactly what one with them writes")
    func withoutSavepoints() throws {
        let directory = try TemporaryDirectory()
        // The second feed repeats half of the first (visited again, some with other tags) and adds more.
        let first = directory.path("first.xml"), second = directory.path("second.xml")
        try FlickrFeedGenerator(photos: 60, vocabulary: 40, places: 7).writeXML(to: first)
        try FlickrFeedGenerator(photos: 70, firstID: 50_000_000_030, vocabulary: 30, places: 9, tagsPerPhoto: 3).writeXML(to: second)
        var stores: [Bool: [String: [[SQLiteValue]]]] = [:]
        for chunkSavepoints in [false, true] {
            let coordinator = try StoreCoordinator(url: directory.path("\(chunkSavepoints).sqlite"), model: VacationModel.model,
                                                   tracksHistory: true)
            let recorder = SQLTraceRecorder()
            try coordinator.withConnection { recorder.attach(to: $0) }
            var importer = FeedImporter(coordinator: coordinator)
            #expect(!importer.chunkSavepoints)
            importer.chunkSavepoints = chunkSavepoints
            importer.chunkSize = 9
            let report = importer.importFeeds([.file(first), .file(second)], rules: DraftRules(),
                                              now: Date(timeIntervalSinceReferenceDate: 700_000_000))
            #expect(report.files.count == 2 && report.files.allSatisfy { $0.failure == nil })
            #expect((report.added, report.updated + report.unchanged) == (100, 30))
            let savepoints = recorder.statements.filter { $0.hasPrefix("SAVEPOINT") }.count
            // Each chunk saves, then batch-inserts its new photos (15 chunks in all).
            #expect(chunkSavepoints ? savepoints >= 15 : savepoints == 0, "\(savepoints) savepoints")
            #expect(try VacationCheck.problems(in: coordinator) == [])
            #expect(try coordinator.withConnection { $0.nestsSavepoints })
            stores[chunkSavepoints] = try rows(coordinator)
        }
        #expect(stores[false]?["ZPHOTO"]?.count == 100)
        #expect(stores[false] == stores[true])
    }

    @Test("a feed that fails after chunks were written leaves the store as it was, and the next import works")
    func failureAfterChunks() throws {
        for chunkSavepoints in [false, true] {
            let directory = try TemporaryDirectory()
            let first = directory.path("first.xml"), broken = directory.path("broken.xml")
            try FlickrFeedGenerator(photos: 20, vocabulary: 30).writeXML(to: first)
            let whole = directory.path("whole.xml")
            try FlickrFeedGenerator(photos: 50, firstID: 50_000_000_010, vocabulary: 30).writeXML(to: whole)
            // Cut off after about 40 photos: the reader fails at the end, after several chunks.
            let text = try Data(contentsOf: whole)
            try text.prefix(text.count * 4 / 5).write(to: broken)
            let coordinator = try StoreCoordinator(url: directory.path("store.sqlite"), model: VacationModel.model, tracksHistory: true)
            var importer = FeedImporter(coordinator: coordinator)
            importer.chunkSavepoints = chunkSavepoints
            importer.chunkSize = 6
            let now = Date(timeIntervalSinceReferenceDate: 700_000_000)
            #expect(importer.importFeeds([.file(first)], rules: DraftRules(), now: now).added == 20)
            let before = try rows(coordinator)
            var chunks = 0
            importer.progress = { _, _ in chunks += 1 }
            let report = importer.importFeeds([.file(broken)], rules: DraftRules(), now: now)
            #expect(report.files.first?.failure != nil)
            #expect(chunks >= 5, "\(chunks) chunks written before the failure")
            #expect(try rows(coordinator) == before)
            #expect(try coordinator.withConnection { ($0.nestsSavepoints, $0.isAutocommit) } == (true, true))
            let again = importer.importFeeds([.file(whole)], rules: DraftRules(), now: now)
            #expect(again.files.first?.failure == nil)
            #expect((again.added, again.updated + again.unchanged) == (40, 10))
            #expect(try VacationCheck.problems(in: coordinator) == [])
        }
    }
}
