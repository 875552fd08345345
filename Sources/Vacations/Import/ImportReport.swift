import Foundation

/// What importing one feed file did.
package struct FileImportReport: Sendable, Equatable {
    /// The path as given (`-` for standard input).
    package var path: String
    package var added = 0
    package var updated = 0
    package var unchanged = 0
    /// Records skipped, each with its id (when it had one) and the reason.
    package var problems: [FeedProblem] = []
    /// Why the whole file was refused, when it was; nothing of it was imported then.
    package var failure: ImportFailure?
    /// What the file held: photos, one photo, or a top-places list.
    package var content: FeedContent?

    package var skipped: Int { problems.count }

    package init(path: String) { self.path = path }
}

/// What an import did, file by file and in total.
package struct ImportReport: Sendable, Equatable {
    package var files: [FileImportReport] = []

    package init(files: [FileImportReport] = []) { self.files = files }

    package var added: Int { files.reduce(0) { $0 + $1.added } }
    package var updated: Int { files.reduce(0) { $0 + $1.updated } }
    package var unchanged: Int { files.reduce(0) { $0 + $1.unchanged } }
    package var skipped: Int { files.reduce(0) { $0 + $1.skipped } }
    /// True when a file was refused as a whole.
    package var hasFailures: Bool { files.contains { $0.failure != nil } }
}

/// Why a feed file was not imported.
package enum ImportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The feed itself: malformed, truncated, not UTF-8, a Flickr failure response, a kind of
    /// response not imported (`places.find`, …), unreadable.
    case feed(FeedError)
    /// The vacation's store refused the change.
    case store(String)

    package var description: String {
        switch self {
        case .feed(let error): error.description
        case .store(let message): message
        }
    }
}
