import Foundation

/// A validated document name: what the user typed, NFC-normalised, safe to use as one path
/// component.
///
/// The rules (ARCHITECTURE.md §3): a name is Unicode text kept as typed, normalised to NFC so that "Café"
/// typed either way is one name; it may not be empty, start with `.`, contain `/` or NUL, or
/// take more than 200 bytes in UTF-8.
///
/// ```swift
/// let name = try DocumentName("Cafe\u{301}")   // NFD input
/// name.rawValue == "Caf\u{E9}"                   // stored as NFC
/// ```
public struct DocumentName: Sendable, Hashable, CustomStringConvertible {
    /// The most bytes a name may take in UTF-8 (after NFC normalisation).
    static let maximumUTF8Length = 200

    /// The name, NFC-normalised.
    public let rawValue: String

    /// Validates and normalises `text`.
    ///
    /// - Throws: `DocumentError` of kind `invalidName`, with the reason.
    public init(_ text: String, subject: (String) -> DocumentError.Subject = { .document($0) }) throws(DocumentError) {
        let normalized = Self.composed(text)
        if let reason = Self.problem(with: normalized) {
            throw DocumentError(.invalidName(reason: reason), subject(text))
        }
        rawValue = normalized
    }

    /// The name as shown and stored: NFC-normalised text.
    public var description: String { rawValue }

    /// `text` in Unicode NFC. ASCII text is NFC already: it skips Foundation's normalisation,
    /// whose first use in a process costs about half a million instructions (bridging to
    /// `NSString` and the runtime's conformance lookups it sets off).
    static func composed<Text: StringProtocol>(_ text: Text) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? String(text) : text.precomposedStringWithCanonicalMapping
    }

    /// Why `name` (already NFC) is refused, or nil when it is acceptable.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "a name cannot be empty" }
        if name.hasPrefix(".") { return "a name cannot start with \".\"" }
        if name.utf8.contains(UInt8(ascii: "/")) { return "a name cannot contain \"/\"" }
        if name.utf8.contains(0) { return "a name cannot contain NUL" }
        let length = name.utf8.count
        if length > maximumUTF8Length {
            return "a name can take at most \(maximumUTF8Length) bytes in UTF-8; this one takes \(length)"
        }
        return nil
    }
}
