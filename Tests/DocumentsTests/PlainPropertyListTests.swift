import Foundation
import Testing
import TestSupport
@testable import Documents

/// `DocumentMetadata.plist` is read without Foundation's parser when it is in the plain form
/// `PropertyListSerialization` writes; whatever the file holds, the metadata read must be what
/// Foundation's reading gives.
@Suite("Document metadata: the plain reader against Foundation's")
struct PlainPropertyListTests {
    private func expectSameReading(_ data: Data, plain: Bool, _ comment: Comment? = nil,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        let fallback = DocumentMetadata(modelVersion: "fallback", created: Date(timeIntervalSince1970: 7),
                                        modified: Date(timeIntervalSince1970: 8), appVersion: "fallback", formatVersion: 9)
        let values = PlainPropertyList.values(data)
        #expect((values != nil) == plain, comment, sourceLocation: sourceLocation)
        let foundation = DocumentMetadata.read(foundation: data, fallback: fallback)
        if let values {
            #expect(DocumentMetadata.read(plain: values, fallback: fallback) == foundation, comment, sourceLocation: sourceLocation)
        }
    }

    private func plist(_ body: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(body)
            </dict>
            </plist>

            """.utf8)
    }

    @Test("metadata files written with random values and other tools' keys read the same both ways")
    func writtenFiles() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("PlainPropertyListTests.writtenFiles seed \(seed)")
        var random = SplitMix64(seed: seed)
        let directory = try TemporaryDirectory(prefix: "plain-plist")
        let texts = ["", "2", "1.0", "a <b> & \"c\" 'd'", "Café ☕️ 東京", "  spaced  ", "line\nbreak", "tab\there", "]]>", "&amp;"]
        for round in 0..<300 {
            let path = directory.path("metadata-\(round).plist").path
            // Other tools' keys first, so that writing keeps them.
            var foreign: [String: Any] = [:]
            for index in 0..<Int(random.next() % 4) {
                let key = "other\(index) \(texts[Int(random.next() % UInt64(texts.count))])"
                switch random.next() % 4 {
                case 0: foreign[key] = texts[Int(random.next() % UInt64(texts.count))]
                case 1: foreign[key] = Int(Int64(bitPattern: random.next()) >> Int(random.next() % 63))
                case 2: foreign[key] = random.next() % 2 == 0
                default: foreign[key] = Date(timeIntervalSince1970: Double(Int64(random.next() % 200_000_000_000) - 11_000_000_000))
                }
            }
            try PropertyListSerialization.data(fromPropertyList: foreign, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
            let seconds = Double(Int64(random.next() % 250_000_000_000) - 11_600_000_000)  // 1602 to 9891
            let metadata = DocumentMetadata(
                modelVersion: texts[Int(random.next() % UInt64(texts.count))], created: Date(timeIntervalSince1970: seconds),
                modified: Date(timeIntervalSince1970: seconds + Double(random.next() % 1_000_000)),
                appVersion: texts[Int(random.next() % UInt64(texts.count))], formatVersion: Int(random.next() % 5))
            try metadata.write(to: path)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            expectSameReading(data, plain: true, "round \(round): \(String(decoding: data, as: UTF8.self))")
            let fallback = DocumentMetadata(modelVersion: "", created: Date(), modified: Date(), appVersion: "")
            #expect(try DocumentMetadata.read(from: path, fallback: fallback) == metadata, "round \(round)")
        }
    }

    @Test("plain forms Foundation writes or reads alike are read without it")
    func plainForms() {
        let cases = [
            "\t<key>modelVersion</key>\n\t<string/>",
            "\t<key>modelVersion</key>\n\t<string></string>",
            "\t<key>formatVersion</key>\n\t<true/>",
            "\t<key>formatVersion</key>\n\t<false/>",
            "\t<key>formatVersion</key>\n\t<integer>-3</integer>",
            "\t<key>formatVersion</key>\n\t<integer>9223372036854775807</integer>",
            "\t<key>formatVersion</key>\n\t<integer>-9223372036854775808</integer>",
            "\t<key>appVersion</key>\n\t<integer>3</integer>",
            "\t<key>modelVersion</key>\n\t<string>&lt;&amp;&gt;&quot;&apos;</string>",
            "\t<key>created</key>\n\t<date>2000-02-29T23:59:59Z</date>",
            "\t<key>created</key>\n\t<date>1601-01-01T00:00:00Z</date>",
            "\t<key>created</key>\n\t<string>2000-02-29T23:59:59Z</string>",
            "",
        ]
        for body in cases { expectSameReading(plist(body), plain: true, "\(body)") }
    }

    @Test("anything else goes to Foundation's reader", arguments: [
        "\t<key>modelVersion</key>\n\t<string><![CDATA[2]]></string>",
        "\t<key>modelVersion</key>\n\t<string>&#50;</string>",
        "\t<key>modelVersion</key>\n\t<string>&nbsp;</string>",
        "\t<key>modelVersion</key>\n\t<string>a\r\nb</string>",
        "\t<!-- a comment -->\n\t<key>modelVersion</key>\n\t<string>2</string>",
        "\t<key>formatVersion</key>\n\t<real>1.5</real>",
        "\t<key>formatVersion</key>\n\t<integer>12345678901234567890</integer>",
        "\t<key>formatVersion</key>\n\t<integer>+1</integer>",
        "\t<key>formatVersion</key>\n\t<integer>0x10</integer>",
        "\t<key>other</key>\n\t<data>AAEC</data>",
        "\t<key>other</key>\n\t<array><string>a</string></array>",
        "\t<key>other</key>\n\t<dict/>",
        "\t<key>created</key>\n\t<date>2000-02-30T00:00:00Z</date>",
        "\t<key>created</key>\n\t<date>1582-10-15T00:00:00Z</date>",
        "\t<key>created</key>\n\t<date>2000-01-01T00:00:00+01:00</date>",
        "\t<key>created</key>\n\t<date>2000-01-01T24:00:00Z</date>",
        "\t<key>modelVersion</key>\n\t<string>1</string>\n\t<key>modelVersion</key>\n\t<string>2</string>",
        "\t<key>modelVersion</key>",
        "\t<key>modelVersion</key>\n\t<string>2",
    ])
    func otherForms(body: String) {
        expectSameReading(plist(body), plain: false, "\(body)")
    }

    @Test("other encodings and layouts go to Foundation's reader too")
    func otherFiles() throws {
        let dictionary: [String: Any] = ["modelVersion": "2", "formatVersion": 1, "created": Date(timeIntervalSince1970: 1e9)]
        expectSameReading(try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0), plain: false)
        expectSameReading(Data("<plist version=\"1.0\"><dict><key>modelVersion</key><string>2</string></dict></plist>".utf8), plain: false)
        expectSameReading(Data(), plain: false)
        expectSameReading(Data([0xFF, 0xFE, 0x00]), plain: false)
        var trailing = plist("\t<key>modelVersion</key>\n\t<string>2</string>")
        trailing.append(contentsOf: Array("<plist/>".utf8))
        expectSameReading(trailing, plain: false)
    }
}
