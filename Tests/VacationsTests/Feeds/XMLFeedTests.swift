import Foundation
import Testing
@testable import Vacations

@Suite("XML feeds")
struct XMLFeedTests {
    @Test("reads search extras from attributes, and title and description from child elements")
    func attributesAndChildren() throws {
        let feed = try Feeds.read(Feeds.xml("""
            <photo id="52814563021" owner="12037949@N04" secret="9f3c1a7b2e" server="65535" farm="66"
                   title="Torre de Bel&#233;m" ispublic="1" ownername="Ana &amp; Rui" dateupload="1680350400"
                   datetaken="2023-04-01 10:15:00" datetakengranularity="0" latitude="38.691600"
                   longitude="-9.216000" accuracy="16" context="0" place_id="9Xx1pHpQUL_.wZ5h"
                   woeid="742676" tags="lisbon belem Tower geo:lat=38.6916" media="photo"
                   url_l="https://live.staticflickr.com/65535/52814563021_9f3c1a7b2e_b.jpg"
                   url_sq="https://live.staticflickr.com/65535/52814563021_9f3c1a7b2e_s.jpg">
              <description>Built in 1519 &lt;Manueline&gt;.
            On the Tagus.</description>
            </photo>
            <photo id="52814563022" secret="a" server="1"><title>Child &amp; <![CDATA[<CDATA>]]> title</title></photo>
            """))
        #expect(feed.photos == [
            FlickrPhoto(
                id: "52814563021", title: "Torre de Belém", description: "Built in 1519 <Manueline>.\nOn the Tagus.",
                owner: "12037949@N04", ownerName: "Ana & Rui", dateTaken: Feeds.date("2023-04-01 10:15:00"),
                dateUploaded: Date(timeIntervalSince1970: 1_680_350_400), latitude: 38.6916, longitude: -9.216,
                imageURL: "https://live.staticflickr.com/65535/52814563021_9f3c1a7b2e_b.jpg",
                thumbnailURL: "https://live.staticflickr.com/65535/52814563021_9f3c1a7b2e_s.jpg",
                media: "photo", tags: ["lisbon", "belem", "Tower", "geo:lat=38.6916"],
                placeID: "9Xx1pHpQUL_.wZ5h", woeid: "742676"),
            FlickrPhoto(id: "52814563022", title: "Child & <CDATA> title",
                        imageURL: "https://live.staticflickr.com/1/52814563022_a_b.jpg",
                        thumbnailURL: "https://live.staticflickr.com/1/52814563022_a_s.jpg",
                        derived: [.imageURL, .thumbnailURL]),
        ])
    }

    @Test("reads a getInfo photo in XML: owner, dates, tags, location")
    func getInfo() throws {
        let feed = try Feeds.read("""
            <?xml version="1.0" encoding="utf-8" ?>
            <rsp stat="ok">
            <photo id="6946979188" secret="25bb44852b" server="7049" farm="8" dateuploaded="1334832745" isfavorite="0"
                   license="0" safety_level="0" rotation="90" views="5" media="photo">
              <owner nsid="67131352@N04" username="Janko Marohnić" realname="Janko Marohnić" location="Zagreb, Croatia" />
              <title>IMG_0796</title>
              <description>Test</description>
              <visibility ispublic="1" isfriend="0" isfamily="0" />
              <dates posted="1334832745" taken="2011-03-20 17:00:05" takengranularity="0" lastupdate="1338374853" />
              <notes><note id="72157629487842968" author="67131352@N04" x="316" y="0" w="59" h="50">Test</note></notes>
              <tags>
                <tag id="67099213-6946979188-89662" author="67131352@N04" raw="Luka" machine_tag="0">luka</tag>
              </tags>
              <location latitude="45.807258" longitude="15.967599" accuracy="11" context="0"
                        place_id="00j4IylZV7scWik" woeid="851128">
                <locality place_id="00j4IylZV7scWik" woeid="851128">Zagreb</locality>
                <county place_id="306dHrhQV7o6jm.ZUQ" woeid="15022257">Zagreb</county>
                <region place_id="Js1DU.pTUrpBCIKhVw" woeid="20070170">Grad Zagreb</region>
                <country place_id="FunRCI5TUb6a6soTyw" woeid="23424843">Croatia</country>
              </location>
              <urls><url type="photopage">https://www.flickr.com/photos/67131352@N04/6946979188/</url></urls>
            </photo>
            </rsp>
            """)
        #expect(feed.summary?.content == .singlePhoto)
        #expect(feed.photos == [FlickrPhoto(
            id: "6946979188", title: "IMG_0796", description: "Test", owner: "67131352@N04",
            ownerName: "Janko Marohnić", dateTaken: Feeds.date("2011-03-20 17:00:05"),
            dateUploaded: Date(timeIntervalSince1970: 1_334_832_745), latitude: 45.807258, longitude: 15.967599,
            imageURL: "https://live.staticflickr.com/7049/6946979188_25bb44852b_b.jpg",
            thumbnailURL: "https://live.staticflickr.com/7049/6946979188_25bb44852b_s.jpg",
            media: "photo", tags: ["luka"], placeID: "00j4IylZV7scWik", woeid: "851128",
            derivedPlace: "Zagreb, Grad Zagreb, Croatia", derived: [.imageURL, .thumbnailURL])])
    }

    @Test("composes a getInfo place from the parts it has", arguments: [
        ("<locality>Porto</locality><country>Portugal</country>", "Porto, Portugal"),
        ("<region> Kyoto  Prefecture </region>", "Kyoto Prefecture"),
        ("<locality></locality>", nil),
        ("", nil),
    ] as [(String, String?)])
    func getInfoPlaceParts(children: String, expected: String?) throws {
        // A getInfo photo has a title (a <photo> with only a <location> is geo.getLocation's, refused).
        let feed = try Feeds.read(#"<rsp stat="ok"><photo id="1"><title>t</title><location latitude="1" longitude="2">\#(children)</location></photo></rsp>"#)
        #expect(feed.photos.first?.derivedPlace == expected)
    }

    @Test("skips bad records, reports them by id, and reads the rest")
    func badRecords() throws {
        let feed = try Feeds.read(Feeds.xml("""
            <photo id="1" title="one"/>
            <photo title="no id"/>
            <photo id="12b" title="bad id"/>
            <photo id="" />
            <photo id="00042" title="leading zeros"/>
            <video id="7"/>
            <photo id="3"><title>three</title><unknown><deeper a="b">text</deeper></unknown></photo>
            """))
        #expect(feed.photos.map(\.id) == ["1", "42", "3"])
        #expect(feed.photos.map(\.title) == ["one", "leading zeros", "three"])
        #expect(feed.problems == [
            FeedProblem(id: nil, reason: "the record has no id"),
            FeedProblem(id: "12b", reason: "the id is not a decimal number"),
            FeedProblem(id: "", reason: "the id is not a decimal number"),
        ])
        #expect(feed.summary?.photoCount == 3)
    }

    @Test("reads a UTF-8 byte order mark, whitespace and comments before the root")
    func prolog() throws {
        for prefix in ["\u{FEFF}", "\u{FEFF}\n  ", "\n\n", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- a comment -->\n<?pi x?>\n"] {
            let feed = try Feeds.read(prefix + "<rsp stat=\"ok\"><photos><photo id=\"1\"/></photos></rsp>")
            #expect(feed.photos.map(\.id) == ["1"])
        }
    }

    @Test("reads a declared ISO-8859-1 feed only when it is plain ASCII, since feeds must be UTF-8")
    func declaredEncoding() throws {
        let ascii = #"<?xml version="1.0" encoding="ISO-8859-1"?><rsp stat="ok"><photos><photo id="1" title="Lisbon"/></photos></rsp>"#
        #expect(try Feeds.read(ascii).photos.first?.title == "Lisbon")
        var latin1 = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><rsp stat="ok"><photos><photo id="1" title="Bel"#.utf8)
        latin1.append(0xE9)
        latin1.append(contentsOf: Data(#"m"/></photos></rsp>"#.utf8))
        #expect(Feeds.error(latin1)?.kind == .notUTF8)
    }

    @Test("reads photosets and galleries as photo lists, and empty lists")
    func otherLists() throws {
        let set = try Feeds.read(#"<rsp stat="ok"><photoset id="721" owner="x"><photo id="5" title="a"/></photoset></rsp>"#)
        #expect(set.photos.map(\.id) == ["5"])
        #expect(set.summary?.content == .photos)
        let empty = try Feeds.read(#"<rsp stat="ok"><photos page="1" pages="0" perpage="100" total="0"/></rsp>"#)
        #expect(empty.summary == FeedSummary(format: .xml, content: .photos,
                                             paging: FeedPaging(page: 1, pages: 0, perPage: 100, total: 0)))
    }

    @Test("places with a missing name or ids are reported")
    func placeProblems() throws {
        let feed = try Feeds.read("""
            <rsp stat="ok"><places total="3" date_start="1680307200" date_stop="1680393599">
            <place place_id="a1" woeid="1">Lisbon, Lisbon, Portugal</place>
            <place place_id="a2" woeid="2">   </place>
            <place>Nowhere</place>
            <place woeid="3"/>
            </places></rsp>
            """)
        #expect(feed.places == [FlickrPlace(placeID: "a1", woeid: "1", name: "Lisbon, Lisbon, Portugal")])
        #expect(feed.problems == [
            FeedProblem(id: "a2", reason: "the place has no name"),
            FeedProblem(id: nil, reason: "the place \"Nowhere\" has no place_id or woeid"),
            FeedProblem(id: "3", reason: "the place has no name"),
        ])
    }

    @Test("streams a generated 50,000-photo XML feed from a file")
    func largeGeneratedFeed() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: url) }
        try GeneratedFeed.writeXML(photos: 50_000, to: url)
        var count = 0
        var last: FlickrPhoto?
        var tagged = 0
        let summary = try FlickrFeedReader.read(contentsOf: url, photo: { photo in
            count += 1
            if !photo.tags.isEmpty { tagged += 1 }
            last = photo
        })
        #expect(count == 50_000)
        #expect(tagged == 50_000)
        #expect(summary == FeedSummary(format: .xml, content: .photos, photoCount: 50_000,
                                       paging: FeedPaging(page: 1, pages: 1, perPage: 50_000, total: 50_000)))
        #expect(last?.id == "50000049999")
        #expect(last?.title == "Photo 49999 — Lisboa ☀️")
    }
}

/// Big feeds written straight to disk, for streaming tests.
enum GeneratedFeed {
    static func writeXML(photos: Int, to url: URL) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: Data("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"ok\">\n<photos page=\"1\" pages=\"1\" perpage=\"\(photos)\" total=\"\(photos)\">\n".utf8))
        var chunk = ""
        for index in 0..<photos {
            chunk += #"<photo id="\#(50_000_000_000 + index)" owner="12037949@N04" secret="9f3c1a7b2e" server="65535" farm="66" title="Photo \#(index) — Lisboa ☀️" ispublic="1" isfriend="0" isfamily="0" dateupload="1680350400" datetaken="2023-04-01 10:15:00" latitude="38.7\#(index % 10)" longitude="-9.1\#(index % 7)" accuracy="16" tags="lisbon tram\#(index % 28)" media="photo" />"# + "\n"
            if index % 5_000 == 4_999 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        chunk += "</photos>\n</rsp>\n"
        try handle.write(contentsOf: Data(chunk.utf8))
    }
}
