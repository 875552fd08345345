import Foundation
import ObjectGraph

/// Where a feed comes from: a file, or standard input.
public enum FeedSource: Sendable, Equatable {
    case file(URL)
    case standardInput
    /// An open handle (standard input given by the caller, a pipe); `-` in displays.
    case handle(FileHandle)

    /// `-` means standard input; anything else is a path.
    public init(argument: String) {
        self = argument == "-" ? .standardInput : .file(URL(fileURLWithPath: argument))
    }

    public var displayPath: String {
        switch self {
        case .file(let url): url.path
        case .standardInput, .handle: "-"
        }
    }
}

/// Imports Flickr feeds into a vacation's store: every photo of a feed is visited, one feed
/// file is one SQLite transaction, and memory stays flat however large the feed.
///
/// Photos are read as a stream and written in chunks; each chunk's lookups are one query for
/// its photos, one for its tags and one for its places. A file that is malformed, truncated,
/// not UTF-8 or a failure response changes nothing. A bad record is skipped and reported.
///
/// ```swift
/// let importer = FeedImporter(coordinator: coordinator)
/// let report = importer.importFeeds([.file(url)], rules: DraftRules())
/// ```
public struct FeedImporter {
    public let coordinator: StoreCoordinator
    /// Photos per chunk: a save, a context reset and three lookups each.
    public var chunkSize = 2_000
    /// Called after each chunk with the photos read so far in the current file.
    public var progress: ((_ file: String, _ photos: Int) -> Void)?

    public init(coordinator: StoreCoordinator) {
        self.coordinator = coordinator
    }

    /// Imports each feed in order; a top-places list teaches place names to the feeds after it.
    public func importFeeds(_ sources: [FeedSource], rules: DraftRules, now: Date = Date()) -> ImportReport {
        var rules = rules
        var report = ImportReport()
        for source in sources {
            report.files.append(importFeed(source, rules: &rules, now: now))
        }
        return report
    }

    /// Imports one feed in one transaction; on failure the report carries the error and the
    /// store is as it was.
    public func importFeed(_ source: FeedSource, rules: inout DraftRules, now: Date = Date()) -> FileImportReport {
        var report = FileImportReport(path: source.displayPath)
        let context = ObjectContext(coordinator: coordinator, name: "import")
        var outcomes: [String: VisitOutcome] = [:]
        var learned: [FlickrPlace] = []
        do {
            try coordinator.performTransaction {
                var chunk: [PhotoDraft] = []
                var photosRead = 0
                let currentRules = rules
                func flush() throws {
                    guard !chunk.isEmpty else { return }
                    let editor = VacationEditor(context: context, now: now)
                    for (id, outcome) in try editor.visit(chunk) {
                        outcomes[id] = Self.combine(outcomes[id], outcome)
                    }
                    try context.save()
                    context.reset()
                    photosRead += chunk.count
                    chunk.removeAll(keepingCapacity: true)
                    progress?(report.path, photosRead)
                }
                let summary = try readFeed(source, photo: { photo in
                    chunk.append(currentRules.draft(from: photo))
                    if chunk.count >= chunkSize { try flush() }
                }, place: { place in
                    learned.append(place)
                })
                try flush()
                report.problems = summary.problems
                report.content = summary.content
            }
        } catch let error as FeedError {
            context.reset()
            report.failure = .feed(error)
            return report
        } catch {
            context.reset()
            report.failure = .store("\(error)")
            return report
        }
        for place in learned { rules.learn(place) }
        for outcome in outcomes.values {
            switch outcome {
            case .added: report.added += 1
            case .updated: report.updated += 1
            case .unchanged: report.unchanged += 1
            }
        }
        return report
    }

    /// A photo seen twice in one feed is counted once: added stays added, a change wins.
    private static func combine(_ earlier: VisitOutcome?, _ later: VisitOutcome) -> VisitOutcome {
        switch (earlier, later) {
        case (nil, _): later
        case (.added?, _): .added
        case (.updated?, _), (_, .updated): .updated
        default: .unchanged
        }
    }

    private func readFeed(_ source: FeedSource, photo: (FlickrPhoto) throws -> Void,
                      place: (FlickrPlace) throws -> Void) throws -> FeedSummary {
        switch source {
        case .file(let url):
            return try FlickrFeedReader.read(contentsOf: url, photo: photo, place: place)
        case .standardInput:
            return try FlickrFeedReader.read(fileHandle: FileHandle.standardInput, photo: photo, place: place)
        case .handle(let handle):
            return try FlickrFeedReader.read(fileHandle: handle, photo: photo, place: place)
        }
    }

    /// Reads a top-places list (`--places FILE`) into the rules.
    public static func learnPlaces(from source: FeedSource, into rules: inout DraftRules) throws {
        var places: [FlickrPlace] = []
        switch source {
        case .file(let url):
            try FlickrFeedReader.read(contentsOf: url, photo: { _ in }, place: { places.append($0) })
        case .standardInput:
            try FlickrFeedReader.read(fileHandle: FileHandle.standardInput, photo: { _ in }, place: { places.append($0) })
        case .handle(let handle):
            try FlickrFeedReader.read(fileHandle: handle, photo: { _ in }, place: { places.append($0) })
        }
        for place in places { rules.learn(place) }
    }

    /// The drafts of the photos with these ids in a feed (for `visit ID... --feed FEED`), in
    /// the order asked; ids the feed does not have are left out.
    public static func drafts(ids: [String], in source: FeedSource, rules: DraftRules) throws -> [PhotoDraft] {
        let wanted = Set(ids)
        var found: [String: PhotoDraft] = [:]
        let collect: (FlickrPhoto) -> Void = { photo in
            if wanted.contains(photo.id) { found[photo.id] = rules.draft(from: photo) }
        }
        switch source {
        case .file(let url): try FlickrFeedReader.read(contentsOf: url, photo: collect)
        case .standardInput: try FlickrFeedReader.read(fileHandle: FileHandle.standardInput, photo: collect)
        case .handle(let handle): try FlickrFeedReader.read(fileHandle: handle, photo: collect)
        }
        return ids.compactMap { found[$0] }
    }
}
