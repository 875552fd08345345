import Foundation

/// How a fetch orders its results: a key path (through to-one relationships) and a direction.
///
/// ```swift
/// let byDate = ObjectSortDescriptor("dateTaken", ascending: false)
/// let byPlace = ObjectSortDescriptor("place.name", comparison: .caseInsensitive)
/// ```
/// The store sorts in SQL; objects with unsaved changes are sorted in memory with the same
/// order, so both agree (NULLs first when ascending, strings by UTF-8 bytes unless told otherwise).
public struct ObjectSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// How strings compare.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// By UTF-8 bytes, as SQLite's BINARY collation.
        case binary
        /// Folded with `[c]`'s case folding first.
        case caseInsensitive
        /// Case- and diacritic-insensitive, digits compared as numbers (Finder-like order).
        case localized
    }

    package var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool
    package var comparison: Comparison

    /// Sorts by the key path `keyPath` (through to-ones), comparing strings by `comparison`.
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// The key path and the order, with the comparison when it is not binary: `name ascending (caseInsensitive)`.
    public var description: String {
        "\(keyPath) \(ascending ? "ascending" : "descending")\(comparison == .binary ? "" : " (\(comparison.rawValue))")"
    }
}
