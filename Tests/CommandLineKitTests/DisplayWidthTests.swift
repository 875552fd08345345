import Testing
import CommandLineKit
import TestSupport

@Suite("Display width")
struct DisplayWidthTests {
    @Test("counts terminal columns", arguments: [
        ("", 0),
        ("abc", 3),
        ("Hello, world!", 13),
        ("日本語", 6),
        ("한국어", 6),
        ("ひらがな", 8),
        ("カタカナ", 8),
        ("ｱｲｳ", 3),                              // halfwidth katakana
        ("ＡＢＣ", 6),                            // fullwidth forms
        ("，。", 4),                              // CJK punctuation
        ("\u{3000}", 2),                          // ideographic space
        ("Café", 4),                              // NFC: é is one scalar
        ("Cafe\u{301}", 4),                       // NFD: e + combining acute
        ("e\u{301}\u{302}\u{303}", 1),            // stacked marks
        ("ก่", 1),                                 // Thai with tone mark
        ("\u{1100}\u{1161}\u{11A8}", 2),          // Hangul syllable from jamo
        ("👍", 2),
        ("👍🏽", 2),                              // skin tone modifier
        ("🇯🇵", 2),                               // flag: two regional indicators, one cluster
        ("🇯🇵🇫🇷", 4),
        ("👨‍👩‍👧", 2),                            // ZWJ family
        ("👨‍👩‍👧‍👦", 2),
        ("🏳️‍🌈", 2),
        ("❤️", 2),                                // text-default emoji with VS16
        ("❤", 1),                                 // same without it
        ("☺\u{FE0E}", 1),                         // text presentation selector
        ("⌚", 2),                                 // emoji presentation by default
        ("⌚\u{FE0E}", 1),
        ("1️⃣", 2),                                // keycap
        ("🗼", 2),
        ("Tokyo 東京 🗼", 13),
        ("→Ω", 2),                                // ambiguous width counts 1
        ("\t", 0), ("\n", 0), ("\r\n", 0), ("\u{1B}", 0), ("\u{7F}", 0), ("\u{0}", 0),
        ("a\u{200B}b", 2),                        // zero-width space
        ("\u{200D}", 0), ("\u{FE0F}", 0), ("\u{301}", 0),
        ("\u{20000}", 2),                         // CJK extension B
    ])
    func width(text: String, expected: Int) {
        #expect(DisplayWidth.of(text) == expected)
    }

    @Test("sums the widths of the grapheme clusters, whatever the string")
    func sumOfCharacters() {
        let samples = ["Tokyo 東京 🗼", "Cafe\u{301} ☕️", "👨‍👩‍👧 & 🇯🇵", "a\tb\nc", "ｶﾞ", "x\u{301}\u{200D}"]
        for sample in samples {
            #expect(DisplayWidth.of(sample) == sample.reduce(0) { $0 + DisplayWidth.of($1) }, "\(sample)")
            #expect(DisplayWidth.of(sample[...]) == DisplayWidth.of(sample))
        }
    }

    @Test("gives NFC and NFD spellings the same width")
    func normalization() {
        let pairs = [("\u{E9}", "e\u{301}"), ("\u{AC01}", "\u{1100}\u{1161}\u{11A8}"), ("\u{1E69}", "s\u{323}\u{307}")]
        for (composed, decomposed) in pairs {
            #expect(DisplayWidth.of(composed) == DisplayWidth.of(decomposed))
        }
    }

    @Test("keeps every character's width between 0 and 2")
    func bounds() {
        for value in stride(from: UInt32(0), through: 0x3_FFFF, by: 7) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let width = DisplayWidth.of(Character(scalar))
            #expect((0...2).contains(width), "U+\(String(value, radix: 16))")
        }
    }

    @Test("the printable-ASCII shortcut gives the width and the sanitized text the cluster-by-cluster path gives")
    func printableASCIIShortcut() {
        for value in UInt8(0x20)...UInt8(0x7E) {
            let character = Character(Unicode.Scalar(value))
            #expect(DisplayWidth.of(character) == 1, "\(value)")
            #expect(DisplayWidth.printableASCIIWidth(String(character)) == 1)
        }
        for value in Array(UInt8(0)..<UInt8(0x20)) + [0x7F] {
            #expect(DisplayWidth.printableASCIIWidth("a" + String(Unicode.Scalar(value))) == nil)
        }
        let seed = UInt64.random(in: 1...UInt64.max)
        print("DisplayWidthTests seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let pieces = ["a", "Z", "0", "#", "*", " ", "~", "\t", "\n", "\r", "\u{7F}", "\u{1B}", "é", "\u{301}", "日", "👍", "\u{FE0F}",
                      "\u{200B}", "\u{2028}", "1\u{FE0F}\u{20E3}", "\u{600}"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...10, using: &generator)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            }.joined()
            let clusterByCluster = text.reduce(0) { $0 + DisplayWidth.of($1) }
            #expect(DisplayWidth.of(text) == clusterByCluster, "seed \(seed): \(text.unicodeScalars.map(\.value))")
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars { scalars.append(scalar.properties.generalCategory == .control || scalar.value == 0x2028 || scalar.value == 0x2029 ? " " : scalar) }
            #expect(TextTable.sanitized(text) == String(scalars), "seed \(seed)")
        }
    }
}
