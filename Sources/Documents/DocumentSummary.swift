import Foundation

/// What a library listing tells about one document, read without opening it for writing.
///
/// ```swift
/// for summary in try library.documents(counting: ["Photo"]) {
///     print(summary.name, summary.modified, summary.bytes, summary.counts["Photo"] ?? 0)
/// }
/// ```
public struct DocumentSummary: Sendable, Equatable {
    /// The document's name, as commands take it.
    public var name: String
    /// The document's bundle folder.
    public var url: URL
    /// When the document was created, from its metadata.
    public var created: Date
    /// The latest of the metadata's `modified` and the store files' modification times (a
    /// writer at work updates the files before the metadata).
    public var modified: Date
    /// Bytes taken by the whole bundle.
    public var bytes: Int64
    /// Rows per entity name, for the entities the caller asked about.
    public var counts: [String: Int]

    /// A summary with these values.
    public init(name: String, url: URL, created: Date, modified: Date, bytes: Int64, counts: [String: Int]) {
        self.name = name
        self.url = url
        self.created = created
        self.modified = modified
        self.bytes = bytes
        self.counts = counts
    }
}
