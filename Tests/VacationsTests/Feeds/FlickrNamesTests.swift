import Foundation
import Testing
@testable import Vacations

@Suite("Flickr names and sniffing")
struct FlickrNamesTests {
    @Test("tags: split on whitespace, no machine tags, folded, first of each kept", arguments: [
        (["Beach  SUNSET beach geo:lat=1 Sunset"], [], ["beach", "sunset"]),
        (["beach", "Beach", "BEACH"], [], ["beach"]),
        (["Lisboa\tTRAM28\n tram28"], [], ["lisboa", "tram28"]),
        (["camera:make=Canon", "geo:lon=2", "a:b"], [], []),
        (["", "   "], [], []),
        (["Landscape mountains"], ["LANDSCAPE"], ["mountains"]),
        (["Kyōto 京都 ÉTÉ été"], [], ["kyōto", "京都", "été"]),
        (["İstanbul"], [], ["i̇stanbul"]),
        (["sea SKY"], ["sky", "SEA"], []),
    ] as [([String], [String], [String])])
    func tags(raw: [String], excluding: [String], expected: [String]) {
        #expect(FlickrNames.tags(raw, excluding: excluding) == expected)
    }

    @Test("place names: trimmed, inner whitespace collapsed, empty is nil", arguments: [
        ("  New   York  ", "New York"), ("Lisbon", "Lisbon"), ("Reykjavík,\n Iceland", "Reykjavík, Iceland"),
        ("\t京都市 \u{3000} 日本", "京都市 日本"), ("", nil), ("  \n\t ", nil),
    ] as [(String, String?)])
    func placeNames(raw: String, expected: String?) {
        #expect(FlickrNames.placeName(raw) == expected)
    }

    @Test("ASCII text takes a byte path that gives exactly what the Unicode path gives")
    func asciiFastPathAgreesWithUnicode() {
        // The rules as written before the byte path: Character splitting and Foundation folding.
        func unicodeTags(_ raw: [String], excluding: [String]) -> [String] {
            let excluded = Set(excluding.map(FlickrNames.foldTag))
            var seen = Set<String>()
            var names: [String] = []
            for text in raw {
                for token in text.split(whereSeparator: { $0.isWhitespace }) where !token.contains(":") {
                    let name = FlickrNames.foldTag(Substring(token))
                    if !excluded.contains(name) && seen.insert(name).inserted { names.append(name) }
                }
            }
            return names
        }
        func unicodePlace(_ raw: String) -> String? {
            let words = raw.split(whereSeparator: { $0.isWhitespace })
            return words.isEmpty ? nil : words.joined(separator: " ")
        }
        let alphabet = Array("aBzZ09:_-.\t\n\r\u{0B}\u{0C} \u{1F}\u{7F}".utf8)
        var generator = SeededGenerator(seed: 20261130)
        for _ in 0..<3_000 {
            let text = String(decoding: (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! },
                              as: UTF8.self)
            let excluding = Bool.random(using: &generator) ? [String(text.prefix(3)).uppercased()] : []
            #expect(FlickrNames.tags([text, "Sea SEA"], excluding: excluding) == unicodeTags([text, "Sea SEA"], excluding: excluding),
                    "\(text.debugDescription)")
            #expect(FlickrNames.placeName(text) == unicodePlace(text), "\(text.debugDescription)")
            #expect(FlickrNames.composed(text) == text.precomposedStringWithCanonicalMapping)
        }
        #expect(FlickrNames.composed("Cafe\u{301}") == "Caf\u{E9}")
    }

    @Test("canonical ids: digits only, no leading zeros, never through Double", arguments: [
        ("7093101501", "7093101501"), ("0007093101501", "7093101501"), ("0", "0"), ("0000", "0"),
        (" 42\n", "42"), ("98765432109876543210", "98765432109876543210"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("", nil), ("  ", nil), ("-1", nil), ("+1", nil), ("1.0", nil), ("1e3", nil), ("12 34", nil),
        ("٣", nil), ("0x1F", nil),
    ] as [(String, String?)])
    func canonicalIDs(raw: String, expected: String?) {
        #expect(FlickrNames.canonicalID(raw) == expected)
    }

    @Test("sniffs the format from the first bytes", arguments: [
        ("<?xml version=\"1.0\"?>", FeedFormat.xml), ("<rsp>", .xml), ("\u{FEFF}<rsp>", .xml),
        (" \n\t<rsp>", .xml), ("\u{FEFF}  \r\n<", .xml),
        ("{\"photos\":", .json), ("[", .json), ("\u{FEFF}\n{", .json),
        ("jsonFlickrApi({", .jsonp), ("  jsonFlickrFeed (", .jsonp), ("$.cb_1(", .jsonp),
    ] as [(String, FeedFormat)])
    func sniff(prefix: String, expected: FeedFormat) {
        #expect(FlickrFeedReader.sniff(Array(prefix.utf8)) == expected)
        #expect(FlickrFeedReader.sniff(prefix.utf8) == expected)
    }

    @Test("sniffing says nil for what is no feed, or too short to tell", arguments: [
        "", "   ", "\u{FEFF}", "jsonFlickrApi", "hello world", "404 Not Found", "\"string\"", "1", "(x)",
    ])
    func sniffNothing(prefix: String) {
        #expect(FlickrFeedReader.sniff(Array(prefix.utf8)) == nil)
    }

    @Test("a partial byte order mark is not a feed")
    func partialByteOrderMark() {
        #expect(FlickrFeedReader.sniff([0xEF, 0xBB]) == nil)
        #expect(FlickrFeedReader.sniff([0xEF, 0x3C]) == nil)
        #expect(FlickrFeedReader.sniff([0xFF, 0xFE, 0x3C, 0x00]) == nil)
    }

    @Test("error descriptions are one line")
    func descriptionsAreOneLine() {
        let errors = [
            FeedError(.malformed, format: .xml, at: .lineColumn(line: 3, column: 7), "Opening and ending tag mismatch"),
            FeedError(.truncated, format: .json, at: .byteOffset(10), "the input ends inside a string"),
            FeedError(.notUTF8, at: .byteOffset(4), "bytes 0xFF"),
            FeedError(.trailingGarbage, format: .jsonp, at: .byteOffset(12), "found 'x'"),
            FeedError(.wrongRoot, format: .xml, at: .line(1), "the root element is <html>, where Flickr sends <rsp>"),
            FeedError(.flickrFailure(code: 112, message: #"Method "flickr.fakeMethod" not found"#), format: .xml),
            FeedError(.forbidden, format: .xml, at: .lineColumn(line: 2, column: 1), "a DOCTYPE"),
            FeedError(.tooDeep, format: .json, at: .byteOffset(73)),
            FeedError(.io, "cannot open /x: No such file or directory"),
        ]
        #expect(errors.map(\.description) == [
            "malformed XML at line 3, column 7: Opening and ending tag mismatch",
            "truncated JSON at byte offset 10: the input ends inside a string",
            "invalid UTF-8 at byte offset 4: bytes 0xFF",
            "unexpected data after the end of the JSONP document at byte offset 12: found 'x'",
            "not a Flickr response at line 1: the root element is <html>, where Flickr sends <rsp>",
            #"Flickr error 112: Method "flickr.fakeMethod" not found"#,
            "refused XML at line 2, column 1: a DOCTYPE",
            "JSON nested deeper than 64 levels at byte offset 73",
            "cannot open /x: No such file or directory",
        ])
    }
}

