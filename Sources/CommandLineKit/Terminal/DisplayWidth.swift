/// The number of terminal columns text occupies.
///
/// Counted per grapheme cluster (what a reader sees as one character):
/// - East Asian Wide and Fullwidth characters (CJK ideographs, Hangul, kana, fullwidth
///   forms) take 2 columns;
/// - emoji shown as pictures take 2: emoji presentation characters, anything followed by
///   the emoji variation selector U+FE0F, ZWJ sequences and flags, each counted once;
/// - combining marks, zero-width joiners, variation selectors and other format characters
///   add nothing to the character they follow;
/// - control characters take 0;
/// - everything else takes 1.
///
///     DisplayWidth.of("日本語")     // 6
///     DisplayWidth.of("Cafe\u{301}")  // 4
///     DisplayWidth.of("👨‍👩‍👧")         // 2
package enum DisplayWidth {
    package static func of(_ text: String) -> Int {
        if let width = printableASCIIWidth(text) { return width }
        var width = 0
        for character in text {
            width += of(character)
        }
        return width
    }

    package static func of(_ text: Substring) -> Int {
        var width = 0
        for character in text {
            width += of(character)
        }
        return width
    }

    /// The width of text that is all printable ASCII (U+0020–U+007E), one column a byte, read
    /// from its UTF-8 without making a `Character`; nil for any other text. Tables are mostly
    /// such text, and cluster by cluster a `tags` table of 2,000 rows took 29 M instructions.
    package static func printableASCIIWidth(_ text: String) -> Int? {
        var count = 0
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F else { return nil }
            count += 1
        }
        return count
    }

    /// The width of one grapheme cluster: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        // The base is the first scalar that draws something; a cluster of only marks,
        // joiners or controls has none.
        guard let base = scalars.first(where: { !isZeroWidth($0) }) else { return 0 }
        let hasEmojiSelector = scalars.contains { $0.value == 0xFE0F }
        let hasTextSelector = scalars.contains { $0.value == 0xFE0E }
        let properties = base.properties
        if hasEmojiSelector && properties.isEmoji { return 2 }
        if isRegionalIndicator(base) { return 2 }
        if properties.isEmojiPresentation && !hasTextSelector { return 2 }
        if isEastAsianWide(base.value) && !(hasTextSelector && properties.isEmoji) { return 2 }
        return 1
    }

    /// Scalars that add no column to the cluster they are part of.
    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1160...0x11FF, 0xD7B0...0xD7FF:
            // Hangul medial vowels and final consonants join the initial before them.
            return true
        default:
            break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control, .lineSeparator, .paragraphSeparator:
            return true
        default:
            return scalar.properties.isVariationSelector
        }
    }

    static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    /// East Asian Width W or F (UAX #11), from the Unicode 14 data, plus the unassigned
    /// CJK ranges whose default width is W.
    static func isEastAsianWide(_ value: UInt32) -> Bool {
        if value < 0x1100 { return false }
        // Binary search over sorted, disjoint ranges.
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x303E,
        0x3041...0x3247, 0x3250...0x4DBF, 0x4E00...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x18D08, 0x1AFF0...0x1B2FB,
        0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F202, 0x1F210...0x1F23B,
        0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C,
        0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E,
        0x1F440...0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A...0x1F57A,
        0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2,
        0x1F6D5...0x1F6D7, 0x1F6DD...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0,
        0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FA74, 0x1FA78...0x1FA7C, 0x1FA80...0x1FA86,
        0x1FA90...0x1FAAC, 0x1FAB0...0x1FABA, 0x1FAC0...0x1FAC5, 0x1FAD0...0x1FAD9, 0x1FAE0...0x1FAE7, 0x1FAF0...0x1FAF6,
        0x20000...0x3FFFD,
    ]
}
