import Foundation
import SQLiteDB
import Testing
import TestSupport

/// The real `vacation` binary on Flickr responses of kinds the importer does not take: each is
/// refused whole (65, one line naming the file and what it holds) and the vacation is unchanged;
/// the kinds it takes still import; sparse re-imports keep what they do not carry.
@Suite("The vacation binary on every kind of Flickr response")
struct FeedKindBinaryTests {
    private let directory: TemporaryDirectory
    private var library: String { directory.path("library").path }

    init() throws {
        directory = try TemporaryDirectory(prefix: "kinds")
    }

    private func vacation(_ arguments: [String]) throws -> ProductProcess.Result {
        try ProductProcess.run("vacation", ["--library", library] + arguments, environment: [:], input: nil)
    }

    private static func kind(_ name: String) -> String {
        SampleFiles.fixture("kinds/" + name)
    }

    /// Every row of every table of the default vacation's store, to show that nothing changed.
    private func storeRows() throws -> [String] {
        let path = directory.path("library/My Vacation.vacation/StoreContent/persistentStore").path
        let connection = try Connection(path: path, configuration: .init(readOnly: true, create: false, journalMode: nil))
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(at: 0) ?? "" }
        // Sorted as text: some tables (the search index's) have no rowid to order by.
        return try tables.flatMap { table in
            try connection.rows("SELECT * FROM \"\(table)\"") { row in
                table + ": " + (0..<row.columnCount).map { "\(row.value(at: $0))" }.joined(separator: " | ")
            }.sorted()
        }
    }

    static let unclaimed: [(file: String, holds: String)] = [
        ("photos.geo.getLocation.xml", "a flickr.photos.geo.getLocation response (a photo's location)"),
        ("photos.geo.getLocation.json", "a flickr.photos.geo.getLocation response (a photo's location)"),
        ("photos.geo.getLocation.jsonp", "a flickr.photos.geo.getLocation response (a photo's location)"),
        ("places.find.xml", "a flickr.places.find response (places matching a search)"),
        ("places.find.json", "a flickr.places.find response (places matching a search)"),
        ("places.findByLatLon.xml", "a flickr.places.findByLatLon response (the place at a point)"),
        ("places.findByLatLon.json", "a flickr.places.findByLatLon response (the place at a point)"),
        ("places.placesForBoundingBox.xml", "a flickr.places.placesForBoundingBox response (the places in an area)"),
        ("places.placesForUser.xml", "a list of places without getTopPlacesList's date_start and date_stop "
            + "(such as flickr.places.placesForUser or flickr.places.getChildrenWithPhotosPublic)"),
        ("places.placesForUser.json", "a list of places without getTopPlacesList's date_start and date_stop "
            + "(such as flickr.places.placesForUser or flickr.places.getChildrenWithPhotosPublic)"),
        ("places.getChildrenWithPhotosPublic.xml", "a list of places without getTopPlacesList's date_start and date_stop "
            + "(such as flickr.places.placesForUser or flickr.places.getChildrenWithPhotosPublic)"),
        ("places.getInfo.xml", "a flickr.places.getInfo response (a place's details)"),
        ("people.getInfo.xml", "a flickr.people.getInfo response (a person's profile)"),
        ("people.getInfo.json", "a flickr.people.getInfo response (a person's profile)"),
        ("photos.getSizes.xml", "a flickr.photos.getSizes response (a photo's sizes)"),
        ("photos.getSizes.json", "a flickr.photos.getSizes response (a photo's sizes)"),
        ("photos.getExif.xml", "a flickr.photos.getExif response (a photo's EXIF data)"),
        ("photos.getExif.json", "a flickr.photos.getExif response (a photo's EXIF data)"),
        ("photos.getFavorites.xml", "a flickr.photos.getFavorites response (who marked a photo as a favourite)"),
        ("photos.getFavorites.json", "a flickr.photos.getFavorites response (who marked a photo as a favourite)"),
        ("tags.getListPhoto.xml", "a flickr.tags.getListPhoto response (a photo's tags)"),
        ("tags.getListPhoto.json", "a flickr.tags.getListPhoto response (a photo's tags)"),
        ("photosets.getInfo.xml", "a flickr.photosets.getInfo response (an album's details, without its photos)"),
        ("photosets.getInfo.json", "a flickr.photosets.getInfo response (an album's details, without its photos)"),
        ("galleries.getInfo.xml", "a flickr.galleries.getInfo response (a gallery's details, without its photos)"),
        ("photos.getCounts.xml", "a flickr.photos.getCounts response (photo counts by date)"),
        ("unknown.xml", "a Flickr response of another kind (<ticketid>)"),
        ("unknown.json", "a Flickr response of another kind (\"ticketid\")"),
    ]

    @Test("each unclaimed kind is refused with 65 and one line naming the file and what it holds; nothing changes")
    func refused() throws {
        // A vacation with photos, tags and places, among them photo 52820311874 that getLocation names.
        #expect(try vacation(["import", "SampleData/lisbon-porto.xml".rooted]).status == 0)
        let before = try storeRows()
        #expect(before.contains { $0.hasPrefix("ZPHOTO: ") })
        for (file, holds) in Self.unclaimed {
            let result = try vacation(["import", Self.kind(file)])
            #expect(result.status == 65, "\(file)")
            #expect(result.output == "", "\(file)")
            #expect(result.errors == "Error: \(Self.kind(file)): holds \(holds), not photos or places\n", "\(file)")
            #expect(try storeRows() == before, "\(file)")
            // visit and toggle read a feed too, and refuse it the same way.
            let visit = try vacation(["visit", "52820311874", "--feed", Self.kind(file)])
            #expect(visit.status == 65 && visit.errors.hasSuffix("holds \(holds), not photos or places\n"), "\(file)")
        }
        #expect(try storeRows() == before)
        #expect(try vacation(["check"]).status == 0)
    }

    @Test("a refused file among good ones is reported like a malformed one; the others import")
    func refusedAmongOthers() throws {
        let result = try vacation(["import", "SampleData/kyoto.json".rooted, Self.kind("places.find.xml"),
                                   "SampleData/iceland.jsonp".rooted])
        #expect(result.status == 65)
        #expect(result.errors == "Error: \(Self.kind("places.find.xml")): holds a flickr.places.find response "
            + "(places matching a search), not photos or places\n")
        #expect(result.output.contains("Total for \"My Vacation\": 18 added, 0 updated, 0 unchanged, 0 skipped"))
        let places = try vacation(["import", "SampleData/kyoto.json".rooted, "--places", Self.kind("places.find.json")])
        #expect(places.status == 65)
        #expect(places.errors.hasPrefix("Error: \(Self.kind("places.find.json")): holds a flickr.places.find response"))
        let photosForPlaces = try vacation(["import", "SampleData/kyoto.json".rooted, "--places", "SampleData/kyoto.json".rooted])
        #expect(photosForPlaces.status == 65)
        #expect(photosForPlaces.errors == "Error: \("SampleData/kyoto.json".rooted): holds a photo list, "
            + "not the top-places list --places takes\n")
    }

    @Test("the kinds the importer takes import as before: photosets' photos and top-places lists in JSON")
    func claimed() throws {
        let set = try vacation(["import", Self.kind("photosets.getPhotos.xml"), Self.kind("photosets.getPhotos.json"), "--json"])
        #expect(set.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(set.output.utf8)) as? [String: Any]
        #expect(report?["added"] as? Int == 2 && report?["unchanged"] as? Int == 2)
        let top = try vacation(["import", "SampleData/kyoto.json".rooted, "--places", Self.kind("places.getTopPlacesList.json")])
        #expect(top.status == 0 && top.errors == "")
    }

    @Test("a bare list after a rich getInfo, through the binary: only the title changes")
    func sparseReimport() throws {
        #expect(try vacation(["import", SampleFiles.fixture("getInfo_with_location.json")]).status == 0)
        let before = try JSONSerialization.jsonObject(with: Data(try vacation(["show", "6946979188", "--json"]).output.utf8))
        let bare = directory.path("bare.xml")
        try """
        <?xml version="1.0" encoding="utf-8" ?>
        <rsp stat="ok">
        <photos page="1" pages="1" perpage="100" total="1">
        \t<photo id="6946979188" owner="67131352@N04" secret="25bb44852b" server="7049" farm="8" title="IMG_0796 again" ispublic="1" isfriend="0" isfamily="0" />
        </photos>
        </rsp>
        """.write(to: bare, atomically: true, encoding: .utf8)
        let result = try vacation(["import", bare.path])
        #expect(result.status == 0)
        #expect(result.output == "\(bare.path): 0 added, 1 updated, 0 unchanged, 0 skipped\n")
        let after = try JSONSerialization.jsonObject(with: Data(try vacation(["show", "6946979188", "--json"]).output.utf8))
        var expected = try #require(before as? [String: Any])
        expected["title"] = "IMG_0796 again"
        #expect(NSDictionary(dictionary: expected).isEqual(to: try #require(after as? [String: Any])))
        #expect((after as? [String: Any])?["subtitle"] as? String == "Test")
        #expect((after as? [String: Any])?["tags"] as? [String] == ["luka"])
        #expect((after as? [String: Any])?["latitude"] as? Double == 45.807258)
        let tags = try JSONSerialization.jsonObject(with: Data(try vacation(["tags", "--json"]).output.utf8)) as? [[String: Any]]
        #expect(tags?.count == 1 && tags?.first?["name"] as? String == "luka" && tags?.first?["count"] as? Int == 1)
    }
}

private extension String {
    /// A path under the repository's root.
    var rooted: String { SampleFiles.root.appendingPathComponent(self).path }
}
