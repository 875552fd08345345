import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport
import Testing
import Vacations

@Suite("An import's page cache and journals")
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
}
