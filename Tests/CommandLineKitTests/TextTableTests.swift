import Testing
import CommandLineKit

@Suite("Text tables")
struct TextTableTests {
    @Test("aligns text left and numbers right under a header")
    func alignment() {
        var table = TextTable(columns: [.init("TAG"), .init("PHOTOS", alignment: .right)])
        table.addRow(["beach", "3"])
        table.addRow(["sunset", "128"])
        #expect(table.rendered() == """
            TAG     PHOTOS
            beach        3
            sunset     128
            """)
    }

    @Test("aligns columns by display width with CJK, accents and emoji")
    func wideCharacters() {
        var table = TextTable(columns: [.init("PLACE"), .init("PHOTOS", alignment: .right), .init("NOTE")])
        table.addRow(["東京", "12", "🗼 tower"])
        table.addRow(["Paris", "3", "ok"])
        table.addRow(["Zu\u{308}rich", "140", ""])
        let lines = table.rendered().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines == [
            "PLACE   PHOTOS  NOTE",
            "東京        12  🗼 tower",
            "Paris        3  ok",
            "Zu\u{308}rich     140",
        ])
        // The third column starts at the same display column on every line that has one.
        for line in lines.dropLast() {
            let lastGap = line.ranges(of: "  ").last.map { line[..<$0.upperBound] } ?? ""
            #expect(DisplayWidth.of(lastGap) == 16, "\(line)")
        }
    }

    @Test("truncates a column to its maximum width with an ellipsis")
    func truncation() {
        var table = TextTable(columns: [.init("TITLE", maximumWidth: 6), .init("ID", alignment: .right)])
        table.addRow(["Copenhagen harbour", "1"])
        table.addRow(["日本語テキスト", "22"])
        table.addRow(["👨‍👩‍👧 family", "333"])
        table.addRow(["Short", "4"])
        #expect(table.rendered() == """
            TITLE    ID
            Copen…    1
            日本…    22
            👨‍👩‍👧 fa…  333
            Short     4
            """)
    }

    @Test("never cuts inside a wide character")
    func truncationAtWideBoundary() {
        var table = TextTable(columns: [.init("X", maximumWidth: 4)], showsHeader: false)
        table.addRow(["日本語"])
        table.addRow(["abcdef"])
        #expect(table.rendered() == "日…\nabc…")
        for width in 0...8 {
            var narrow = TextTable(columns: [.init("", maximumWidth: width)], showsHeader: false)
            narrow.addRow(["東京タワー and more 🗼"])
            #expect(DisplayWidth.of(narrow.rendered()) <= width, "\(width)")
        }
    }

    @Test("leaves no trailing spaces, even with empty last cells")
    func noTrailingSpaces() {
        var table = TextTable(columns: [.init("A"), .init("B"), .init("C")])
        table.addRow(["x", "", ""])
        table.addRow(["", "", ""])
        table.addRow(["long value", "y"])
        let rendered = table.rendered()
        for line in rendered.split(separator: "\n", omittingEmptySubsequences: false) {
            #expect(!line.hasSuffix(" "), "'\(line)'")
        }
        #expect(rendered == "A           B  C\nx\n\nlong value  y")
    }

    @Test("turns control characters into spaces so a row stays one line")
    func controlCharacters() {
        var table = TextTable(columns: [.init("TITLE"), .init("N", alignment: .right)])
        table.addRow(["two\nlines\tand\u{1B}[31mred", "1"])
        #expect(table.rendered() == """
            TITLE                  N
            two lines and [31mred  1
            """)
    }

    @Test("drops cells beyond the columns and renders an empty table as nothing")
    func edges() {
        var table = TextTable(columns: [.init("A")], showsHeader: false)
        table.addRow(["1", "extra"])
        #expect(table.rendered() == "1")
        #expect(TextTable(columns: []).rendered() == "")
        #expect(TextTable(columns: [.init("ONLY")]).rendered() == "ONLY")
    }
}
