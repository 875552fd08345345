import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate strings: folding and matching shared with SQL")
struct PredicateStringTests {
    private func scalars(_ string: String) -> [UInt32] {
        string.unicodeScalars.map(\.value)
    }

    @Test("fold lowercases with [c] and strips nonspacing marks with [d]")
    func fold() {
        let fold = PredicateStringFolding.fold(_:caseInsensitive:diacriticInsensitive:)
        #expect(fold("Crème BRÛLÉE", true, true) == "creme brulee")
        #expect(scalars(fold("Crème", false, true)) == scalars("Creme"))
        #expect(scalars(fold("Crème", true, false)) == scalars("crème"))
        #expect(scalars(fold("e\u{301}", true, false)) == [0xE9])
        #expect(scalars(fold("e\u{301}", false, true)) == [0x65])
        #expect(scalars(fold("e\u{301}", false, false)) == [0x65, 0x301])
        #expect(scalars(fold("İ", true, false)) == [0x69, 0x307])
        #expect(scalars(fold("İ", true, true)) == [0x69])
        #expect(fold("ẞ", true, false) == "ß")
        #expect(fold("ÅNGSTRÖM ĳ ǅ", true, true) == "angstrom ĳ ǆ")
        #expect(fold("東京 タワー 🏖️", true, false) == "東京 タワー 🏖️")
        // Variation selectors are nonspacing marks too: [d] drops the emoji presentation one.
        #expect(scalars(fold("🏖️", false, true)) == [0x1F3D6])
        #expect(scalars(fold("👍🏽", false, true)) == [0x1F44D, 0x1F3FD])
        #expect(fold("ﬁ", true, true) == "ﬁ")
        #expect(fold("MiXeD 123 _!", true, false) == "mixed 123 _!")
        #expect(fold("MiXeD", false, true) == "MiXeD")
        #expect(scalars(fold("が", false, true)) == [0x304B])
        #expect(scalars(fold("\u{1E9B}\u{323}", false, true)) == [0x17F])
        #expect(PredicateStringFolding.fold("É", options: [.caseInsensitive, .diacriticInsensitive]) == "e")
        #expect(PredicateStringFolding.fold("É", options: []) == "É")
    }

    @Test("the ASCII fast path agrees with the general path")
    func asciiFastPath() {
        var random = SeededGenerator(state: 3)
        for _ in 0..<500 {
            let ascii = String(String.UnicodeScalarView((0..<12).compactMap { _ in Unicode.Scalar(UInt8.random(in: 0...127, using: &random)) }))
            // Appending a non-ASCII letter forces the general path; its fold is known.
            let general = PredicateStringFolding.fold(ascii + "É", caseInsensitive: true, diacriticInsensitive: true)
            #expect(general == PredicateStringFolding.fold(ascii, caseInsensitive: true, diacriticInsensitive: true) + "e")
            let caseOnly = PredicateStringFolding.fold(ascii + "Ω", caseInsensitive: true, diacriticInsensitive: false)
            #expect(caseOnly == ascii.lowercased() + "ω")
        }
    }

    @Test("byte order is UTF-8 order, unlike Swift's String comparison")
    func byteOrder() {
        let compare = PredicateStringMatching.compareBytes
        #expect(compare("a", "b") == -1)
        #expect(compare("b", "a") == 1)
        #expect(compare("", "") == 0)
        #expect(compare("", "a") == -1)
        #expect(compare("ab", "a") == 1)
        #expect(compare("Z", "a") == -1)
        #expect(compare("e\u{301}", "é") == -1)
        #expect(compare("\u{FFFF}", "😀") == -1)
        #expect(compare("é", "e\u{301}") == 1)
        #expect("é" == "e\u{301}")
    }

    @Test("substring operators work on bytes and never match an empty operand")
    func substrings() {
        #expect(PredicateStringMatching.beginsWith("e\u{301}", "e"))
        #expect(!"e\u{301}".hasPrefix("e"))
        #expect(PredicateStringMatching.endsWith("e\u{301}", "\u{301}"))
        #expect(PredicateStringMatching.contains("ae\u{301}b", "e"))
        #expect(!PredicateStringMatching.beginsWith("abc", ""))
        #expect(!PredicateStringMatching.endsWith("abc", ""))
        #expect(!PredicateStringMatching.contains("abc", ""))
        #expect(!PredicateStringMatching.contains("", ""))
        #expect(!PredicateStringMatching.contains("ab", "abc"))
        #expect(PredicateStringMatching.contains("aaab", "aab"))
        #expect(PredicateStringMatching.endsWith("abc", "abc"))
        #expect(!PredicateStringMatching.endsWith("bc", "abc"))
    }

    @Test("LIKE patterns", arguments: [
        ("", "", true), ("", "*", true), ("", "?", false), ("a", "", false), ("abc", "abc", true), ("abc", "ab", false),
        ("abc", "a*", true), ("abc", "*c", true), ("abc", "*b*", true), ("abc", "a?c", true), ("abc", "a??c", false),
        ("abc", "***", true), ("abc", "a*b*c*", true), ("abc", "*a*b*c*d", false), ("aXbXc", "a*b*c", true),
        ("mississippi", "m*iss*ppi", true), ("mississippi", "m*iss*pp", false), ("a*b", "a\\*b", true),
        ("axb", "a\\*b", false), ("a?", "a\\?", true), ("a\\", "a\\", true), ("a\\b", "a\\\\b", true),
        ("東京タワー", "東京*", true), ("東京タワー", "??タワー", true), ("🏖️", "?", false), ("🏖️", "??", true),
        ("e\u{301}", "?", false), ("e\u{301}", "e?", true), ("ABC", "abc", false),
    ])
    func like(string: String, pattern: String, expected: Bool) {
        #expect(PredicateStringMatching.like(string, pattern: pattern) == expected)
    }

    @Test("LIKE stays fast on patterns that backtrack")
    func likeBacktracking() {
        let text = String(repeating: "a", count: 5_000)
        let pattern = String(repeating: "*a", count: 50) + "b"
        #expect(!PredicateStringMatching.like(text, pattern: pattern))
        #expect(PredicateStringMatching.like(text + "b", pattern: pattern))
    }

    @Test("MATCHES matches the whole string")
    func regularExpressions() throws {
        let matches = PredicateStringMatching.matches(_:regularExpression:caseInsensitive:)
        #expect(try matches("abc", "abc", false))
        #expect(try !matches("abc", "b", false))
        #expect(try matches("abc", ".*b.*", false))
        #expect(try matches("ab", "a|ab", false))
        #expect(try matches("ABC", "abc", true))
        #expect(try !matches("ABC", "abc", false))
        #expect(try matches("", "", false))
        #expect(try !matches("x", "", false))
        #expect(try matches("line1\nline2", "line1.line2", false) == false)
        #expect(try matches("東京", "\\p{Han}+", false))
        #expect(try matches("🏖️", "..", false))
        #expect(try matches("a+b", "\\Qa+b", false))
        #expect(try matches("ab", "(?x) a b # comment", false))
        #expect(throws: ObjectPredicateError.self) { try matches("x", "[", false) }
        #expect(throws: ObjectPredicateError.self) { try matches("x", "a)|(b", false) }
    }

    @Test("evaluate applies any operator to two strings with options")
    func evaluateOperators() throws {
        let evaluate = PredicateStringMatching.evaluate(_:_:_:options:)
        #expect(try evaluate(.equalTo, "Café", "CAFE", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try !evaluate(.equalTo, "Café", "CAFE", .caseInsensitive))
        #expect(try evaluate(.notEqualTo, "a", "b", []))
        #expect(try evaluate(.lessThan, "B", "a", []))
        #expect(try !evaluate(.lessThan, "B", "a", .caseInsensitive))
        #expect(try evaluate(.lessThanOrEqualTo, "a", "A", .caseInsensitive))
        #expect(try evaluate(.greaterThan, "é", "f", []))
        #expect(try evaluate(.greaterThanOrEqualTo, "é", "E", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try evaluate(.beginsWith, "Straße", "STR", .caseInsensitive))
        #expect(try evaluate(.endsWith, "Straße", "SSE", .caseInsensitive) == false)
        #expect(try evaluate(.contains, "naïve", "IV", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try evaluate(.like, "Résumé.PDF", "resume.*", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try evaluate(.matches, "Résumé", "RESUME", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try !evaluate(.matches, "Résumé", "RESUME", .caseInsensitive))
        #expect(try evaluate(.matches, "é", "\\w", .diacriticInsensitive))
        #expect(try evaluate(.in, "x", "X", .caseInsensitive))
        do {
            _ = try evaluate(.between, "x", "y", [])
            Issue.record("evaluated")
        } catch {
            #expect(error.description == "BETWEEN needs two bounds {lower, upper}, got \"y\"")
        }
    }
}
