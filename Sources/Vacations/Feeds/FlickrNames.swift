import Foundation

/// The text rules of ARCHITECTURE.md §3 that turn what a feed says into tag names, place names and
/// photo ids. Pure functions, shared by the importer and the queries.
package enum FlickrNames {
    /// Tag names from raw tag tokens: each string is split on runs of whitespace, empty
    /// tokens and machine tags (those with `:`) are dropped, case is folded, duplicates go
    /// (the first stays in place), and so do names in `excluding` (compared folded too).
    ///
    /// ```swift
    /// FlickrNames.tags(["Beach  SUNSET beach geo:lat=1 Sunset"], excluding: [])  // ["beach", "sunset"]
    /// ```
    package static func tags(_ raw: [String], excluding: [String] = []) -> [String] {
        let excluded = Set(excluding.map(foldTag))
        var seen = Set<String>()
        var names: [String] = []
        func add(_ name: String) {
            if excluded.contains(name) || !seen.insert(name).inserted { return }
            names.append(name)
        }
        for text in raw {
            if isASCII(text) {
                // Most feeds: bytes, without Character and Foundation on the way (the same answer).
                asciiTokens(text, add)
                continue
            }
            for token in text.split(whereSeparator: { $0.isWhitespace }) where !token.contains(":") {
                add(foldTag(Substring(token)))
            }
        }
        return names
    }

    /// A tag name folded as the store keeps it: `lowercased()` does not depend on the locale.
    package static func foldTag<S: StringProtocol>(_ tag: S) -> String {
        tag.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// `text` in Unicode NFC, as names are stored. ASCII text is NFC already.
    package static func composed(_ text: String) -> String {
        isASCII(text) ? text : text.precomposedStringWithCanonicalMapping
    }

    static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// ASCII's whitespace, which is what `Character.isWhitespace` and `.whitespacesAndNewlines`
    /// find in ASCII text: tab, line feed, vertical tab, form feed, carriage return, space.
    static func isWhitespaceByte(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// `tags` for ASCII text: tokens between whitespace, machine tags dropped, A–Z lowered.
    private static func asciiTokens(_ text: String, _ body: (String) -> Void) {
        var token: [UInt8] = []
        var isMachineTag = false
        func finish() {
            if !token.isEmpty && !isMachineTag { body(String(decoding: token, as: UTF8.self)) }
            token.removeAll(keepingCapacity: true)
            isMachineTag = false
        }
        for byte in text.utf8 {
            if isWhitespaceByte(byte) {
                finish()
            } else {
                if byte == UInt8(ascii: ":") { isMachineTag = true }
                token.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte)
            }
        }
        finish()
    }

    /// A place name as the store keeps it: trimmed, inner runs of whitespace made one space.
    ///
    /// ```swift
    /// FlickrNames.placeName("  New   York  ")  // "New York"
    /// FlickrNames.placeName(" \n ")            // nil
    /// ```
    package static func placeName(_ raw: String) -> String? {
        if isASCII(raw) {
            var name: [UInt8] = []
            name.reserveCapacity(raw.utf8.count)
            var pendingSpace = false
            for byte in raw.utf8 {
                if isWhitespaceByte(byte) {
                    pendingSpace = !name.isEmpty
                } else {
                    if pendingSpace { name.append(0x20) }
                    pendingSpace = false
                    name.append(byte)
                }
            }
            return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        }
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
    package static func canonicalID(_ raw: String) -> String? {
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
