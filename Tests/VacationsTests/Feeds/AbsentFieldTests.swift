import Foundation
import Testing
@testable import Vacations

/// What the readers say of a field a record does not carry (`nil`, not emptied) and of one it
/// carries empty (`nil`, emptied), and what drafts make of it (ARCHITECTURE.md §3, "Absent is unknown").
@Suite("Absent fields: unknown, not empty")
struct AbsentFieldTests {
    /// Every field present and empty, written the ways Flickr writes "none".
    static let emptyXML = Feeds.xml("""
        <photo id="1" owner="12037949@N04" ownername="" title="" tags="" media="" datetaken="0000-00-00 00:00:00"
               dateupload="" latitude="0" longitude="0" accuracy="0"><description /></photo>
        """)
    static let emptyJSON = Feeds.json("""
        {"id":"1","owner":"12037949@N04","ownername":"","title":"","description":{"_content":""},"tags":"",
         "media":"","datetaken":"","dateupload":"","latitude":"0","longitude":"0","accuracy":"0"}
        """)
    static let allEmptied: PhotoFields = [.title, .subtitle, .tags, .media, .dateTaken, .dateUploaded, .coordinates]

    @Test("fields carried empty are emptied, in XML, JSON and JSONP", arguments: [emptyXML, emptyJSON, "jsonFlickrApi(\(emptyJSON))"])
    func emptied(text: String) throws {
        let photo = try #require(Feeds.read(text).photos.first)
        #expect(photo == FlickrPhoto(id: "1", owner: "12037949@N04", emptied: Self.allEmptied))
        // An owner's name that is empty says nothing: the owner is never cleared.
        #expect(DraftRules().draft(from: photo).unknown == [.owner, .imageURL, .thumbnailURL])
    }

    @Test("fields a record does not carry are neither values nor emptied", arguments: [
        Feeds.xml(#"<photo id="1" owner="12037949@N04" secret="d1a7e3c580" server="65535" farm="66" title="t" ispublic="1"/>"#),
        Feeds.json(#"{"id":"1","owner":"12037949@N04","secret":"d1a7e3c580","server":65535,"farm":66,"title":"t","ispublic":1}"#),
    ])
    func bare(text: String) throws {
        let photo = try #require(Feeds.read(text).photos.first)
        #expect(photo == FlickrPhoto(id: "1", title: "t", owner: "12037949@N04",
                                     imageURL: "https://live.staticflickr.com/65535/1_d1a7e3c580_b.jpg",
                                     thumbnailURL: "https://live.staticflickr.com/65535/1_d1a7e3c580_s.jpg",
                                     derived: [.imageURL, .thumbnailURL]))
        let draft = DraftRules().draft(from: photo)
        #expect(draft.unknown == PhotoFields.all.subtracting(.title))
        // Stand-ins for a photo that has none: the user id for a name, URLs from server and secret.
        #expect(draft.owner == "12037949@N04")
        #expect(draft.imageURL == "https://live.staticflickr.com/65535/1_d1a7e3c580_b.jpg")
    }

    @Test("values that do not parse count as not carried; Flickr's zeros and empty values as none", arguments: [
        (#"datetaken="yesterday""#, #""datetaken":"yesterday""#, PhotoFields()),
        (#"datetaken="0000-00-00""#, #""datetaken":"0000-00-00""#, PhotoFields.dateTaken),
        (#"dateupload="soon""#, #""dateupload":"soon""#, PhotoFields()),
        (#"latitude="north" longitude="-8.6""#, #""latitude":"north","longitude":-8.6"#, PhotoFields()),
        (#"latitude="91" longitude="0" accuracy="16""#, #""latitude":91,"longitude":0,"accuracy":16"#, PhotoFields()),
        (#"latitude="41.1""#, #""latitude":41.1"#, PhotoFields()),
        (#"latitude="" longitude="""#, #""latitude":"","longitude":"""#, PhotoFields.coordinates),
        (#"latitude="0" longitude="0""#, #""latitude":0,"longitude":0"#, PhotoFields.coordinates),
        (#"tags="  ""#, #""tags":"  ""#, PhotoFields.tags),
        (#"url_l="""#, #""url_l":"""#, PhotoFields()),
    ] as [(String, String, PhotoFields)])
    func unparsable(xmlAttributes: String, jsonMembers: String, emptied: PhotoFields) throws {
        for text in [Feeds.xml(#"<photo id="1" \#(xmlAttributes)/>"#), Feeds.json(#"{"id":"1",\#(jsonMembers)}"#)] {
            let photo = try #require(Feeds.read(text).photos.first)
            #expect(photo.emptied == emptied, "\(text)")
            #expect(photo.latitude == nil && photo.dateTaken == nil && photo.dateUploaded == nil, "\(text)")
        }
    }

    @Test("getInfo's empty <title />, <description /> and <tags /> are carried, empty")
    func emptyInfo() throws {
        let feed = try Feeds.read("""
            <rsp stat="ok"><photo id="9" secret="s" server="1" dateuploaded="1680862353" media="photo">
            <owner nsid="12037949@N04" username="Ana Sousa"/><title /><description></description>
            <dates posted="1680862353" taken="2023-04-06 20:12:33"/><tags />
            </photo></rsp>
            """)
        let photo = try #require(feed.photos.first)
        #expect(photo.emptied == [.title, .subtitle, .tags])
        let draft = DraftRules().draft(from: photo)
        // No <location>: the coordinates are unknown, so a re-import keeps them.
        #expect(draft.unknown == [.coordinates, .imageURL, .thumbnailURL])
        #expect(draft.owner == "Ana Sousa")
    }

    @Test("getInfo's JSON tags object, even with no tag in it, carries the tags")
    func emptyInfoJSON() throws {
        let feed = try Feeds.read("""
            {"photo":{"id":"9","owner":{"nsid":"12037949@N04","username":"Ana"},"title":{"_content":"t"},
             "description":{"_content":""},"tags":{"tag":[]},"dates":{"posted":"1680862353","taken":"2023-04-06 20:12:33"}},
             "stat":"ok"}
            """)
        let photo = try #require(feed.photos.first)
        #expect(photo.emptied == [.subtitle, .tags])
        #expect(DraftRules().draft(from: photo).unknown == [.coordinates, .media, .imageURL, .thumbnailURL])
    }

    @Test("machine tags alone are carried tags that leave none")
    func machineTagsOnly() throws {
        let photo = try #require(Feeds.read(Feeds.xml(#"<photo id="1" tags="geo:lat=41.1 geo:lon=-8.6"/>"#)).photos.first)
        let draft = DraftRules().draft(from: photo)
        #expect(draft.tags == [] && !draft.unknown.contains(.tags))
    }

    @Test("an explicit url_* is the URL; one built from server and secret is a stand-in")
    func urls() throws {
        let photo = try #require(Feeds.read(Feeds.xml(#"""
            <photo id="1" secret="s" server="2" url_m="https://live.staticflickr.com/2/1_s.jpg"/>
            """#)).photos.first)
        #expect(photo.imageURL == "https://live.staticflickr.com/2/1_s.jpg")
        #expect(photo.thumbnailURL == "https://live.staticflickr.com/2/1_s_s.jpg")
        #expect(photo.derived == .thumbnailURL)
        #expect(DraftRules().draft(from: photo).unknown.intersection([.imageURL, .thumbnailURL]) == .thumbnailURL)
    }

    @Test("a draft followed by another is what visiting both in turn leaves")
    func followed() {
        let rich = PhotoDraft(id: "1", title: "Rich", subtitle: "A description", owner: "Ana", latitude: 41.1, longitude: -8.6,
                              media: "photo", tags: ["porto"], placeName: "Porto", placeID: "P1")
        let bare = PhotoDraft(id: "1", title: "Bare", imageURL: "https://x/b.jpg", owner: "12037949@N04",
                              unknown: PhotoFields.all.subtracting(.title))
        let merged = rich.followed(by: bare)
        #expect(merged == PhotoDraft(id: "1", title: "Bare", subtitle: "A description", imageURL: "https://x/b.jpg", owner: "Ana",
                                     latitude: 41.1, longitude: -8.6, media: "photo", tags: ["porto"],
                                     placeName: "Porto", placeID: "P1"))
        // The other way round: the rich draft knows every field, so it wins them all.
        #expect(bare.followed(by: rich) == rich)
        // Two bare drafts: still unknown, with the first stand-in.
        let other = PhotoDraft(id: "1", title: nil, owner: "other", unknown: .all)
        #expect(bare.followed(by: other) == PhotoDraft(id: "1", title: "Bare", imageURL: "https://x/b.jpg", owner: "12037949@N04",
                                                       unknown: PhotoFields.all.subtracting(.title)))
    }
}
