import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport
@testable import Vacations

@Suite("Importing feeds: every photo visited, one transaction per file")
struct ImportTests {
    @Test("the real XML search response imports 100 photos with their titles, unicode kept")
    func unicodeTitles() throws {
        let store = try VacationStore()
        let report = store.importFeeds([try SampleFeeds.fixture("search_unicode_titles.rest.xml")])
        #expect(report.files.first?.failure == nil)
        #expect(report.added == 100 && report.updated == 0 && report.unchanged == 0 && report.skipped == 0)
        #expect(try store.count("SELECT count(*) FROM ZPHOTO") == 100)
        let photo = try #require(store.context().fetch(FetchRequest<Photo>(predicate: "unique == %@", "26390287861")).first)
        #expect(photo.title == "16/04/16")
        #expect(photo.owner == "108244948@N03")
        #expect(photo.imageURL == "https://live.staticflickr.com/1521/26390287861_4c3c65d5ee_b.jpg")
        #expect(photo.visited == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(try store.problems() == [])
    }

    @Test("the real JSON search response imports its 98 photos, one of them a video, with exact values")
    func jsonExtras() throws {
        let store = try VacationStore()
        let report = store.importFeeds([try SampleFeeds.fixture("search_all_extras.json")])
        #expect(report.added == 98)
        let photo = try #require(store.context().fetch(FetchRequest<Photo>(predicate: "unique == %@", "7093101501")).first)
        #expect(photo.title == "IMG_0917")
        #expect(photo.owner == "Janko Marohnić")
        #expect(photo.dateTaken == ISO8601DateFormatter().date(from: "2011-03-27T14:21:21Z"))
        #expect(photo.dateUploaded == Date(timeIntervalSince1970: 1_334_834_742))
        #expect(photo.latitude == nil && photo.longitude == nil)
        #expect(photo.imageURL == "http://farm8.staticflickr.com/7090/7093101501_9337f28800_b.jpg")
        #expect(photo.thumbnailURL == "http://farm8.staticflickr.com/7090/7093101501_9337f28800_s.jpg")
        #expect(try store.count("SELECT count(*) FROM ZPHOTO WHERE ZMEDIA = 'video'") == 1)
        #expect(try store.problems() == [])
    }

    @Test("a getInfo photo imports with its clean tags and its location as the place")
    func getInfo() throws {
        let store = try VacationStore()
        let report = store.importFeeds([try SampleFeeds.fixture("getInfo_with_location.json")])
        #expect(report.added == 1)
        let photo = try #require(try store.photos().first)
        #expect(photo.unique == "6946979188")
        #expect(photo.title == "IMG_0796")
        #expect(photo.subtitle == "Test")
        #expect(photo.tagNames == ["luka"])
        #expect(photo.place?.name == "Zagreb, Grad Zagreb, Croatia")
        #expect(photo.latitude == 45.807258)
        #expect(try store.tagCounts() == ["luka": 1])
    }

    @Test("failure responses are refused with Flickr's code and message, and change nothing")
    func failures() throws {
        let store = try VacationStore()
        _ = store.importFeeds([SampleFeeds.url("kyoto.json")])
        let before = try store.count("SELECT count(*) FROM ZPHOTO")
        let report = store.importFeeds([try SampleFeeds.fixture("error_method_not_found.rest.xml"),
                                        try SampleFeeds.fixture("error_invalid_api_key.json")])
        #expect(report.files.map { $0.failure?.description } == [
            "Flickr error 112: Method \"flickr.fakeMethod\" not found",
            "Flickr error 100: Invalid API Key (Key has invalid format)",
        ])
        #expect(try store.count("SELECT count(*) FROM ZPHOTO") == before)
    }

    @Test("a feed cut short after many photos changes nothing, even across chunks")
    func truncatedIsAtomic() throws {
        let store = try VacationStore()
        let data = try Data(contentsOf: try SampleFeeds.fixture("search_unicode_titles.rest.xml"))
        let cut = store.directory.path("cut.xml")
        try data.prefix(data.count - 200).write(to: cut)
        let report = store.importFeeds([cut], chunkSize: 7)
        #expect(report.files.first?.failure != nil)
        #expect(report.added == 0)
        #expect(try store.count("SELECT count(*) FROM ZPHOTO") == 0)
        #expect(try store.count("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Photo'") == 0)
    }

    @Test("the sample data imports into five cities with tag counts that match their links")
    func sampleData() throws {
        let store = try VacationStore()
        var rules = DraftRules()
        try FeedImporter.learnPlaces(from: .file(SampleFeeds.url("top-places.xml")), into: &rules)
        let report = store.importFeeds(["lisbon-porto.xml", "kyoto.json", "iceland.jsonp", "new-york.xml"].map(SampleFeeds.url), rules: rules)
        #expect(report.files.map(\.added) == [16, 10, 8, 8])
        #expect(report.files.map(\.updated) == [0, 0, 0, 2])
        #expect(report.hasFailures == false)
        #expect(try store.count("SELECT count(*) FROM ZPHOTO") == 42)
        let places = try store.placePhotoCounts()
        #expect(places["Kyoto, Kyoto Prefecture, Japan"] == 10)
        #expect(places.keys.contains("Lisbon, Lisbon, Portugal"))
        #expect(try store.problems() == [])
        // Machine tags are dropped, case is folded.
        let tags = try store.tagCounts()
        #expect(!tags.keys.contains { $0.contains(":") })
        #expect(tags.keys.allSatisfy { $0 == $0.lowercased() })
    }

    @Test("re-importing the same feed reports every photo unchanged and writes nothing")
    func reimport() throws {
        let store = try VacationStore()
        _ = store.importFeeds([SampleFeeds.url("lisbon-porto.xml")])
        let versions = try store.count("SELECT sum(Z_OPT) FROM ZPHOTO")
        let again = store.importFeeds([SampleFeeds.url("lisbon-porto.xml")])
        #expect(again.added == 0 && again.updated == 0 && again.unchanged == 16)
        #expect(try store.count("SELECT sum(Z_OPT) FROM ZPHOTO") == versions)
    }

    @Test("a changed title, tags or place is an update that moves the counts")
    func updates() throws {
        let store = try VacationStore()
        _ = store.importFeeds([SampleFeeds.url("lisbon-porto.xml")])
        let before = try store.tagCounts()
        let report = store.importFeeds([SampleFeeds.url("getinfo-porto.xml")])
        #expect(report.updated == 1)
        let photo = try #require(store.context().fetch(FetchRequest<Photo>(predicate: "unique == %@", "52820311874")).first)
        #expect(photo.title == "Ponte Dom Luís I, blue hour")
        #expect(photo.place?.name == "Porto, Porto, Portugal")
        let after = try store.tagCounts()
        #expect(after != before)
        for tag in photo.tagNames { #expect((after[tag] ?? 0) >= 1) }
        #expect(try store.problems() == [])
    }

    @Test("a repeated id within one feed is one photo, counted once")
    func repeatedID() throws {
        let store = try VacationStore()
        let feed = store.directory.path("repeat.xml")
        try """
        <rsp stat="ok"><photos>
        <photo id="1" title="first" tags="a b"/><photo id="2" title="two"/><photo id="1" title="again" tags="b c"/>
        </photos></rsp>
        """.write(to: feed, atomically: true, encoding: .utf8)
        let report = store.importFeeds([feed], chunkSize: 1)
        #expect(report.added == 2 && report.updated == 0)
        #expect(try store.photos().map(\.title) == ["again", "two"])
        #expect(try store.tagCounts() == ["b": 1, "c": 1])
        #expect(try store.problems() == [])
    }

    @Test("a bad record is skipped and reported by id; the rest imports")
    func badRecord() throws {
        let store = try VacationStore()
        let feed = store.directory.path("bad.xml")
        try """
        <rsp stat="ok"><photos><photo id="12x" title="bad"/><photo id="3" title="good"/><photo title="no id"/></photos></rsp>
        """.write(to: feed, atomically: true, encoding: .utf8)
        let report = store.importFeeds([feed])
        #expect(report.added == 1)
        #expect(report.skipped == 2)
        #expect(report.files.first?.problems.first?.id == "12x")
    }

    @Test("place names come from derived_place, else the top-places list, else the caller's name")
    func placeRules() throws {
        var rules = DraftRules(defaultPlace: "  Somewhere   Else ")
        rules.learn(FlickrPlace(placeID: "P1", woeid: "100", name: " Lisbon,  Portugal "))
        let derived = rules.draft(from: FlickrPhoto(id: "1", placeID: "P1", derivedPlace: "Sintra"))
        let byID = rules.draft(from: FlickrPhoto(id: "2", placeID: "P1"))
        let byWOEID = rules.draft(from: FlickrPhoto(id: "3", woeid: "100"))
        let fallback = rules.draft(from: FlickrPhoto(id: "4", placeID: "unknown"))
        #expect([derived, byID, byWOEID, fallback].map(\.placeName) == ["Sintra", "Lisbon, Portugal", "Lisbon, Portugal", "Somewhere Else"])
        #expect(DraftRules().draft(from: FlickrPhoto(id: "5")).placeName == nil)
    }

    @Test("excluded tags are dropped after folding case")
    func excludedTags() throws {
        let rules = DraftRules(excludedTags: ["LANDSCAPE"])
        #expect(rules.draft(from: FlickrPhoto(id: "1", tags: ["Landscape sea landscape geo:x=1 Sea"])).tags == ["sea"])
    }

    @Test("the display title is the title, else the description's first line, else Unknown")
    func displayTitle() {
        #expect(Photo.displayTitle(title: "T", subtitle: "D") == "T")
        #expect(Photo.displayTitle(title: "  ", subtitle: "First line\nsecond") == "First line")
        #expect(Photo.displayTitle(title: nil, subtitle: nil) == "Unknown")
        #expect(Photo.displayTitle(title: "", subtitle: "\n") == "Unknown")
    }
}

/// The display title's blank test and trimming read ASCII text byte by byte (issue 22, session
/// 29): the same answers as Foundation's character sets, on any text.
@Suite("Display titles without Foundation's character sets")
struct DisplayTitleTrimmingTests {
    @Test("blank titles and trimmed first lines are Foundation's, on random text")
    func sameAsFoundation() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("DisplayTitleTrimmingTests seed \(seed)")
        var generator = SplitMix64(seed: seed)
        // Every ASCII byte, and some non-ASCII spaces and breaks Foundation's sets hold.
        let pieces = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
            + ["\u{85}", "\u{A0}", "\u{2028}", "\u{3000}", "\u{200B}", "\u{FEFF}", "é", "e\u{301}", "\r\n"]
        let spaces = ["\t", "\n", "\u{0B}", "\u{0C}", "\r", " "]
        for _ in 0..<4_000 {
            let pool = Bool.random(using: &generator) ? spaces : pieces
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Bool.random(using: &generator) ? pool[Int.random(in: 0..<pool.count, using: &generator)]
                    : pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            }.joined()
            #expect(Photo.isBlank(text) == text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(Array(text.unicodeScalars))")
            let line = Substring(text)
            #expect(Photo.trimmingSpaces(line) == line.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
            let subtitle = pieces[Int.random(in: 0..<pieces.count, using: &generator)] + text
            let expected: String
            if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                expected = text
            } else if let first = subtitle.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces), !first.isEmpty {
                expected = first
            } else {
                expected = "Unknown"
            }
            #expect(Photo.displayTitle(title: text, subtitle: subtitle) == expected)
        }
    }
}
