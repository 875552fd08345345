import Foundation
import Testing
@testable import Vacations

/// `SampleData/`: every file parses, and holds what its README says.
@Suite("Sample data")
struct SampleDataTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleData")

    static func read(_ name: String) throws -> CollectedFeed {
        try Feeds.read(url: folder.appendingPathComponent(name))
    }

    @Test("every sample feed parses with no skipped records", arguments: [
        ("lisbon-porto.xml", FeedFormat.xml, FeedContent.photos, 16),
        ("kyoto.json", .json, .photos, 10),
        ("iceland.jsonp", .jsonp, .photos, 8),
        ("new-york.xml", .xml, .photos, 10),
        ("getinfo-porto.xml", .xml, .singlePhoto, 1),
        ("top-places.xml", .xml, .places, 0),
    ] as [(String, FeedFormat, FeedContent, Int)])
    func parses(name: String, format: FeedFormat, content: FeedContent, photos: Int) throws {
        let feed = try Self.read(name)
        #expect(feed.summary?.format == format)
        #expect(feed.summary?.content == content)
        #expect(feed.photos.count == photos)
        #expect(feed.problems == [])
    }

    @Test("the sample folder holds only the documented feeds")
    func noOtherFiles() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(names == ["README.md", "getinfo-porto.xml", "iceland.jsonp", "kyoto.json", "lisbon-porto.xml",
                          "new-york.xml", "top-places.xml"])
    }

    @Test("42 distinct photos over five cities, with videos, unicode titles and machine tags")
    func content() throws {
        let feeds = try ["lisbon-porto.xml", "kyoto.json", "iceland.jsonp", "new-york.xml"].map(Self.read)
        let photos = feeds.flatMap(\.photos)
        #expect(Set(photos.map(\.id)).count == 42)
        #expect(photos.allSatisfy { (10...11).contains($0.id.count) })
        #expect(photos.filter { $0.media == "video" }.map(\.id) == ["52815120999", "53107316847"])
        #expect(photos.contains { $0.tags.contains("camera:make=Fujifilm") })
        #expect(photos.contains { $0.tags.contains { $0.hasPrefix("geo:lat=") } })
        #expect(photos.contains { $0.title == "伏見稲荷大社の千本鳥居" })
        #expect(photos.contains { $0.title == "Torre de Belém ☀️" })
        #expect(photos.contains { $0.title == "Norðurljós yfir Reykjavík 🌌" })
        #expect(photos.filter { $0.latitude == nil }.map(\.id) == ["52823000017"])
        #expect(photos.first { $0.id == "52823000017" }?.title == nil)
    }

    @Test("top places name every photo that has a place_id but no derived_place")
    func topPlacesCoverPhotos() throws {
        let places = try Self.read("top-places.xml").places
        #expect(places.map(\.name) == [
            "New York, NY, United States", "Kyoto, Kyoto Prefecture, Japan", "Lisbon, Lisbon, Portugal",
            "Reykjavík, Capital Region, Iceland", "Porto, Porto, Portugal", "Sintra, Lisbon, Portugal",
            "Southern Region, Iceland",
        ])
        let named = Set(places.compactMap(\.placeID))
        let photos = try ["lisbon-porto.xml", "kyoto.json", "iceland.jsonp", "new-york.xml"].flatMap { try Self.read($0).photos }
        let needingName = photos.filter { $0.derivedPlace == nil && $0.placeID != nil }
        #expect(needingName.count == 27)
        #expect(needingName.allSatisfy { named.contains($0.placeID ?? "") })
        // A derived_place, where present, agrees with the top-places name.
        for photo in photos where photo.derivedPlace != nil {
            #expect(places.first { $0.placeID == photo.placeID }?.name == photo.derivedPlace)
        }
    }

    @Test("photos repeated across files: one retitled, one retagged, one updated by getInfo")
    func repeatedPhotos() throws {
        let favourites = try Self.read("new-york.xml")
        let kyoto = try Self.read("kyoto.json")
        let iceland = try Self.read("iceland.jsonp")
        #expect(kyoto.photo("53318277912")?.title == "金閣寺 Kinkaku-ji ❄️")
        #expect(favourites.photo("53318277912")?.title == "金閣寺 (Kinkaku-ji) under the first snow ❄️")
        #expect(kyoto.photo("53318277912")?.tags == favourites.photo("53318277912")?.tags)
        #expect(FlickrNames.tags(iceland.photo("53104425190")?.tags ?? [], excluding: [])
            == ["reykjavík", "harpa", "glass", "concerthall", "midnightsun"])
        #expect(FlickrNames.tags(favourites.photo("53104425190")?.tags ?? [], excluding: [])
            == ["reykjavík", "harpa", "concerthall", "architecture", "glass"])

        let search = try Self.read("lisbon-porto.xml").photo("52820311874")
        let info = try #require(try Self.read("getinfo-porto.xml").photos.first)
        #expect(search?.title == "Ponte Dom Luís I ao pôr do sol")
        #expect(info.id == "52820311874")
        #expect(info.title == "Ponte Dom Luís I, blue hour")
        #expect(info.description == "From the Gaia side, looking back at Ribeira & the Douro.")
        #expect(info.derivedPlace == "Porto, Porto, Portugal")
        #expect(info.tags == ["porto", "douro", "bluehour", "bridge", "camera:make=fujifilm"])
        #expect(info.dateTaken == search?.dateTaken)
        #expect(info.dateUploaded == search?.dateUploaded)
        #expect(info.latitude == 41.1399)
    }
}
