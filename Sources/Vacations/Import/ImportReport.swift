import Foundation

/// What importing one feed file did.
public struct FileImportReport: Sendable, Equatable {
    /// The path as given (`-` for standard input).
    public var path: String
    public var added = 0
    public var updated = 0
    public var unchanged = 0
    /// Records skipped, each with its id (when it had one) and the reason.
    public var problems: [FeedProblem] = []
    /// Why the whole file was refused, when it was; nothing of it was imported then.
    public var failure: ImportFailure?
    /// What the file held: photos, one photo, or a top-places list.
    public var content: FeedContent?

    public var skipped: Int { problems.count }

    public init(path: String) { self.path = path }
}

/// What an import did, file by file and in total.
public struct ImportReport: Sendable, Equatable {
    public var files: [FileImportReport] = []

    public init(files: [FileImportReport] = []) { self.files = files }

    public var added: Int { files.reduce(0) { $0 + $1.added } }
    public var updated: Int { files.reduce(0) { $0 + $1.updated } }
    public var unchanged: Int { files.reduce(0) { $0 + $1.unchanged } }
    public var skipped: Int { files.reduce(0) { $0 + $1.skipped } }
    /// True when a file was refused as a whole.
    public var hasFailures: Bool { files.contains { $0.failure != nil } }
}

/// Why a feed file was not imported.
public enum ImportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The feed itself: malformed, truncated, not UTF-8, a Flickr failure response, a kind of
    /// response not imported (`places.find`, …), unreadable.
    case feed(FeedError)
    /// The vacation's store refused the change.
    case store(String)

    public var description: String {
        switch self {
        case .feed(let error): error.description
        case .store(let message): message
        }
    }
}
