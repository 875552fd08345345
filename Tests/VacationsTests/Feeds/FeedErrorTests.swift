import Foundation
import Testing
@testable import Vacations

/// Each way a feed can be wrong as a whole, and the error that says so.
@Suite("Feed errors")
struct FeedErrorTests {
    @Test("a truncated feed is .truncated, in every format", arguments: [
        #"<?xml version="1.0"?><rsp stat="ok"><photos><photo id="1" title="a"/>"#,
        #"<rsp stat="ok"><photos><photo id="1" tit"#,
        #"<rsp stat="ok"><photos></photos></rs"#,
        #"{"photos":{"photo":[{"id":"1"}"#,
        #"{"photos":{"photo":[{"id":"1", "title":"abc"#,
        #"{"photos":{"photo":[{"id":12"#,
        #"{"photos":{"photo":[{"id":"\u00"#,
        #"{"photos":{"photo":[]}, "stat":"ok"}"# .dropLast().description,
        #"jsonFlickrApi({"photos":{"photo":[]}, "stat":"ok"}"#,
        "jsonFlickrApi(",
        "", "   \n\t ", "\u{FEFF}",
    ])
    func truncated(text: String) {
        let error = Feeds.error(text)
        #expect(error?.kind == .truncated, "\(String(describing: error))")
    }

    @Test("truncated XML names the line and column; truncated JSON the byte offset")
    func truncatedPositions() throws {
        let xml = try #require(Feeds.error("<rsp stat=\"ok\">\n<photos>\n<photo id=\"1\"/>\n"))
        #expect(xml.kind == .truncated)
        #expect(xml.position == .lineColumn(line: 3, column: 16))
        #expect(xml.description == "truncated XML at line 3, column 16: the input ends inside <photos>")

        let json = try #require(Feeds.error(#"{"photos":{"photo":[{"id":"1""#))
        #expect(json.position == .byteOffset(29))
        #expect(json.description == "truncated JSON at byte offset 29: the input ends inside an object")
    }

    @Test("bytes that are not UTF-8 are .notUTF8 at their byte offset", arguments: [
        ([0xFF], 0),
        ([0xC3, 0x28], 0),            // a lead byte without its continuation
        ([0xE2, 0x82], -1),           // cut: reported as truncated below
        ([0xED, 0xA0, 0x80], 0),      // an encoded surrogate
        ([0xC0, 0xAF], 0),            // an overlong "/"
        ([0xF4, 0x90, 0x80, 0x80], 0), // beyond U+10FFFF
        ([0x80], 0),                  // a lone continuation byte
    ] as [([UInt8], Int)])
    func notUTF8(bytes: [UInt8], expectedOffset: Int) throws {
        for (prefix, suffix) in [(#"{"photos":{"photo":[{"id":"1","title":"caf"#, #""}]}}"#),
                                 (#"<rsp><photos><photo id="1" title="caf"#, #""/></photos></rsp>"#)] {
            var data = Data(prefix.utf8)
            data.append(contentsOf: bytes)
            data.append(contentsOf: Data(suffix.utf8))
            let error = try #require(Feeds.error(data))
            if expectedOffset < 0 {
                #expect(error.kind == .notUTF8)
                continue
            }
            #expect(error.kind == .notUTF8)
            #expect(error.position == .byteOffset(prefix.utf8.count + expectedOffset))
            #expect(error.description.hasPrefix("invalid UTF-8 at byte offset \(prefix.utf8.count + expectedOffset)"))
        }
    }

    @Test("a feed cut inside a UTF-8 character is truncated")
    func cutInsideACharacter() {
        var data = Data(#"{"photos":{"photo":[{"id":"1","title":"caf"#.utf8)
        data.append(0xC3)
        #expect(Feeds.error(data)?.kind == .truncated)
    }

    @Test("non-UTF-8 bytes deep in a large feed are found at their exact offset")
    func notUTF8DeepInside() throws {
        var text = Feeds.xml(String(repeating: #"<photo id="1" title="plain ascii title"/>"# + "\n", count: 5_000))
        let marker = text.range(of: "ascii", options: .backwards)
        text.replaceSubrange(try #require(marker), with: "asc\u{1}i")
        var data = Data(text.utf8)
        let offset = try #require(data.firstIndex(of: 0x01))
        data[offset] = 0xFE
        let error = try #require(Feeds.error(data))
        #expect(error.kind == .notUTF8)
        #expect(error.position == .byteOffset(offset))
    }

    @Test("data after the document is .trailingGarbage", arguments: [
        #"<rsp stat="ok"><photos/></rsp>junk"#,
        #"<rsp stat="ok"><photos/></rsp><rsp/>"#,
        #"{"photos":{"photo":[]}, "stat":"ok"} x"#,
        #"{"photos":{"photo":[]}, "stat":"ok"}{}"#,
        #"jsonFlickrApi({"photos":{"photo":[]}, "stat":"ok"}) x"#,
        #"jsonFlickrApi({"photos":{"photo":[]}, "stat":"ok"});;"#,
    ])
    func trailingGarbage(text: String) {
        let error = Feeds.error(text)
        #expect(error?.kind == .trailingGarbage, "\(String(describing: error))")
    }

    @Test("whitespace, a comment or a JSONP semicolon after the document are fine", arguments: [
        "<rsp stat=\"ok\"><photos/></rsp>\n\n<!-- served by flickr -->\n",
        "{\"photos\":{\"photo\":[]}, \"stat\":\"ok\"}\r\n\t ",
        "jsonFlickrApi({\"photos\":{\"photo\":[]}, \"stat\":\"ok\"})",
        "jsonFlickrApi({\"photos\":{\"photo\":[]}, \"stat\":\"ok\"});\n",
        "jsonFlickrApi ( {\"photos\":{\"photo\":[]}, \"stat\":\"ok\"} ) ;",
    ])
    func allowedEndings(text: String) throws {
        let feed = try Feeds.read(text)
        #expect(feed.summary?.content == .photos)
        #expect(feed.summary?.photoCount == 0)
    }

    @Test("well-formed documents that are not Flickr responses are .wrongRoot", arguments: [
        "<html><body>Service Unavailable</body></html>",
        "<rsp stat=\"ok\"></rsp>",
        "<rsp stat=\"maybe\"><photos/></rsp>",
        "<rsp/>",
        "{\"foo\":1}",
        "{\"stat\":\"ok\"}",
        "{}",
        "[]",
        "[{\"id\":\"1\"}]",
        "{\"photos\":{\"photo\":[]}, \"stat\":\"maybe\"}",
        "jsonFlickrApi([])",
    ])
    func wrongRoot(text: String) {
        let error = Feeds.error(text)
        #expect(error?.kind == .wrongRoot, "\(String(describing: error))")
    }

    @Test("wrong root errors say what was found")
    func wrongRootMessages() {
        #expect(Feeds.error("<html><body/></html>")?.description
            == "not a Flickr response at line 1: the root element is <html>, where Flickr sends <rsp>")
        #expect(Feeds.error("{\"foo\":1}")?.description == "not a Flickr response: the response holds no photos, photo or places")
    }

    @Test("input that is not XML, JSON or JSONP at all is malformed", arguments: [
        "hello world", "Service Unavailable", "404", "\u{FEFF}?", "jsonFlickrApi {}", "\u{0}",
    ])
    func notAFeed(text: String) {
        let error = Feeds.error(text)
        #expect(error?.kind == .malformed, "\(String(describing: error))")
    }

    @Test("malformed XML names libxml2's line and column", arguments: [
        ("<rsp stat=\"ok\">\n<photos>\n<photo id=\"1\" / >\n</photos></rsp>", 3, 15),
        ("<rsp stat=\"ok\"><photos><photo id=1/></photos></rsp>", 1, 34),
        ("<rsp stat=\"ok\"><photos></rsp>", 1, 30),
        ("<rsp stat=\"ok\"><photos><photo id=\"1\" title=\"a\" title=\"b\"/></photos></rsp>", 1, 57),
        ("<rsp>&nbsp;</rsp>", 1, 12),
    ])
    func malformedXML(text: String, line: Int, column: Int) throws {
        let error = try #require(Feeds.error(text))
        #expect(error.kind == .malformed)
        #expect(error.format == .xml)
        #expect(error.position == .lineColumn(line: line, column: column))
        #expect(error.description.hasPrefix("malformed XML at line \(line), column \(column): "))
    }

    @Test("malformed JSON names the byte offset", arguments: [
        (#"{"photos" {}}"#, 10, "expected ':' after an object key, found '{'"),
        (#"{"photos":{"photo":[1,]}}"#, 22, "expected a value, found ']'"),
        (#"{"photos":{"photo":[],}}"#, 22, "expected a string key, found '}'"),
        (#"{'photos':1}"#, 1, "expected a string key, found '''"),
        (#"{"a":tru}"#, 8, "expected true, found '}'"),
        (#"{"a":01}"#, 6, "expected ',' or '}', found '1'"),
        (#"{"a":1.}"#, 7, "expected a digit, found '}'"),
        (#"{"a":-}"#, 6, "expected a digit, found '}'"),
        (#"{"a":"\x"}"#, 7, "an unknown escape in a string, found 'x'"),
        (#"{"a":"\u12G4"}"#, 10, #"expected four hexadecimal digits after \u, found 'G'"#),
        ("{\"a\":\"tab\there\"}", 9, "a control character in a string must be escaped, found byte 0x9"),
        (#"{"a":1]"#, 6, "expected ',' or '}', found ']'"),
        (#"{"a":[1}"#, 7, "expected ',' or ']', found '}'"),
        (#"{"a":NaN}"#, 5, "expected a value, found 'N'"),
    ] as [(String, Int, String)])
    func malformedJSON(text: String, offset: Int, detail: String) throws {
        let error = try #require(Feeds.error(text))
        #expect(error.kind == .malformed)
        #expect(error.position == .byteOffset(offset))
        #expect(error.description == "malformed JSON at byte offset \(offset): \(detail)")
    }

    @Test("a DOCTYPE with an external entity on /etc/passwd is refused before it is read")
    func externalEntityRefused() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE rsp [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <rsp stat="ok"><photos><photo id="1" title="&secret;"/></photos></rsp>
            """
        var titles: [String?] = []
        let error = try #require(throws: FeedError.self) {
            try FlickrFeedReader.read(data: Data(text.utf8), photo: { titles.append($0.title) })
        }
        #expect(error.kind == .forbidden)
        #expect(error.position == .lineColumn(line: 2, column: 1))
        #expect(error.description.hasPrefix("refused XML at line 2, column 1: a DOCTYPE"))
        #expect(titles.isEmpty)
        #expect(!error.description.contains("root:"))
    }

    @Test("a billion-laughs DOCTYPE is refused at once")
    func billionLaughsRefused() throws {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            text += " <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        text += "]>\n<rsp stat=\"ok\"><photos><photo id=\"1\" title=\"&lol9;\"/></photos></rsp>\n"
        let start = ContinuousClock.now
        let error = try #require(Feeds.error(text))
        #expect(error.kind == .forbidden)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test("a DOCTYPE is refused wherever it sits in the prolog", arguments: [
        "<!DOCTYPE rsp><rsp/>",
        "\u{FEFF}<!DOCTYPE rsp><rsp/>",
        "<?xml version=\"1.0\"?><!-- a comment --><?pi data?><!DOCTYPE rsp SYSTEM \"http://example.com/x.dtd\"><rsp/>",
        "<!-- <!DOCTYPE in a comment is fine --><!DOCTYPE rsp><rsp/>",
        "<!ENTITY x \"y\"><rsp/>",
    ])
    func doctypeAnywhereInProlog(text: String) {
        #expect(Feeds.error(text)?.kind == .forbidden)
    }

    @Test("nesting 10,000 deep is refused as .tooDeep, in XML and JSON")
    func tooDeep() throws {
        let depth = 10_000
        let xml = "<rsp stat=\"ok\"><photos>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</photos></rsp>"
        let json = "{\"photos\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        let jsonp = "cb({\"x\":" + String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth) + "})"
        for text in [xml, json, jsonp] {
            let error = try #require(Feeds.error(text))
            #expect(error.kind == .tooDeep)
            #expect(error.description.contains("nested deeper than 64 levels"))
        }
        #expect(Feeds.error(xml)?.position == .line(1))
        // The root object and 63 arrays fill the 64 levels: the 64th "[" is refused.
        #expect(Feeds.error(json)?.position == .byteOffset(73))
    }

    @Test("nesting up to the limit is fine")
    func deepButAllowed() throws {
        let skipped = String(repeating: "<a>", count: 60) + String(repeating: "</a>", count: 60)
        let feed = try Feeds.read(Feeds.xml("<photo id=\"1\">\(skipped)</photo>"))
        #expect(feed.photos.map(\.id) == ["1"])
        let json = Feeds.json(#"{"id":"2", "x":"# + String(repeating: "[", count: 58) + String(repeating: "]", count: 58) + "}")
        #expect(try Feeds.read(json).photos.map(\.id) == ["2"])
    }

    @Test("a missing file is an .io error naming the path")
    func missingFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent/feed.xml")
        let error = try #require(throws: FeedError.self) {
            try FlickrFeedReader.read(contentsOf: url, photo: { _ in })
        }
        #expect(error.kind == .io)
        #expect(error.description == "cannot open /nonexistent/feed.xml: No such file or directory")
    }

    @Test("a directory is an .io error")
    func directory() throws {
        let error = try #require(throws: FeedError.self) {
            try FlickrFeedReader.read(contentsOf: FileManager.default.temporaryDirectory, photo: { _ in })
        }
        #expect(error.kind == .io)
    }

    @Test("a failure response stops before any record is delivered")
    func failureBeforeRecords() throws {
        for text in [
            #"<rsp stat="fail"><err code="105" msg="Service currently unavailable"/><photos><photo id="1"/></photos></rsp>"#,
            #"{"stat":"fail", "code":105, "message":"Service currently unavailable", "photos":{"photo":[{"id":"1"}]}}"#,
            #"jsonFlickrApi({"stat":"fail", "code":"105", "message":"Service currently unavailable"})"#,
        ] {
            var delivered = 0
            let error = try #require(throws: FeedError.self) {
                try FlickrFeedReader.read(data: Data(text.utf8), photo: { _ in delivered += 1 })
            }
            #expect(error.kind == .flickrFailure(code: 105, message: "Service currently unavailable"))
            #expect(delivered == 0)
        }
    }

    @Test("a failure response without details is still a failure")
    func bareFailure() {
        #expect(Feeds.error(#"<rsp stat="fail"/>"#)?.flickrCode == 0)
        #expect(Feeds.error(#"{"stat":"fail"}"#)?.flickrCode == 0)
    }

    @Test("an error thrown by the caller's callback comes out unchanged")
    func callbackErrorPassesThrough() throws {
        struct Stop: Error, Equatable {}
        let xml = try Data(contentsOf: Feeds.fixtureURL("search_unicode_titles.rest.xml"))
        let json = try Data(contentsOf: Feeds.fixtureURL("search_all_extras.json"))
        for data in [xml, json] {
            var seen = 0
            #expect(throws: Stop.self) {
                try FlickrFeedReader.read(data: data, photo: { _ in
                    seen += 1
                    if seen == 3 { throw Stop() }
                })
            }
            #expect(seen == 3)
        }
    }
}
