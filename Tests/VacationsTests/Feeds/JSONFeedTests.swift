import Foundation
import Testing
@testable import Vacations

@Suite("JSON and JSONP feeds")
struct JSONFeedTests {
    @Test("reads JSONP whatever the callback is called", arguments: [
        "jsonFlickrApi", "jsonFlickrFeed", "myCallback_2", "$jq.cb", "_",
    ])
    func jsonp(callback: String) throws {
        let feed = try Feeds.read(callback + "(" + Feeds.json(#"{"id":"7093101501","title":"Belém"}"#) + ");\n")
        #expect(feed.summary?.format == .jsonp)
        #expect(feed.photos == [FlickrPhoto(id: "7093101501", title: "Belém")])
    }

    @Test("takes numbers as strings and strings as numbers")
    func numbersAndStrings() throws {
        let feed = try Feeds.read(Feeds.json("""
            {"id":7093101501, "title":2024, "dateupload":1334834742, "datetaken":"2011-03-27 14:21:21",
             "latitude":"38.6916", "longitude":"-9.2160", "accuracy":"16", "server":7090, "secret":"9337f28800",
             "woeid":851128, "place_id":"00j4IylZV7scWik", "farm":8, "height_q":"150"},
            {"id":"7093100793", "dateupload":"1334834714", "latitude":38.6916, "longitude":-9.2160, "accuracy":16}
            """))
        #expect(feed.photos.count == 2)
        let first = try #require(feed.photos.first)
        #expect(first.id == "7093101501")
        #expect(first.title == "2024")
        #expect(first.dateUploaded == Date(timeIntervalSince1970: 1_334_834_742))
        #expect(first.dateTaken == Feeds.date("2011-03-27 14:21:21"))
        #expect(first.latitude == 38.6916)
        #expect(first.longitude == -9.2160)
        #expect(first.woeid == "851128")
        #expect(first.imageURL == "https://live.staticflickr.com/7090/7093101501_9337f28800_b.jpg")
        #expect(feed.photos[1].dateUploaded == Date(timeIntervalSince1970: 1_334_834_714))
        #expect(feed.photos[1].latitude == 38.6916)
    }

    @Test("keeps a 20-digit id exactly, as a string or as a number")
    func twentyDigitID() throws {
        let id = "98765432109876543210"
        let feed = try Feeds.read(Feeds.json(#"{"id":"\#(id)"}, {"id":\#(id)}, {"id":18446744073709551617}"#))
        #expect(feed.photos.map(\.id) == [id, id, "18446744073709551617"])
    }

    @Test("canonicalises ids with leading zeros, and skips ids that are not decimal integers")
    func idForms() throws {
        let feed = try Feeds.read(Feeds.json("""
            {"id":"0007093101501"}, {"id":"0"}, {"id":"000"}, {"id":7.09e9}, {"id":"-5"}, {"id":"12a"},
            {"id":""}, {"id":null}, {"title":"no id"}, {"id":true}, {"id":{"_content":"1"}}, {"id":" 42 "}
            """))
        #expect(feed.photos.map(\.id) == ["7093101501", "0", "0", "1", "42"])
        #expect(feed.problems == [
            FeedProblem(id: "7.09e9", reason: "the id is not a decimal number"),
            FeedProblem(id: "-5", reason: "the id is not a decimal number"),
            FeedProblem(id: "12a", reason: "the id is not a decimal number"),
            FeedProblem(id: "", reason: "the id is not a decimal number"),
            FeedProblem(id: nil, reason: "the record has no id"),
            FeedProblem(id: nil, reason: "the record has no id"),
            FeedProblem(id: nil, reason: "the record has no id"),
        ])
    }

    @Test("skips records that are not objects and goes on")
    func recordsThatAreNotObjects() throws {
        let feed = try Feeds.read(Feeds.json(#"{"id":"1"}, 17, "x", null, [{"id":"9"}], {"id":"2"}"#))
        #expect(feed.photos.map(\.id) == ["1", "2"])
        #expect(feed.problems.count == 4)
        #expect(feed.problems.allSatisfy { $0.id == nil && $0.reason == "the photo record is not a JSON object" })
    }

    @Test("decodes every JSON escape, surrogate pairs included", arguments: [
        (#"a\"b"#, "a\"b"), (#"back\\slash"#, "back\\slash"), (#"http:\/\/x"#, "http://x"),
        (#"\b\f\n\r\t"#, "\u{8}\u{C}\n\r\t"), (#"Marohni\u0107"#, "Marohnić"), (#"\u00e9t\u00E9"#, "été"),
        (#"\u83ca"#, "菊"), (#"\ud83d\ude00"#, "😀"), (#"\uD83C\uDDF5\uD83C\uDDF9"#, "🇵🇹"),
        (#"\u0000"#, "\u{0}"), (#"Kyōto 京都 🏯"#, "Kyōto 京都 🏯"),
        // A lone surrogate cannot be UTF-8: it becomes U+FFFD, the record stays.
        (#"cut \ud83d"#, "cut \u{FFFD}"), (#"\ude00x"#, "\u{FFFD}x"), (#"\ud83d\n"#, "\u{FFFD}\n"),
        (#"\ud83d\ud83d\ude00"#, "\u{FFFD}😀"),
    ] as [(String, String)])
    func escapes(escaped: String, decoded: String) throws {
        let feed = try Feeds.read(Feeds.json(#"{"id":"1","title":"\#(escaped)"}"#))
        #expect(feed.photos.first?.title == decoded)
    }

    @Test("reads strings, numbers and records that straddle the 64 KiB chunk boundary")
    func chunkBoundaries() throws {
        // Shift the records across the boundary one byte at a time.
        for padding in 65_400..<65_560 {
            let filler = String(repeating: " ", count: padding)
            let text = #"{"photos":{"x":"\#(filler)","photo":[{"id":"7093101501","title":"Kyōto \ud83c\udfef","latitude":35.0116,"longitude":135.7681,"accuracy":16,"tags":"kyoto temple"},{"id":12345678901}]}}"#
            let feed = try Feeds.read(text)
            #expect(feed.photos.count == 2)
            #expect(feed.photos.first?.title == "Kyōto 🏯")
            #expect(feed.photos.first?.longitude == 135.7681)
            #expect(feed.photos.first?.tags == ["kyoto", "temple"])
            #expect(feed.photos.last?.id == "12345678901")
        }
    }

    @Test("reads a UTF-8 byte order mark and whitespace before the document")
    func byteOrderMark() throws {
        for prefix in ["\u{FEFF}", "\u{FEFF} \n\t", "\n\n"] {
            let json = try Feeds.read(prefix + Feeds.json(#"{"id":"1"}"#))
            #expect(json.photos.map(\.id) == ["1"])
            let jsonp = try Feeds.read(prefix + "jsonFlickrApi(" + Feeds.json(#"{"id":"2"}"#) + ")")
            #expect(jsonp.photos.map(\.id) == ["2"])
            #expect(jsonp.summary?.format == .jsonp)
        }
    }

    @Test("ignores members it does not know, of any shape, and takes null as missing")
    func extraMembers() throws {
        let feed = try Feeds.read(#"""
            {"extra":{"deep":[1,2,{"a":[true,false,null]}]}, "photos":{"page":"1","photo":[
              {"id":"5","notes":{"note":[{"id":"1","_content":"x"}]},"title":null,"ownername":null,
               "urls":{"url":[{"type":"photopage","_content":"http:\/\/x"}]},"people":[],"tags":["odd"],
               "latitude":true, "longitude":{"x":1}, "media":"photo"}
            ], "total":"1"}, "stat":"ok", "later":[[[]]]}
            """#)
        #expect(feed.photos == [FlickrPhoto(id: "5", media: "photo")])
    }

    @Test("reads a JSON top places list; a place without a name or ids is reported")
    func places() throws {
        let feed = try Feeds.read("""
            {"places":{"total":3, "date_start":1680307200, "date_stop":1680393599, "place":[
              {"place_id":"R63H06ibApjqiWyL", "woeid":"2347591", "latitude":"42.855", "_content":"New York, US, United States"},
              {"place_id":"kH8dLOubBZRvX_YZ", "woeid":2459115, "_content":"  New   York  "},
              {"place_id":"x", "_content":""},
              {"_content":"Nowhere"}
            ]}, "stat":"ok"}
            """)
        #expect(feed.summary?.content == .places)
        #expect(feed.places == [
            FlickrPlace(placeID: "R63H06ibApjqiWyL", woeid: "2347591", name: "New York, US, United States"),
            FlickrPlace(placeID: "kH8dLOubBZRvX_YZ", woeid: "2459115", name: "  New   York  "),
        ])
        #expect(feed.problems == [
            FeedProblem(id: "x", reason: "the place has no name"),
            FeedProblem(id: nil, reason: "the place \"Nowhere\" has no place_id or woeid"),
        ])
    }

    @Test("takes 0,0 with accuracy 0 as no geo, and drops impossible coordinates")
    func geo() throws {
        let feed = try Feeds.read(Feeds.json("""
            {"id":"1","latitude":0,"longitude":0,"accuracy":0}, {"id":"2","latitude":"0","longitude":"0"},
            {"id":"3","latitude":0,"longitude":0,"accuracy":16}, {"id":"4","latitude":91,"longitude":0,"accuracy":16},
            {"id":"5","latitude":64.1466,"longitude":-21.9426,"accuracy":"16"}, {"id":"6","latitude":64.1466},
            {"id":"7","latitude":"north","longitude":"-21.9"}
            """))
        let geo = feed.photos.map { [$0.latitude, $0.longitude] }
        #expect(geo == [[nil, nil], [nil, nil], [0, 0], [nil, nil], [64.1466, -21.9426], [nil, nil], [nil, nil]])
    }

    @Test("reads dates as UTC and takes unknown or impossible dates as missing", arguments: [
        ("2011-03-27 14:21:21", Feeds.date("2011-03-27 14:21:21")),
        ("2024-02-29 23:59:59", Feeds.date("2024-02-29 23:59:59")),
        ("1969-07-20 20:17:40", Feeds.date("1969-07-20 20:17:40")),
        ("2011-03-27", Feeds.date("2011-03-27 00:00:00")),
        ("0000-00-00 00:00:00", nil), ("2023-02-29 10:00:00", nil), ("2011-13-01 00:00:00", nil),
        ("2011-03-27 24:00:00", nil), ("yesterday", nil), ("", nil),
    ] as [(String, Date?)])
    func dates(text: String, expected: Date?) throws {
        let feed = try Feeds.read(Feeds.json(#"{"id":"1","datetaken":"\#(text)"}"#))
        #expect(feed.photos.first?.dateTaken == expected)
    }

    @Test("builds image and thumbnail URLs from server and secret when the feed has none")
    func builtURLs() throws {
        let feed = try Feeds.read(Feeds.json("""
            {"id":"1","server":"65535","secret":"abc"}, {"id":"2"},
            {"id":"3","server":"1","secret":"s","url_o":"O","url_z":"Z","url_t":"T","url_q":"Q"},
            {"id":"4","server":"1","secret":"s","url_l":"","url_sq":""}
            """))
        #expect(feed.photos.map(\.imageURL) == [
            "https://live.staticflickr.com/65535/1_abc_b.jpg", nil, "Z", "https://live.staticflickr.com/1/4_s_b.jpg",
        ])
        #expect(feed.photos.map(\.thumbnailURL) == [
            "https://live.staticflickr.com/65535/1_abc_s.jpg", nil, "Q", "https://live.staticflickr.com/1/4_s_s.jpg",
        ])
    }

    @Test("reads the search extras description, derived_place and tags")
    func searchExtras() throws {
        let feed = try Feeds.read(Feeds.json(#"""
            {"id":"1","description":{"_content":"First line\nsecond"},"derived_place":"Lisbon, Portugal",
             "tags":"  lisbon  Tram28 geo:lat=38.71 ","machine_tags":"geo:lat=38.71","ownername":"Ana"}
            """#))
        let photo = try #require(feed.photos.first)
        #expect(photo.description == "First line\nsecond")
        #expect(photo.derivedPlace == "Lisbon, Portugal")
        #expect(photo.tags == ["lisbon", "Tram28", "geo:lat=38.71"])
        #expect(photo.ownerName == "Ana")
    }
}
