import Foundation

/// The text rules of DESIGN §4 that turn what a feed says into tag names, place names and
/// photo ids. Pure functions, shared by the importer and the queries.
public enum FlickrNames {
    /// Tag names from raw tag tokens: each string is split on runs of whitespace, empty
    /// tokens and machine tags (those with `:`) are dropped, case is folded, duplicates go
    /// (the first stays in place), and so do names in `excluding` (compared folded too).
    ///
    /// ```swift
    /// FlickrNames.tags(["Beach  SUNSET beach geo:lat=1 Sunset"], excluding: [])  // ["beach", "sunset"]
    /// ```
    public static func tags(_ raw: [String], excluding: [String] = []) -> [String] {
        let excluded = Set(excluding.map(foldTag))
        var seen = Set<String>()
        var names: [String] = []
        for text in raw {
            for token in text.split(whereSeparator: { $0.isWhitespace }) where !token.contains(":") {
                let name = foldTag(Substring(token))
                if excluded.contains(name) || !seen.insert(name).inserted { continue }
                names.append(name)
            }
        }
        return names
    }

    /// A tag name folded as the store keeps it: `lowercased()` does not depend on the locale.
    public static func foldTag<S: StringProtocol>(_ tag: S) -> String {
        tag.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// A place name as the store keeps it: trimmed, inner runs of whitespace made one space.
    ///
    /// ```swift
    /// FlickrNames.placeName("  New   York  ")  // "New York"
    /// FlickrNames.placeName(" \n ")            // nil
    /// ```
    public static func placeName(_ raw: String) -> String? {
        let words = raw.split(whereSeparator: { $0.isWhitespace })
        if words.isEmpty { return nil }
        return words.joined(separator: " ")
    }

    /// A Flickr id as a canonical decimal string: surrounding whitespace trimmed, ASCII
    /// digits only, leading zeros removed (`"0"` stays); `nil` for anything else. Never goes
    /// through a floating-point number, so a 20-digit id keeps every digit.
    ///
    /// ```swift
    /// FlickrNames.canonicalID(" 0007093101501 ")  // "7093101501"
    /// FlickrNames.canonicalID("7.09e9")           // nil
    /// ```
    public static func canonicalID(_ raw: String) -> String? {
        var text = raw
        return text.withUTF8 { bytes in
            canonicalID(UnsafeRawBufferPointer(bytes), trimming: true)
        }
    }

    /// The byte-level form used by the parsers, which avoids building a `String` for ids
    /// that are already canonical.
    static func canonicalID(_ bytes: UnsafeRawBufferPointer, trimming: Bool) -> String? {
        var start = 0
        var end = bytes.count
        if trimming {
            while start < end, isASCIIWhitespace(bytes[start]) { start += 1 }
            while end > start, isASCIIWhitespace(bytes[end - 1]) { end -= 1 }
        }
        if start == end { return nil }
        for index in start..<end where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            return nil
        }
        while start < end - 1, bytes[start] == UInt8(ascii: "0") { start += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    @inline(__always)
    static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
