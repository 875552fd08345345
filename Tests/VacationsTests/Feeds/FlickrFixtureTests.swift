import Foundation
import Testing
@testable import Vacations

/// The real Flickr responses in `Fixtures/flickr/` (see its README for sources and licences).
@Suite("Real Flickr responses")
struct FlickrFixtureTests {
    @Test("reads every photo of the real XML search response")
    func xmlSearch() throws {
        let feed = try Feeds.readFixture("search_unicode_titles.rest.xml")
        let summary = try #require(feed.summary)
        #expect(summary.format == .xml)
        #expect(summary.content == .photos)
        #expect(summary.photoCount == 100)
        #expect(summary.problems == [])
        #expect(feed.photos.count == 100)
        #expect(Set(feed.photos.map(\.id)).count == 100)
        #expect(feed.photos.first?.id == "26390287861")
        #expect(feed.photos.last?.id == "25829379693")

        let first = try #require(feed.photos.first)
        #expect(first == FlickrPhoto(
            id: "26390287861", title: "16/04/16", owner: "108244948@N03",
            imageURL: "https://live.staticflickr.com/1521/26390287861_4c3c65d5ee_b.jpg",
            thumbnailURL: "https://live.staticflickr.com/1521/26390287861_4c3c65d5ee_s.jpg",
            derived: [.imageURL, .thumbnailURL]))
    }

    @Test("decodes entities, CJK, Hangul, accents and emoji in XML titles", arguments: [
        ("26345735162", "T-Bone & Razor"),
        ("26443958835", "なんかあんの？"),
        ("26444697395", "Kiku 菊"),
        ("26430534775", "Chanél"),
        ("26401881576", "20160403-IMGP4818-편집"),
        ("26338104462", "'Kedi', Büyükada, Princes' Islands, Istanbul"),
    ])
    func xmlTitles(id: String, title: String) throws {
        let feed = try Feeds.readFixture("search_unicode_titles.rest.xml")
        #expect(feed.photo(id)?.title == title)
    }

    @Test("keeps a 210-character title with emoji whole, and reads empty titles as nil")
    func xmlLongAndEmptyTitles() throws {
        let feed = try Feeds.readFixture("search_unicode_titles.rest.xml")
        let long = try #require(feed.photo("26430783155")?.title)
        #expect(long.unicodeScalars.count == 210)
        #expect(long.hasPrefix("‼️⌛️ Plus que 24h ⌛️‼️ pour tenter"))
        #expect(long.hasSuffix("Je vous parle aussi de leurs c"))
        #expect(feed.photo("26360458082")?.title == nil)
        #expect(feed.photo("26344631062")?.title == nil)
        #expect(feed.photos.filter { $0.title == nil }.count == 2)
    }

    @Test("reads every photo of the real JSON search response with all extras")
    func jsonSearch() throws {
        let feed = try Feeds.readFixture("search_all_extras.json")
        let summary = try #require(feed.summary)
        #expect(summary.format == .json)
        #expect(summary.content == .photos)
        #expect(summary.photoCount == 98)
        #expect(summary.problems == [])
        #expect(feed.photos.count == 98)

        let first = try #require(feed.photos.first)
        #expect(first == FlickrPhoto(
            id: "7093101501", title: "IMG_0917", owner: "67131352@N04", ownerName: "Janko Marohnić",
            dateTaken: Feeds.date("2011-03-27 14:21:21"),
            dateUploaded: Date(timeIntervalSince1970: 1_334_834_742),
            imageURL: "http://farm8.staticflickr.com/7090/7093101501_9337f28800_b.jpg",
            thumbnailURL: "http://farm8.staticflickr.com/7090/7093101501_9337f28800_s.jpg",
            media: "photo", tags: [], emptied: [.coordinates, .tags]))
        // "latitude":0, "longitude":0, "accuracy":0 is Flickr's "no geo".
        #expect(feed.photos.filter { $0.latitude != nil }.map(\.id) == ["6946979188", "7093038981"])
        #expect(feed.photos.filter { $0.media == "photo" }.count == 97)
    }

    @Test("reads the video of the JSON search response with its geo, place and best URL")
    func jsonVideo() throws {
        let feed = try Feeds.readFixture("search_all_extras.json")
        let video = try #require(feed.photo("7093038981"))
        #expect(video.media == "video")
        #expect(video.title == "5 meter backflip")
        #expect(video.latitude == 45.809537)
        #expect(video.longitude == 15.970344)
        #expect(video.tags == ["tag"])
        #expect(video.placeID == "00j4IylZV7scWik")
        #expect(video.woeid == "851128")
        #expect(video.dateTaken == Feeds.date("2012-04-19 03:44:55"))
        // A video has no url_l, url_c or url_z: url_m is the best there is.
        #expect(video.imageURL == "http://farm6.staticflickr.com/5457/7093038981_9a616b9f6e.jpg")
        #expect(video.thumbnailURL == "http://farm6.staticflickr.com/5457/7093038981_9a616b9f6e_s.jpg")
    }

    @Test("reads a getInfo photo: _content fields, owner, dates, tags and location")
    func jsonGetInfo() throws {
        let feed = try Feeds.readFixture("getInfo_with_location.json")
        let summary = try #require(feed.summary)
        #expect(summary.format == .json)
        #expect(summary.content == .singlePhoto)
        #expect(summary.photoCount == 1)
        #expect(feed.photos == [FlickrPhoto(
            id: "6946979188", title: "IMG_0796", description: "Test", owner: "67131352@N04",
            ownerName: "Janko Marohnić", dateTaken: Feeds.date("2011-03-20 17:00:05"),
            dateUploaded: Date(timeIntervalSince1970: 1_334_832_745),
            latitude: 45.807258, longitude: 15.967599,
            imageURL: "https://live.staticflickr.com/7049/6946979188_25bb44852b_b.jpg",
            thumbnailURL: "https://live.staticflickr.com/7049/6946979188_25bb44852b_s.jpg",
            media: "photo", tags: ["luka"], placeID: "00j4IylZV7scWik", woeid: "851128",
            derivedPlace: "Zagreb, Grad Zagreb, Croatia", derived: [.imageURL, .thumbnailURL])])
    }

    @Test("reads a top places list past its comment, with names and ids")
    func xmlTopPlaces() throws {
        let feed = try Feeds.readFixture("places_getTopPlacesList.rest.xml")
        let summary = try #require(feed.summary)
        #expect(summary.format == .xml)
        #expect(summary.content == .places)
        #expect(summary.placeCount == 6)
        #expect(summary.photoCount == 0)
        #expect(feed.places.map(\.name) == [
            "New York, US, United States", "California, US, United States", "England, GB, United Kingdom",
            "Lower Austria, AT, Austria", "Taiwan, TW, Taiwan", "Florida, US, United States",
        ])
        #expect(feed.places.first == FlickrPlace(placeID: "R63H06ibApjqiWyL", woeid: "2347591",
                                                 name: "New York, US, United States", photoCount: 4205))
        #expect(feed.places.last?.placeID == "X2rdBEmbAphlKYoq")
    }

    @Test("turns the XML failure response into Flickr error 112 with its message decoded")
    func xmlFailure() throws {
        let url = try Feeds.fixtureURL("error_method_not_found.rest.xml")
        var delivered = 0
        let error = try #require(throws: FeedError.self) {
            try FlickrFeedReader.read(contentsOf: url, photo: { _ in delivered += 1 })
        }
        #expect(error.kind == .flickrFailure(code: 112, message: #"Method "flickr.fakeMethod" not found"#))
        #expect(error.flickrCode == 112)
        #expect(error.description == #"Flickr error 112: Method "flickr.fakeMethod" not found"#)
        #expect(delivered == 0)
    }

    @Test("turns the JSON failure response into Flickr error 100")
    func jsonFailure() throws {
        let url = try Feeds.fixtureURL("error_invalid_api_key.json")
        let error = try #require(throws: FeedError.self) {
            try FlickrFeedReader.read(contentsOf: url, photo: { _ in })
        }
        #expect(error.kind == .flickrFailure(code: 100, message: "Invalid API Key (Key has invalid format)"))
        #expect(error.description == "Flickr error 100: Invalid API Key (Key has invalid format)")
    }

    @Test("reads each fixture the same from a URL, a file handle and memory", arguments: [
        "search_unicode_titles.rest.xml", "search_all_extras.json",
        "getInfo_with_location.json", "places_getTopPlacesList.rest.xml",
    ])
    func sameFromEverySource(name: String) throws {
        let url = try Feeds.fixtureURL(name)
        let fromURL = try Feeds.read(url: url)
        let fromData = try Feeds.read(data: Data(contentsOf: url))
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var fromHandle = CollectedFeed()
        fromHandle.summary = try FlickrFeedReader.read(fileHandle: handle, photo: { fromHandle.photos.append($0) },
                                                       place: { fromHandle.places.append($0) })
        #expect(fromURL.photos == fromData.photos)
        #expect(fromURL.places == fromData.places)
        #expect(fromURL.summary == fromData.summary)
        #expect(fromHandle.photos == fromURL.photos)
        #expect(fromHandle.summary == fromURL.summary)
    }

    @Test("finds the truncation at every cut of a real feed, never a crash or a record too many")
    func everyCutIsAnError() throws {
        for (name, stride, tail) in [("search_unicode_titles.rest.xml", 97, 64), ("search_all_extras.json", 9_973, 12),
                                     ("getInfo_with_location.json", 7, 64)] {
            let data = try Data(contentsOf: Feeds.fixtureURL(name))
            // The last byte that is not trailing whitespace ends the document.
            let end = try #require(data.lastIndex { !FlickrNames.isASCIIWhitespace($0) })
            // Every byte near the end, where the closing tags are; a stride elsewhere.
            let cuts = Array(Swift.stride(from: 0, to: end - tail, by: stride)) + Array((end - tail)...end)
            for cut in cuts {
                let error = Feeds.error(data.prefix(cut))
                #expect(error?.kind == .truncated, "\(name) cut at \(cut): \(String(describing: error))")
            }
        }
    }
}
