import Foundation
import Testing
import TestSupport
@testable import Vacations

/// Damaged and oddly delivered input: the reader either reads it or throws a `FeedError`,
/// never anything else, and never crashes.
@Suite("Feed robustness")
struct FeedRobustnessTests {

    @Test("bytes changed at random in real feeds give a feed or a FeedError", arguments: [
        "getInfo_with_location.json", "places_getTopPlacesList.rest.xml", "error_method_not_found.rest.xml",
        "error_invalid_api_key.json",
    ])
    func mutations(name: String) throws {
        let original = try Data(contentsOf: Feeds.fixtureURL(name))
        let interesting: [UInt8] = Array("<>\"'{}[],:\\&;/= -0e".utf8) + [0x00, 0x0A, 0xC3, 0xFF, 0x80]
        var generator = SplitMix64(state: 2024)
        for round in 0..<400 {
            var data = original
            for _ in 0..<(1 + round % 3) {
                let index = Int.random(in: 0..<data.count, using: &generator)
                data[index] = interesting.randomElement(using: &generator) ?? 0
            }
            do {
                let feed = try Feeds.read(data: data)
                #expect(feed.summary != nil)
            } catch is FeedError {
                // Expected for most mutations.
            } catch {
                Issue.record("round \(round): \(error)")
            }
        }
    }

    @Test("odd numbers in odd places never crash", arguments: [
        #""accuracy":1e300"#, #""accuracy":-1e308"#, #""accuracy":"NaN""#, #""latitude":1e999"#,
        #""dateupload":"99999999999999999999""#, #""dateupload":-5"#, #""datetaken":"9999-12-31 23:59:60""#,
        #""id":1e2"#, #""server":1.5,"secret":null"#,
    ])
    func oddNumbers(member: String) throws {
        let feed = try Feeds.read(Feeds.json(#"{"id":"1",\#(member)}"#))
        #expect(feed.photos.count + feed.problems.count == 1)
    }

    @Test("reads a feed from a pipe that delivers it in small pieces, as standard input may")
    func pipeInSmallPieces() throws {
        for name in ["search_all_extras.json", "search_unicode_titles.rest.xml"] {
            let data = try Data(contentsOf: Feeds.fixtureURL(name))
            let pipe = Pipe()
            let writer = pipe.fileHandleForWriting
            Thread.detachNewThread {
                var offset = 0
                while offset < data.count {
                    let end = min(offset + 777, data.count)
                    try? writer.write(contentsOf: data[offset..<end])
                    offset = end
                }
                try? writer.close()
            }
            var count = 0
            let summary = try FlickrFeedReader.read(fileHandle: pipe.fileHandleForReading, photo: { _ in count += 1 })
            #expect(count == (name.hasSuffix(".json") ? 98 : 100))
            #expect(summary.photoCount == count)
        }
    }

    @Test("input that is no feed says so in one line")
    func notAFeedDescription() {
        #expect(Feeds.error("hello")?.description
            == "malformed input at byte offset 0: not a Flickr feed: expected XML, JSON or JSONP")
        #expect(Feeds.error("404")?.description
            == "malformed input at byte offset 0: not a Flickr feed: expected XML, JSON or JSONP, found '4'")
        #expect(Feeds.error("jsonFlickrApi")?.description
            == "malformed input at byte offset 0: not a Flickr feed: expected XML, JSON or JSONP")
        #expect(Feeds.error("")?.description == "truncated input at byte offset 0: the input is empty")
        #expect(Feeds.error("\u{FEFF}\n")?.description == "truncated input at byte offset 4: the input is empty")
    }

    @Test("reads a Data slice that does not start at index 0")
    func dataSlice() throws {
        let whole = Data(("garbage" + Feeds.json(#"{"id":"7"}"#)).utf8)
        let slice = whole[whole.index(whole.startIndex, offsetBy: 7)...]
        #expect(try Feeds.read(data: slice).photos.map(\.id) == ["7"])
    }
}
