import Foundation
import Testing
@testable import Vacations

/// Responses of each kind Flickr sends, in the shapes its API documentation gives
/// (`Fixtures/flickr/kinds/`): photo lists, getInfo photos and top-places lists are read; every
/// other kind is refused whole, saying what it holds.
@Suite("Feed kinds: each response recognised by what it is")
struct FeedKindTests {
    /// Every unclaimed response in the fixtures, with what the refusal says it holds.
    static let unclaimed: [(file: String, holds: String)] = [
        ("photos.geo.getLocation.xml", "a flickr.photos.geo.getLocation response (a photo's location)"),
        ("photos.geo.getLocation.json", "a flickr.photos.geo.getLocation response (a photo's location)"),
        ("photos.geo.getLocation.jsonp", "a flickr.photos.geo.getLocation response (a photo's location)"),
        ("places.find.xml", "a flickr.places.find response (places matching a search)"),
        ("places.find.json", "a flickr.places.find response (places matching a search)"),
        ("places.findByLatLon.xml", "a flickr.places.findByLatLon response (the place at a point)"),
        ("places.findByLatLon.json", "a flickr.places.findByLatLon response (the place at a point)"),
        ("places.placesForBoundingBox.xml", "a flickr.places.placesForBoundingBox response (the places in an area)"),
        ("places.placesForUser.xml", UnclaimedResponses.placesWithoutDay),
        ("places.placesForUser.json", UnclaimedResponses.placesWithoutDay),
        ("places.getChildrenWithPhotosPublic.xml", UnclaimedResponses.placesWithoutDay),
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

    @Test("every unclaimed kind is refused whole, saying what it holds", arguments: unclaimed)
    func refused(file: String, holds: String) throws {
        var delivered = 0
        var thrown: FeedError?
        do {
            try FlickrFeedReader.read(contentsOf: Feeds.fixtureURL("kinds/" + file), photo: { _ in delivered += 1 })
        } catch let error as FeedError {
            thrown = error
        }
        let error = try #require(thrown)
        #expect(error.kind == .unclaimed)
        #expect(error.description == "holds \(holds), not photos or places")
        // A getLocation photo is not delivered before the refusal: nothing of it can be taken.
        if file.hasPrefix("photos.geo") { #expect(delivered == 0) }
    }

    @Test("a photoset's getPhotos is a photo list, in XML and JSON", arguments: ["xml", "json"])
    func photosetPhotos(format: String) throws {
        let feed = try Feeds.read(url: Feeds.fixtureURL("kinds/photosets.getPhotos." + format))
        #expect(feed.summary?.content == .photos)
        #expect(feed.photos.map(\.id) == ["2484", "2483"])
        #expect(feed.photos.map(\.title) == ["my photo", "flickr rocks"])
    }

    @Test("a JSON top-places list, with date_start and date_stop after its places, is read")
    func jsonTopPlaces() throws {
        let feed = try Feeds.read(url: Feeds.fixtureURL("kinds/places.getTopPlacesList.json"))
        #expect(feed.summary?.content == .places)
        #expect(feed.places == [FlickrPlace(placeID: "4KO02SibApitvSBieQ", woeid: "23424977", name: "United States", photoCount: 23371)])
    }

    @Test("a top-places list is known by date_start or date_stop; other place lists by what they carry", arguments: [
        (#"<places total="1" date_start="1246320000" date_stop="1246406399">"#, nil),
        (#"<places date_stop="1246406399">"#, nil),
        (#"<places total="100" date_start="1271030400" date_stop="1271116799" place_type="locality" place_type_id="7">"#, nil),
        (#"<places query="Porto" total="1">"#, UnclaimedResponses.placesFind),
        (#"<places query="" date_start="1">"#, UnclaimedResponses.placesFind),
        (#"<places latitude="41.1" longitude="-8.6" accuracy="16" total="1">"#, UnclaimedResponses.placesFindByLatLon),
        (#"<places bbox="-8.7,41.1,-8.5,41.2" place_type="locality" total="1">"#, UnclaimedResponses.placesForBoundingBox),
        (#"<places total="1">"#, UnclaimedResponses.placesWithoutDay),
        ("<places>", UnclaimedResponses.placesWithoutDay),
    ] as [(String, String?)])
    func placeLists(opening: String, refusal: String?) throws {
        let xml = #"<rsp stat="ok">"# + opening + #"<place place_id="P1" woeid="1">Porto, Porto, Portugal</place></places></rsp>"#
        // The same list in JSON, its members after the places as Flickr writes them.
        let members = try NSRegularExpression(pattern: #"(\w+)="([^"]*)""#)
            .matches(in: opening, range: NSRange(opening.startIndex..., in: opening))
            .map { match in
                let name = (opening as NSString).substring(with: match.range(at: 1))
                let value = (opening as NSString).substring(with: match.range(at: 2))
                return "\"\(name)\":\"\(value)\""
            }
        let json = #"{"places":{"place":[{"place_id":"P1","woeid":"1","_content":"Porto, Porto, Portugal"}]"#
            + members.map { "," + $0 }.joined() + #"},"stat":"ok"}"#
        for text in [xml, json, "jsonFlickrApi(" + json + ")"] {
            if let refusal {
                let format = try #require(FlickrFeedReader.sniff(Array(text.utf8)))
                #expect(Feeds.error(text) == FeedError.unclaimed(refusal, format: format), "\(text)")
            } else {
                let feed = try Feeds.read(text)
                #expect(feed.places == [FlickrPlace(placeID: "P1", woeid: "1", name: "Porto, Porto, Portugal")], "\(text)")
            }
        }
    }

    @Test("a single photo is getInfo's when it has an owner, title, description, dates or visibility", arguments: [
        ("<title>t</title>", nil),
        (#"<owner nsid="1@N01" username="a"/>"#, nil),
        ("<description/>", nil),
        (#"<dates posted="1" taken="2023-04-06 20:12:33"/>"#, nil),
        (#"<visibility ispublic="1" isfriend="0" isfamily="0"/>"#, nil),
        (#"<location latitude="1" longitude="2"/>"#, UnclaimedResponses.geoLocation),
        (#"<tags><tag raw="a">a</tag></tags>"#, UnclaimedResponses.photoTags),
        (#"<exif tag="271"><raw>Canon</raw></exif>"#, UnclaimedResponses.exif),
        (#"<person nsid="1@N01"/>"#, UnclaimedResponses.favorites),
        ("", UnclaimedResponses.photoWithoutInfo),
        ("<comments>3</comments>", UnclaimedResponses.photoWithoutInfo),
    ] as [(String, String?)])
    func singlePhotos(children: String, refusal: String?) throws {
        let xml = #"<rsp stat="ok"><photo id="7" title="an attribute is a list's, not getInfo's">"# + children + "</photo></rsp>"
        if let refusal {
            #expect(Feeds.error(xml) == FeedError.unclaimed(refusal, format: .xml))
        } else {
            #expect(try Feeds.read(xml).photos.map(\.id) == ["7"])
        }
    }

    @Test("a single JSON photo is getInfo's when owner, title, description, dates or visibility is an object", arguments: [
        (#""title":{"_content":"t"}"#, nil),
        (#""owner":{"nsid":"1@N01"}"#, nil),
        (#""visibility":{"ispublic":1}"#, nil),
        (#""title":"a list's title","owner":"1@N01""#, UnclaimedResponses.photoWithoutInfo),
        (#""location":{"latitude":1,"longitude":2}"#, UnclaimedResponses.geoLocation),
        (#""tags":{"tag":[]}"#, UnclaimedResponses.photoTags),
        (#""exif":[]"#, UnclaimedResponses.exif),
        (#""person":[],"page":1"#, UnclaimedResponses.favorites),
    ] as [(String, String?)])
    func singleJSONPhotos(members: String, refusal: String?) throws {
        let json = #"{"photo":{"id":"7",\#(members)},"stat":"ok"}"#
        if let refusal {
            #expect(Feeds.error(json) == FeedError.unclaimed(refusal, format: .json))
        } else {
            #expect(try Feeds.read(json).photos.map(\.id) == ["7"])
        }
    }

    @Test("a failure response wins over what its other members would be")
    func failureWins() {
        let text = #"{"photo":{"id":"1","location":{"latitude":1,"longitude":2}},"stat":"fail","code":2,"message":"Photo has no location information."}"#
        #expect(Feeds.error(text)?.kind == .flickrFailure(code: 2, message: "Photo has no location information."))
    }

    @Test("an empty response, or one without stat, is still not a Flickr response")
    func emptyResponses() {
        for text in [#"<rsp stat="ok"></rsp>"#, "<rsp/>", #"{"stat":"ok"}"#, "{}", #"{"foo":1}"#, #"{"foo":{"bar":1}}"#] {
            #expect(Feeds.error(text)?.kind == .wrongRoot, "\(text)")
        }
        #expect(Feeds.error(#"<rsp stat="ok"><people total="0"/></rsp>"#)
            == FeedError.unclaimed("a flickr.photos.people.getList response (the people in a photo)", format: .xml))
    }
}
