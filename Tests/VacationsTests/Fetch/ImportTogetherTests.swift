import Foundation
import ObjectGraph
import Testing
import TestSupport
@testable import Vacations

@Suite("Importing several feeds in one transaction, and the paging the readers keep")
struct ImportTogetherTests {
    static let now = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// The real JSON search response cut into pages of `perPage` photos, in Flickr's shape.
    static func pages(perPage: Int, in directory: TemporaryDirectory) throws -> [URL] {
        var photos: [String] = []
        _ = try FlickrFeedReader.read(contentsOf: SampleFeeds.fixture("search_all_extras.json"), photo: { photos.append($0.id) })
        let text = try String(contentsOf: SampleFeeds.fixture("search_all_extras.json"), encoding: .utf8)
        // Each record starts at its `{"id":"…"` and runs to the next one.
        let starts = photos.compactMap { id in text.range(of: "{\"id\":\"\(id)\"")?.lowerBound }
        #expect(starts.count == 98)
        let end = try #require(text.range(of: "]}, \"stat\"", options: .backwards)?.lowerBound)
        let records = zip(starts, starts.dropFirst() + [end]).map { start, next in
            String(text[start..<next]).trimmingCharacters(in: CharacterSet(charactersIn: ", "))
        }
        let count = (records.count + perPage - 1) / perPage
        return try (0..<count).map { index in
            let url = directory.path("page-\(index + 1).json")
            let body = #"{"photos":{"page":\#(index + 1), "pages":\#(count), "perpage":\#(perPage), "total":"98", "photo":["#
                + records.dropFirst(index * perPage).prefix(perPage).joined(separator: ", ") + "]}, \"stat\":\"ok\"}"
            try Data(body.utf8).write(to: url)
            return url
        }
    }

    func together(_ store: VacationStore, _ urls: [URL], rules: DraftRules = DraftRules()) -> ImportReport {
        var importer = FeedImporter(coordinator: store.coordinator)
        importer.chunkSize = 7
        return importer.importFeedsTogether(urls.map { .file($0) }, rules: rules, now: Self.now)
    }

    @Test("pages imported together give what importing them one by one gives, counts included")
    func sameAsOneByOne() throws {
        let directory = try TemporaryDirectory(prefix: "pages")
        let pages = try Self.pages(perPage: 30, in: directory)
        #expect(pages.count == 4)
        // The last page repeated: Flickr's pages may overlap when photos arrive meanwhile.
        let urls = pages + [pages[3]]
        let separate = try VacationStore(), joined = try VacationStore()
        let one = separate.importFeeds(urls, chunkSize: 7)
        let all = together(joined, urls)
        #expect(all == one)
        #expect(all.added == 98 && all.unchanged == 8 && all.files.count == 5)
        #expect(try joined.photos().map(\.unique) == separate.photos().map(\.unique))
        #expect(try joined.photos().map(\.title) == separate.photos().map(\.title))
        #expect(try joined.tagCounts() == separate.tagCounts())
        #expect(try joined.problems() == [])
    }

    @Test("a feed that fails rolls back every feed before it; the failing one says why, the rest are not read")
    func allOrNothing() throws {
        let directory = try TemporaryDirectory(prefix: "pages")
        let pages = try Self.pages(perPage: 40, in: directory)
        let broken = directory.path("broken.json")
        try Data(#"{"photos":{"page":2,"pages":3,"photo":[{"id":"1"}"#.utf8).write(to: broken)
        let store = try VacationStore()
        _ = store.importFeeds([try SampleFeeds.fixture("search_unicode_titles.rest.xml")])
        let before = try store.photos().map(\.unique)
        let report = together(store, [pages[0], pages[1], broken, pages[2]])
        #expect(report.files.map(\.path) == [pages[0].path, pages[1].path, broken.path])
        #expect(report.files.map(\.added) == [0, 0, 0])
        #expect(report.files.prefix(2).allSatisfy { $0.failure == nil })
        guard case .feed(let error)? = report.files.last?.failure else {
            Issue.record("expected a feed failure, got \(String(describing: report.files.last?.failure))")
            return
        }
        #expect(error.kind == .truncated)
        #expect(report.hasFailures)
        #expect(try store.photos().map(\.unique) == before)
        #expect(try store.problems() == [])
    }

    @Test("a top-places list among the feeds names the places of the feeds after it")
    func learnsPlaces() throws {
        let directory = try TemporaryDirectory(prefix: "pages")
        let top = directory.path("top.json")
        try Data(#"{"places":{"place":[{"place_id":"00j4IylZV7scWik","woeid":"851128","photo_count":"9","_content":"Zagreb, Croatia"}],"date_start":1246320000,"date_stop":1246406399,"total":1},"stat":"ok"}"#.utf8)
            .write(to: top)
        let pages = try Self.pages(perPage: 98, in: directory)
        let store = try VacationStore()
        let report = together(store, [top] + pages)
        #expect(report.files.map(\.content) == [.places, .photos])
        #expect(try store.placePhotoCounts() == ["Zagreb, Croatia": 2])
    }

    @Test("the readers keep a photo list's paging, in JSON and XML, numbers or strings")
    func paging() throws {
        let cases: [(String, FeedPaging?)] = [
            ("search_all_extras.json", FeedPaging(page: 1, pages: 1, perPage: 100, total: 98)),
            ("kinds/photosets.getPhotos.json", FeedPaging(page: 1, pages: 1, perPage: 500, total: 2)),
            ("kinds/photosets.getPhotos.xml", FeedPaging(page: 1, pages: 1, perPage: 500, total: 2)),
            ("search_unicode_titles.rest.xml", FeedPaging(page: 1, pages: 3_617, perPage: 100, total: 361_690)),
            ("kinds/places.getTopPlacesList.json", nil),
            ("getInfo_with_location.json", nil),
        ]
        for (name, paging) in cases {
            let summary = try FlickrFeedReader.read(contentsOf: SampleFeeds.fixture(name), photo: { _ in })
            #expect(summary.paging == paging, "\(name)")
        }
        let odd = try FlickrFeedReader.read(data: Data(#"{"photos":{"page":"2","pages":"x","perpage":null,"photo":[]},"stat":"ok"}"#.utf8),
                                            photo: { _ in })
        #expect(odd.paging == FeedPaging(page: 2))
    }
}
