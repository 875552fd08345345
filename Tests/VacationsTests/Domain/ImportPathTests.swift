import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

@Suite("The importer's batch inserts against visiting in a context")
struct ImportPathTests {
    private static let now = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Everything a vacation holds, by names rather than keys (the two paths hand out keys in
    /// different orders).
    private static func content(of store: VacationStore) throws -> [String] {
        try store.contentLines()
    }

    @Test("importing in chunks leaves exactly what visiting the same drafts in one context leaves, updates and moves included")
    func sameContent() throws {
        let directory = try TemporaryDirectory()
        // The second feed repeats 150 photos of the first with other titles, tags and places
        // (updates that empty places and move counts), and adds 150.
        let first = FlickrFeedGenerator(photos: 400, firstID: 7_000, vocabulary: 60, places: 15, tagsPerPhoto: 5)
        let second = FlickrFeedGenerator(photos: 300, firstID: 7_250, vocabulary: 40, places: 7, tagsPerPhoto: 3)
        let feeds = [directory.path("first.xml"), directory.path("second.json")]
        try first.writeXML(to: feeds[0])
        try second.writeJSON(to: feeds[1])

        let imported = try VacationStore()
        let report = imported.importFeeds(feeds, chunkSize: 64)
        #expect(report.files.map(\.added) == [400, 150])
        #expect(report.files.map(\.updated) == [0, 150])

        let visited = try VacationStore()
        for feed in feeds {
            var drafts: [PhotoDraft] = []
            try FlickrFeedReader.read(contentsOf: feed, photo: { drafts.append(DraftRules().draft(from: $0)) })
            let context = ObjectContext(coordinator: visited.coordinator)
            _ = try VacationEditor(context: context, now: Self.now).visit(drafts)
            try context.save()
        }
        let content = try Self.content(of: imported)
        #expect(content.count == 550 + 60 + 15)
        #expect(content == (try Self.content(of: visited)))
        #expect(try imported.problems() == [])
        #expect(try imported.count("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2") == 550)
    }
}
