import Foundation
import ObjectGraph
import Testing
@testable import Vacations

/// Re-importing a photo from a response that carries less than the one before: what the
/// response does not carry stays as it was; what it carries empty is emptied (ARCHITECTURE.md §3).
@Suite("Sparse re-imports: absent is unknown, not empty")
struct SparseImportTests {
    /// Every stored field of a photo, with its tags and place, to compare exactly.
    struct Snapshot: Equatable, Sendable, CustomStringConvertible {
        var title, subtitle, imageURL, thumbnailURL, owner, media, place: String?
        var dateTaken, dateUploaded: Date?
        var latitude, longitude: Double?
        var tags: [String]

        init(title: String? = nil, subtitle: String? = nil, imageURL: String? = nil, thumbnailURL: String? = nil,
             owner: String? = nil, media: String? = nil, place: String? = nil, dateTaken: Date? = nil,
             dateUploaded: Date? = nil, latitude: Double? = nil, longitude: Double? = nil, tags: [String] = []) {
            (self.title, self.subtitle, self.imageURL, self.thumbnailURL) = (title, subtitle, imageURL, thumbnailURL)
            (self.owner, self.media, self.place, self.dateTaken, self.dateUploaded) = (owner, media, place, dateTaken, dateUploaded)
            (self.latitude, self.longitude, self.tags) = (latitude, longitude, tags)
        }

        init(_ photo: Photo) {
            self.init(title: photo.title, subtitle: photo.subtitle, imageURL: photo.imageURL, thumbnailURL: photo.thumbnailURL,
                      owner: photo.owner, media: photo.media, place: photo.place?.name, dateTaken: photo.dateTaken,
                      dateUploaded: photo.dateUploaded, latitude: photo.latitude, longitude: photo.longitude,
                      tags: photo.tagNames)
        }

        func changed(_ change: (inout Snapshot) -> Void) -> Snapshot {
            var copy = self
            change(&copy)
            return copy
        }

        var description: String {
            "\(title ?? "nil") | \(subtitle ?? "nil") | \(owner ?? "nil") | \(media ?? "nil") | \(place ?? "nil") | "
                + "\(String(describing: dateTaken)) | \(String(describing: dateUploaded)) | \(String(describing: latitude)),"
                + "\(String(describing: longitude)) | \(tags) | \(imageURL ?? "nil") | \(thumbnailURL ?? "nil")"
        }
    }

    /// photo 6946979188 as `getInfo_with_location.json` (a real getInfo) describes it.
    static let janko = Snapshot(
        title: "IMG_0796", subtitle: "Test", imageURL: "https://live.staticflickr.com/7049/6946979188_25bb44852b_b.jpg",
        thumbnailURL: "https://live.staticflickr.com/7049/6946979188_25bb44852b_s.jpg", owner: "Janko Marohnić",
        media: "photo", place: "Zagreb, Grad Zagreb, Croatia", dateTaken: Feeds.date("2011-03-20 17:00:05"),
        dateUploaded: Date(timeIntervalSince1970: 1_334_832_745), latitude: 45.807258, longitude: 15.967599, tags: ["luka"])

    /// The same photo in XML, as Flickr writes getInfo, with a second tag.
    static let jankoXML = """
        <?xml version="1.0" encoding="utf-8" ?>
        <rsp stat="ok">
        <photo id="6946979188" secret="25bb44852b" server="7049" farm="8" dateuploaded="1334832745" isfavorite="0"
               license="0" safety_level="0" rotation="90" views="5" media="photo">
          <owner nsid="67131352@N04" username="Janko Marohnić" realname="Janko Marohnić" location="Zagreb, Croatia" />
          <title>IMG_0796</title>
          <description>Test</description>
          <visibility ispublic="1" isfriend="0" isfamily="0" />
          <dates posted="1334832745" taken="2011-03-20 17:00:05" takengranularity="0" lastupdate="1338374853" />
          <tags>
            <tag id="67099213-6946979188-89662" author="67131352@N04" raw="Luka" machine_tag="0">luka</tag>
            <tag id="67099213-6946979188-89663" author="67131352@N04" raw="Zagreb" machine_tag="0">zagreb</tag>
          </tags>
          <location latitude="45.807258" longitude="15.967599" accuracy="11" context="0" place_id="00j4IylZV7scWik" woeid="851128">
            <locality place_id="00j4IylZV7scWik" woeid="851128">Zagreb</locality>
            <region place_id="Js1DU.pTUrpBCIKhVw" woeid="20070170">Grad Zagreb</region>
            <country place_id="FunRCI5TUb6a6soTyw" woeid="23424843">Croatia</country>
          </location>
          <urls><url type="photopage">http://www.flickr.com/photos/67131352@N04/6946979188/</url></urls>
        </photo>
        </rsp>
        """

    /// A bare `people.getPublicPhotos` list (no extras) of the same photo and another one.
    static let bareXML = """
        <?xml version="1.0" encoding="utf-8" ?>
        <rsp stat="ok">
        <photos page="1" pages="1" perpage="100" total="2">
          <photo id="6946979188" owner="67131352@N04" secret="25bb44852b" server="7049" farm="8" title="IMG_0796, edited" ispublic="1" isfriend="0" isfamily="0" />
          <photo id="7093101501" owner="67131352@N04" secret="9337f28800" server="7090" farm="8" title="IMG_0917" ispublic="1" isfriend="0" isfamily="0" />
        </photos>
        </rsp>
        """

    /// The same list in JSON, numbers as strings where Flickr sometimes writes them so.
    static let bareJSON = """
        {"photos":{"page":"1","pages":"1","perpage":"100","total":"2","photo":[
          {"id":"6946979188","owner":"67131352@N04","secret":"25bb44852b","server":"7049","farm":"8","title":"IMG_0796, edited","ispublic":"1","isfriend":0,"isfamily":0},
          {"id":7093101501,"owner":"67131352@N04","secret":"9337f28800","server":7090,"farm":8,"title":"IMG_0917","ispublic":1,"isfriend":0,"isfamily":0}
        ]},"stat":"ok"}
        """

    private func write(_ text: String, _ name: String, in store: VacationStore) throws -> URL {
        let url = store.directory.path(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private func snapshot(_ id: String, in store: VacationStore) throws -> Snapshot {
        let photo = try #require(try store.context().fetch(FetchRequest<Photo>(predicate: "unique == %@", id)).first)
        return Snapshot(photo)
    }

    @Test("a bare list after a rich getInfo changes the title only, in XML and JSON, whatever the chunk size",
          arguments: [("xml", 2_000), ("json", 2_000), ("xml", 1), ("json", 1)])
    func bareAfterInfo(format: String, chunkSize: Int) throws {
        let store = try VacationStore()
        let info = try store.importFeeds([SampleFeeds.fixture("getInfo_with_location.json")])
        #expect(info.added == 1)
        #expect(try snapshot("6946979188", in: store) == Self.janko)

        let bare = try write(format == "xml" ? Self.bareXML : Self.bareJSON, "bare." + format, in: store)
        let report = store.importFeeds([bare], chunkSize: chunkSize)
        #expect((report.added, report.updated, report.unchanged) == (1, 1, 0))
        var expected = Self.janko
        expected.title = "IMG_0796, edited"
        #expect(try snapshot("6946979188", in: store) == expected)
        // A photo new to the vacation takes what the list has, and stand-ins for the rest.
        #expect(try snapshot("7093101501", in: store) == Snapshot(
            title: "IMG_0917", imageURL: "https://live.staticflickr.com/7090/7093101501_9337f28800_b.jpg",
            thumbnailURL: "https://live.staticflickr.com/7090/7093101501_9337f28800_s.jpg", owner: "67131352@N04"))
        #expect(try store.tagCounts() == ["luka": 1])
        #expect(try store.problems() == [])

        // The same list again: nothing to change.
        let again = store.importFeeds([bare], chunkSize: chunkSize)
        #expect((again.added, again.updated, again.unchanged) == (0, 0, 2))
    }

    @Test("a bare list first, then the rich getInfo fills everything, then the bare list changes nothing but the title",
          arguments: ["xml", "json"])
    func infoAfterBare(format: String) throws {
        let store = try VacationStore()
        _ = store.importFeeds([try write(format == "xml" ? Self.bareXML : Self.bareJSON, "bare." + format, in: store)])
        #expect(try snapshot("6946979188", in: store) == Snapshot(
            title: "IMG_0796, edited", imageURL: Self.janko.imageURL, thumbnailURL: Self.janko.thumbnailURL, owner: "67131352@N04"))

        let info = try write(Self.jankoXML, "info.xml", in: store)
        #expect(store.importFeeds([info]).updated == 1)
        var rich = Self.janko
        rich.tags = ["luka", "zagreb"]
        #expect(try snapshot("6946979188", in: store) == rich)

        let bare = try write(format == "xml" ? Self.bareXML : Self.bareJSON, "bare2." + format, in: store)
        #expect(store.importFeeds([bare]).updated == 1)
        rich.title = "IMG_0796, edited"
        #expect(try snapshot("6946979188", in: store) == rich)
        #expect(try store.tagCounts() == ["luka": 1, "zagreb": 1])
        #expect(try store.problems() == [])
    }

    @Test("tags=\"\" removes a photo's tags: counts drop, tags left with no photo go, others stay", arguments: ["xml", "json"])
    func emptyTags(format: String) throws {
        let store = try VacationStore()
        _ = store.importFeeds([try write(Self.jankoXML, "info.xml", in: store)])
        // Another photo shares "zagreb", so that tag stays with a count of 1.
        let other = format == "xml"
            ? Feeds.xml(#"<photo id="2" title="other" tags="zagreb croatia"/>"#)
            : Feeds.json(#"{"id":"2","title":"other","tags":"zagreb croatia"}"#)
        _ = store.importFeeds([try write(other, "other." + format, in: store)])
        #expect(try store.tagCounts() == ["luka": 1, "zagreb": 2, "croatia": 1])

        let untag = format == "xml"
            ? Feeds.xml(#"<photo id="6946979188" title="IMG_0796" tags=""/>"#)
            : Feeds.json(#"{"id":6946979188,"title":"IMG_0796","tags":""}"#)
        let report = store.importFeeds([try write(untag, "untag." + format, in: store)])
        #expect(report.updated == 1)
        var expected = Self.janko
        expected.tags = []
        #expect(try snapshot("6946979188", in: store) == expected)
        #expect(try store.tagCounts() == ["zagreb": 1, "croatia": 1])
        #expect(try store.count("SELECT count(*) FROM ZTAG WHERE ZNAME = 'luka'") == 0)
        #expect(try store.problems() == [])

        // Tags that come back are counted again.
        let retag = format == "xml"
            ? Feeds.xml(#"<photo id="6946979188" title="IMG_0796" tags="Luka zagreb"/>"#)
            : Feeds.json(#"{"id":"6946979188","title":"IMG_0796","tags":"Luka zagreb"}"#)
        _ = store.importFeeds([try write(retag, "retag." + format, in: store)])
        #expect(try store.tagCounts() == ["luka": 1, "zagreb": 2, "croatia": 1])
        #expect(try store.problems() == [])
    }

    /// Sparse JSON records (extras one at a time) of photo 6946979188, and the photo they leave.
    static let sparseRecords: [(members: String, expected: Snapshot)] = [
        // geo only
        (#""latitude":"45.8","longitude":"15.9","accuracy":"16""#, janko.changed { $0.latitude = 45.8; $0.longitude = 15.9 }),
        // Flickr's 0,0 with accuracy 0: the photo has no location any more.
        (#""latitude":"0","longitude":"0","accuracy":"0""#, janko.changed { $0.latitude = nil; $0.longitude = nil }),
        (#""datetaken":"2012-01-02 03:04:05","dateupload":"1400000000""#, janko.changed {
            $0.dateTaken = Feeds.date("2012-01-02 03:04:05")
            $0.dateUploaded = Date(timeIntervalSince1970: 1_400_000_000)
        }),
        (#""ownername":"Janko M.","media":"video""#, janko.changed { $0.owner = "Janko M."; $0.media = "video" }),
        (#""description":{"_content":""}"#, janko.changed { $0.subtitle = nil }),
        (#""description":{"_content":"New"},"tags":"Split""#, janko.changed { $0.subtitle = "New"; $0.tags = ["split"] }),
        (#""url_l":"https://example.com/l.jpg","url_sq":"https://example.com/sq.jpg""#, janko.changed {
            $0.imageURL = "https://example.com/l.jpg"
            $0.thumbnailURL = "https://example.com/sq.jpg"
        }),
        (#""derived_place":"Zagreb, Croatia""#, janko.changed { $0.place = "Zagreb, Croatia" }),
        (#""datetaken":"not a date","latitude":"north","longitude":"15.9","title":null"#, janko),
    ]

    @Test("sparse JSON extras with numbers as strings change only the fields they carry", arguments: sparseRecords)
    func sparseExtras(members: String, expected: Snapshot) throws {
        let store = try VacationStore()
        _ = store.importFeeds([try SampleFeeds.fixture("getInfo_with_location.json")])
        let sparse = Feeds.json(#"{"id":"6946979188","owner":"67131352@N04",\#(members)}"#)
        let report = store.importFeeds([try write(sparse, "sparse.json", in: store)])
        #expect(try snapshot("6946979188", in: store) == expected)
        #expect((report.updated, report.unchanged) == (expected == Self.janko ? (0, 1) : (1, 0)))
        #expect(try store.problems() == [])
    }

    @Test("getInfo's empty <title /> and <description /> empty them; a getInfo without location keeps the coordinates")
    func emptyInfoElements() throws {
        let store = try VacationStore()
        _ = store.importFeeds([try write(Self.jankoXML, "info.xml", in: store)])
        let emptied = Self.jankoXML
            .replacingOccurrences(of: "<title>IMG_0796</title>", with: "<title />")
            .replacingOccurrences(of: "<description>Test</description>", with: "<description></description>")
            .replacingOccurrences(of: #"(?s)<location .*</location>"#, with: "", options: .regularExpression)
        _ = store.importFeeds([try write(emptied, "emptied.xml", in: store)])
        var expected = Self.janko
        (expected.title, expected.subtitle, expected.tags) = (nil, nil, ["luka", "zagreb"])
        #expect(try snapshot("6946979188", in: store) == expected)
        // Displayed by its title, else its description, else "Unknown".
        #expect(try store.context().fetch(FetchRequest<Photo>()).first?.displayTitle == "Unknown")
    }

    @Test("a photo listed twice in one feed is what its records in turn would make it")
    func repeatedSparse() throws {
        let store = try VacationStore()
        let feed = Feeds.xml("""
            <photo id="1" title="first" tags="a b" latitude="41.1" longitude="-8.6" accuracy="16" ownername="Ana"/>
            <photo id="1" title="second" owner="1@N01"/>
            """)
        let report = store.importFeeds([try write(feed, "twice.xml", in: store)])
        #expect(report.added == 1)
        #expect(try snapshot("1", in: store) == Snapshot(title: "second", owner: "Ana", latitude: 41.1, longitude: -8.6, tags: ["a", "b"]))
        #expect(try store.tagCounts() == ["a": 1, "b": 1])
        #expect(try store.problems() == [])
    }

    @Test("a stand-in fills a field the photo lacks and replaces none")
    func standIns() throws {
        let store = try VacationStore()
        _ = store.importFeeds([try write(Feeds.xml(#"<photo id="5" title="no owner, no URLs"/>"#), "plain.xml", in: store)])
        #expect(try snapshot("5", in: store) == Snapshot(title: "no owner, no URLs"))
        let list = Feeds.xml(#"<photo id="5" owner="1@N01" secret="abc" server="9" title="no owner, no URLs"/>"#)
        #expect(store.importFeeds([try write(list, "list.xml", in: store)]).updated == 1)
        let filled = Snapshot(title: "no owner, no URLs", imageURL: "https://live.staticflickr.com/9/5_abc_b.jpg",
                              thumbnailURL: "https://live.staticflickr.com/9/5_abc_s.jpg", owner: "1@N01")
        #expect(try snapshot("5", in: store) == filled)
        let named = Feeds.xml(#"<photo id="5" owner="1@N01" ownername="Ana" secret="new" server="9" title="no owner, no URLs"/>"#)
        #expect(store.importFeeds([try write(named, "named.xml", in: store)]).updated == 1)
        var expected = filled
        expected.owner = "Ana"
        #expect(try snapshot("5", in: store) == expected)
    }
}
