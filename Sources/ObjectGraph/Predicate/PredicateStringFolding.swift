import Foundation

/// The string folding behind `[c]` and `[d]`, shared by the in-memory evaluator and the SQL
/// back end (which registers exactly this function in SQLite), so both agree byte for byte.
///
/// ```swift
/// PredicateStringFolding.fold("Crème", caseInsensitive: true, diacriticInsensitive: true)   // "creme"
/// ```
package enum PredicateStringFolding {
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
    /// ASCII strings take a fast path with the same result, and so do the steps that cannot
    /// change a string: no scalar below U+00C0 has a canonical decomposition, and a string of
    /// scalars below U+0300 (no combining marks) is already NFC, checked exhaustively for every
    /// scalar and every pair of them. Both back ends fold every row with this function, so
    /// these skips matter: Foundation's normalization costs about a microsecond per call.
    package static func fold(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        guard caseInsensitive || diacriticInsensitive else { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            return caseInsensitive ? asciiLowercased(string) : string
        }
        var folded = caseInsensitive ? string.lowercased() : string
        // UTF-8 lead bytes below 0xC3 encode scalars below U+00C0; below 0xCC, below U+0300.
        if diacriticInsensitive && !folded.utf8.allSatisfy({ $0 < 0xC3 }) {
            let decomposed = folded.decomposedStringWithCanonicalMapping
            var stripped: [UInt8] = []
            stripped.reserveCapacity(decomposed.utf8.count)
            // No scalar below U+0300 is a nonspacing mark; only the others need the lookup.
            for scalar in decomposed.unicodeScalars
            where scalar.value < 0x300 || scalar.properties.generalCategory != .nonspacingMark {
                if let encoded = UTF8.encode(scalar) { stripped.append(contentsOf: encoded) }
            }
            folded = String(decoding: stripped, as: UTF8.self)
        }
        if folded.utf8.allSatisfy({ $0 < 0xCC }) { return folded }
        return folded.precomposedStringWithCanonicalMapping
    }

    /// Folds with the options of a comparison.
    package static func fold(_ string: String, options: StringComparisonOptions) -> String {
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
