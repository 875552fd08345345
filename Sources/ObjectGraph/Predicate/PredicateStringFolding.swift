import Foundation

/// The string folding behind `[c]` and `[d]`, shared by the in-memory evaluator and the SQL
/// back end (which registers exactly this function in SQLite), so both agree byte for byte.
///
/// ```swift
/// PredicateStringFolding.fold("Crème", caseInsensitive: true, diacriticInsensitive: true)   // "creme"
/// ```
public enum PredicateStringFolding {
    /// Folds `string` for comparison.
    ///
    /// - `caseInsensitive`: `lowercased()`, Swift's locale-independent Unicode lowercasing
    ///   (`"İ"` becomes `"i̇"`, `"ẞ"` becomes `"ß"`).
    /// - `diacriticInsensitive`: canonical decomposition (NFD), then every nonspacing mark
    ///   (general category Mn: U+0300–U+036F and the other combining accents, kana voicing
    ///   marks, and also variation selectors such as U+FE0F) is dropped.
    /// - With either option the result is recomposed (NFC), so canonically equivalent
    ///   strings (`"é"` and `"e\u{301}"`) fold to the same bytes. With neither, the string is
    ///   returned unchanged: plain comparisons are by bytes.
    ///
    /// ASCII strings take a fast path with the same result.
    public static func fold(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        guard caseInsensitive || diacriticInsensitive else { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            return caseInsensitive ? asciiLowercased(string) : string
        }
        var folded = caseInsensitive ? string.lowercased() : string
        if diacriticInsensitive {
            let decomposed = folded.decomposedStringWithCanonicalMapping
            var stripped = String.UnicodeScalarView()
            for scalar in decomposed.unicodeScalars where scalar.properties.generalCategory != .nonspacingMark {
                stripped.append(scalar)
            }
            folded = String(stripped)
        }
        return folded.precomposedStringWithCanonicalMapping
    }

    /// Folds with the options of a comparison.
    public static func fold(_ string: String, options: StringComparisonOptions) -> String {
        fold(string, caseInsensitive: options.contains(.caseInsensitive),
             diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    private static func asciiLowercased(_ string: String) -> String {
        var bytes = Array(string.utf8)
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
            bytes[index] += 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
