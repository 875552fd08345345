import ObjectGraphTestModels
import Foundation
@testable import ObjectGraph
import SQLiteDB
import Testing

@Suite("Store functions: the evaluator's string code, called from SQL")
struct StoreFunctionsTests {
    private func connection() throws -> Connection {
        let connection = try Connection.inMemory()
        try StoreFunctions.register(on: connection)
        return connection
    }

    @Test("vacations_fold folds as [c], [d] and [cd] do; NULL for anything but text")
    func fold() throws {
        let connection = try connection()
        #expect(try connection.scalar("SELECT vacations_fold('Crème BRÛLÉE', 3)") == .text("creme brulee"))
        #expect(try connection.scalar("SELECT vacations_fold(?, 2)", [.text("E\u{301}cole")]) == .text("Ecole"))
        #expect(try connection.scalar("SELECT vacations_fold('Straße', 1)") == .text("straße"))
        #expect(try connection.scalar("SELECT vacations_fold('AbC', 0)") == .text("AbC"))
        #expect(try connection.scalar("SELECT vacations_fold(NULL, 1)") == .null)
        #expect(try connection.scalar("SELECT vacations_fold(5, 1)") == .null)
    }

    @Test("vacations_match applies BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES with their options")
    func match() throws {
        let connection = try connection()
        let cases: [(String, Int64)] = [
            ("SELECT vacations_match(1, 3, 'Crème brûlée', 'CRE')", 1),
            ("SELECT vacations_match(1, 0, 'Crème brûlée', 'Crè')", 1),
            ("SELECT vacations_match(1, 0, 'Crème brûlée', 'Cre')", 0),
            ("SELECT vacations_match(1, 0, 'Crème', '')", 0),
            ("SELECT vacations_match(2, 1, 'IMG_0042.JPG', '.jpg')", 1),
            ("SELECT vacations_match(3, 2, 'naïve', 'aiv')", 1),
            ("SELECT vacations_match(4, 0, 'IMG_0042.jpg', 'IMG_*.jp?')", 1),
            ("SELECT vacations_match(4, 0, 'IMG_0042.jpg', 'img_*')", 0),
            ("SELECT vacations_match(5, 1, 'Lisbon', 'l.*N')", 1),
            ("SELECT vacations_match(5, 0, 'Lisbon', 'l.*N')", 0),
            ("SELECT vacations_match(5, 0, 'Lisbon at night', 'Lisbon')", 0),
            ("SELECT vacations_match(1, 0, NULL, 'a')", 0),
            ("SELECT vacations_match(1, 0, 'a', 5)", 0),
        ]
        for (sql, expected) in cases {
            #expect(try connection.scalar(sql) == .integer(expected), "\(sql)")
        }
    }

    @Test("the folded right operand is reused only for the same bytes, not for a canonically equal string")
    func rightOperandCache() throws {
        let connection = try connection()
        let results = try connection.rows("SELECT vacations_match(4, 0, ?, x) FROM (SELECT ? AS x UNION ALL SELECT ?)",
                                          [.text("é"), .text("é"), .text("e\u{301}")]) { $0.int64(at: 0) }
        #expect(results.sorted() == [0, 1])
    }

    @Test("an invalid MATCHES pattern from a column is an SQL error naming it")
    func invalidPattern() throws {
        let connection = try connection()
        let error = #expect(throws: SQLiteError.self) {
            try connection.scalar("SELECT vacations_match(5, 0, 'a', ?)", [.text("(")])
        }
        #expect(error.map { "\($0)".contains("Invalid regular expression \"(\" in MATCHES") } == true)
    }

    @Test("vacations_sort_key orders by the localized order: case and accents folded, digits as numbers")
    func sortKey() throws {
        let connection = try connection()
        try connection.execute("CREATE TABLE t (name TEXT)")
        let names = ["IMG 10", "img 9", "Écoles", "ecole", "a2", "a10", "A02b", "b", "", "Zoë", "zoe1"]
        for name in names { try connection.execute("INSERT INTO t VALUES (?)", [.text(name)]) }
        try connection.execute("INSERT INTO t VALUES (NULL)")
        let ordered = try connection.rows("SELECT name FROM t ORDER BY vacations_sort_key(name), rowid") { $0.string(at: 0) ?? "nil" }
        #expect(ordered == ["nil", "", "a2", "A02b", "a10", "b", "ecole", "Écoles", "img 9", "IMG 10", "Zoë", "zoe1"])
    }

    @Test("every store connection has the functions")
    func registeredOnStores() throws {
        let store = try TestStore()
        #expect(try store.sql { try $0.scalar("SELECT vacations_fold('A', 1)") } == .text("a"))
    }
}

@Suite("String folding shortcuts")
struct FoldingShortcutTests {
    /// The documented algorithm, without any shortcut.
    private func reference(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var folded = caseInsensitive ? string.lowercased() : string
        if diacriticInsensitive {
            var stripped = String.UnicodeScalarView()
            for scalar in folded.decomposedStringWithCanonicalMapping.unicodeScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                stripped.append(scalar)
            }
            folded = String(stripped)
        }
        return folded.precomposedStringWithCanonicalMapping
    }

    @Test("fold gives the full algorithm's bytes for every scalar below U+0500, alone, after 'E' and before a combining accent")
    func shortcutsAreExact() {
        var mismatches: [String] = []
        for value in UInt32(0x80)..<0x500 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "E" + String(scalar), String(scalar) + "\u{301}", "Ab" + String(scalar) + "ç"] {
                for (caseInsensitive, diacriticInsensitive) in [(true, false), (false, true), (true, true)] {
                    let folded = PredicateStringFolding.fold(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                    let expected = reference(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                    if !folded.utf8.elementsEqual(expected.utf8) { mismatches.append("U+\(String(value, radix: 16)) in \(text.debugDescription)") }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
}
