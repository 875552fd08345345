import Foundation
import ObjectGraph

/// Where a feed comes from: a file, or standard input.
package enum FeedSource: Sendable, Equatable {
    case file(URL)
    case standardInput
    /// An open handle (standard input given by the caller, a pipe); `-` in displays.
    case handle(FileHandle)

    /// `-` means standard input; anything else is a path.
    package init(argument: String) {
        self = argument == "-" ? .standardInput : .file(URL(fileURLWithPath: argument))
    }

    var displayPath: String {
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
/// its photos, one for its tags and one for its places. Photos the vacation has are visited as
/// managed objects; new ones are written by one `BatchInsert` per chunk, after the chunk's
/// context has saved their new tags and places. A file that is malformed, truncated,
/// not UTF-8 or a failure response changes nothing. A bad record is skipped and reported.
///
/// ```swift
/// let importer = FeedImporter(coordinator: coordinator)
/// let report = importer.importFeeds([.file(url)], rules: DraftRules())
/// ```
package struct FeedImporter {
    package let coordinator: StoreCoordinator
    /// Photos per chunk: a save, a context reset and three lookups each. Every chunk also
    /// rewrites the tags it links (their versions move), so chunks much smaller than a feed's
    /// tag vocabulary cost more. 10,000 photos take about 20 MB: a million-photo import peaks at
    /// 88 MB (69 MB with 5,000 a chunk, but a third slower: each chunk rewrote the vocabulary's
    /// 2,000 tags; README.md, "Performance").
    package var chunkSize = 10_000
    /// The page cache (KiB) an import's transaction works with, in place of SQLite's default
    /// 2 MB: a feed's photos, links, indexes and search index rows touch pages all over the
    /// store, and a cache that keeps them saves re-reading them and spilling them to the WAL
    /// (README.md, "Performance"). SQLite allocates the cache's pages only as it needs them, so
    /// a small import costs no more; nil keeps the connection's size.
    package var pageCacheKibibytes: Int? = FeedImporter.bulkPageCacheKibibytes
    /// What an import asks for unless told otherwise (the bench's baseline uses it too).
    package static let bulkPageCacheKibibytes = 16 * 1024
    /// Whether the import's savepoint and statement journals stay in memory rather than in
    /// temporary files: each chunk's save is a savepoint, each statement on a table with
    /// (search index) triggers a statement savepoint, and their journals hold the pages they
    /// change — a few megabytes at most, written and read back for nothing when on disk.
    package var memoryJournals = true
    /// Whether each chunk's save and batch insert run in savepoints of their own. An import is
    /// all or nothing (any failure rolls the whole feed back), so by default they do not: a
    /// savepoint keeps a copy of every page it changes that existed before it, and as the store
    /// grows a chunk changes more of them (at 200,000 photos, 22 MB a chunk; at a million, the
    /// most of the import's peak memory).
    package var chunkSavepoints = false
    /// Called after each chunk with the photos read so far in the current file.
    package var progress: ((_ file: String, _ photos: Int) -> Void)?

    package init(coordinator: StoreCoordinator) {
        self.coordinator = coordinator
    }

    /// Imports each feed in order; a top-places list teaches place names to the feeds after it.
    package func importFeeds(_ sources: [FeedSource], rules: DraftRules, now: Date = Date()) -> ImportReport {
        var rules = rules
        var report = ImportReport()
        for source in sources {
            report.files.append(importFeed(source, rules: &rules, now: now))
        }
        return report
    }

    /// Imports one feed in one transaction; on failure the report carries the error and the
    /// store is as it was.
    ///
    /// Memory stays flat: each chunk is visited in a context of its own, saved and let go; what
    /// crosses chunks is small (tags and places by name, tag count changes, the key ranges of
    /// the photos added, and the outcomes of photos the vacation already had).
    package func importFeed(_ source: FeedSource, rules: inout DraftRules, now: Date = Date()) -> FileImportReport {
        var report = FileImportReport(path: source.displayPath)
        var learned: [FlickrPlace] = []
        do {
            try coordinator.performTransaction(pageCacheKibibytes: pageCacheKibibytes, memoryJournals: memoryJournals,
                                               recoverableSaves: chunkSavepoints) {
                try importInsideTransaction(source, rules: rules, now: now, into: &report, learning: &learned)
            }
        } catch {
            report.failure = Self.failure(error)
            report.added = 0
            report.updated = 0
            report.unchanged = 0
            return report
        }
        for place in learned { rules.learn(place) }
        return report
    }

    /// Imports several feeds in one transaction: all of them, or nothing when any one fails
    /// (`vacation fetch` imports its pages so). Feeds are read in order, and a top-places list
    /// teaches place names to the feeds after it, as ``importFeeds(_:rules:now:)`` does; each
    /// feed's counts are its own, so the totals are those that importing the same feeds one
    /// by one would give.
    ///
    /// ```swift
    /// let report = importer.importFeedsTogether([.file(page1), .file(page2)], rules: DraftRules())
    /// if report.hasFailures { /* the store is as it was */ }
    /// ```
    /// - Returns: one report per feed, in order. When a feed fails, its report carries the
    ///   failure, the feeds after it are not read (and not listed), and every count is zero:
    ///   nothing of any feed stayed.
    package func importFeedsTogether(_ sources: [FeedSource], rules: DraftRules, now: Date = Date()) -> ImportReport {
        var report = ImportReport()
        var rules = rules
        do {
            try coordinator.performTransaction(pageCacheKibibytes: pageCacheKibibytes, memoryJournals: memoryJournals,
                                               recoverableSaves: chunkSavepoints) {
                for source in sources {
                    report.files.append(FileImportReport(path: source.displayPath))
                    var learned: [FlickrPlace] = []
                    try importInsideTransaction(source, rules: rules, now: now,
                                                into: &report.files[report.files.count - 1], learning: &learned)
                    for place in learned { rules.learn(place) }
                }
            }
        } catch {
            for index in report.files.indices {
                report.files[index].added = 0
                report.files[index].updated = 0
                report.files[index].unchanged = 0
            }
            if report.files.isEmpty { report.files.append(FileImportReport(path: "-")) }
            report.files[report.files.count - 1].failure = Self.failure(error)
        }
        return report
    }

    private static func failure(_ error: Error) -> ImportFailure {
        if let error = error as? FeedError { return .feed(error) }
        return .store("\(error)")
    }

    /// Reads one feed and visits its photos, chunk by chunk, inside the caller's transaction;
    /// the counts go into `report`, the places of a top-places list into `learned`.
    private func importInsideTransaction(_ source: FeedSource, rules: DraftRules, now: Date,
                                         into report: inout FileImportReport, learning learned: inout [FlickrPlace]) throws {
        var tally = OutcomeTally()
        let carried = BatchVisitState()
        var chunk: [PhotoDraft] = []
        chunk.reserveCapacity(chunkSize)
        var photosRead = 0
        let path = report.path
        func flush(finishing: Bool) throws {
            guard !chunk.isEmpty || (finishing && !carried.countChanges.isEmpty) else { return }
            let context = ObjectContext(coordinator: coordinator, name: "import")
            let editor = VacationEditor(context: context, now: now)
            // New photos skip the context: one batch insert after the save writes them.
            let visited = try editor.visitPhotos(chunk, carrying: carried, deferringNew: true)
            if finishing { try editor.finishVisits(carried) }
            try context.save()
            var newKeys = try editor.insertDeferred(visited.deferred).makeIterator()
            tally.add(visited.outcomes.map { outcome in
                (outcome.outcome, outcome.photo?.objectID.primaryKey ?? outcome.objectID?.primaryKey ?? newKeys.next() ?? 0)
            })
            context.reset()
            photosRead += chunk.count
            chunk.removeAll(keepingCapacity: true)
            progress?(path, photosRead)
        }
        var places: [FlickrPlace] = []
        let summary = try readFeed(source, photo: { photo in
            chunk.append(rules.draft(from: photo))
            if chunk.count >= chunkSize { try flush(finishing: false) }
        }, place: { place in
            places.append(place)
        })
        try flush(finishing: true)
        learned += places
        report.problems = summary.problems
        report.content = summary.content
        report.added = tally.added
        report.updated = tally.updated
        report.unchanged = tally.unchanged
    }

    /// Counts each photo of a feed once, however many times the feed lists it: added stays
    /// added, a change wins over no change. Photos added by this import are known by their keys
    /// (each save hands out a range of new keys); photos the vacation already had are remembered
    /// by key in two bit sets (`KeySet`), an eighth of a byte a key rather than a dictionary
    /// entry a photo: a reimport of a million photos keeps 250 KB, not tens of megabytes.
    struct OutcomeTally {
        private(set) var added = 0
        private var addedKeys: [ClosedRange<Int64>] = []
        private var updatedKeys = KeySet()
        /// Seen unchanged, and not (yet) seen changed.
        private var unchangedKeys = KeySet()

        var updated: Int { updatedKeys.count }
        var unchanged: Int { unchangedKeys.count }

        /// Takes one saved chunk's outcomes, with the photos' (permanent) keys.
        mutating func add(_ visited: [(outcome: VisitOutcome, key: Int64)]) {
            var newKeys: ClosedRange<Int64>?
            for (outcome, key) in visited where outcome == .added {
                newKeys = newKeys.map { min($0.lowerBound, key)...max($0.upperBound, key) } ?? key...key
                added += 1
            }
            if let newKeys {
                if let last = addedKeys.last, last.upperBound + 1 == newKeys.lowerBound {
                    addedKeys[addedKeys.count - 1] = last.lowerBound...newKeys.upperBound
                } else {
                    addedKeys.append(newKeys)
                }
            }
            for (outcome, key) in visited where outcome != .added {
                if addedKeys.contains(where: { $0.contains(key) }) { continue }
                if outcome == .updated {
                    if updatedKeys.insert(key) { unchangedKeys.remove(key) }
                } else if !updatedKeys.contains(key) {
                    unchangedKeys.insert(key)
                }
            }
        }
    }

    /// A set of keys as bits, in pages of 4,096 keys made as keys arrive; keys come
    /// in runs (a chunk's photos), so the page of the last key is looked at first.
    struct KeySet {
        private static let pageShift = 12
        private static let wordsPerPage = (1 << pageShift) / 64
        private var pages: [Int64: [UInt64]] = [:]
        /// The page in use, out of `pages` while it is.
        private var currentNumber: Int64?
        private var currentWords: [UInt64] = []
        private(set) var count = 0

        private mutating func withPage<T>(of key: Int64, creating: Bool, _ body: (inout [UInt64], Int, UInt64) -> T) -> T? {
            let number = key >> Self.pageShift
            if currentNumber != number {
                guard let words = pages.removeValue(forKey: number) ?? (creating ? Array(repeating: 0, count: Self.wordsPerPage) : nil) else {
                    return nil
                }
                if let current = currentNumber { pages[current] = currentWords }
                currentNumber = number
                currentWords = words
            }
            let offset = Int(key & Int64((1 << Self.pageShift) - 1))
            return body(&currentWords, offset >> 6, UInt64(1) << UInt64(offset & 63))
        }

        /// Adds `key`; true when it was not there.
        @discardableResult
        mutating func insert(_ key: Int64) -> Bool {
            let inserted = withPage(of: key, creating: true) { words, word, bit in
                defer { words[word] |= bit }
                return words[word] & bit == 0
            } ?? false
            if inserted { count += 1 }
            return inserted
        }

        mutating func remove(_ key: Int64) {
            let removed = withPage(of: key, creating: false) { words, word, bit in
                defer { words[word] &= ~bit }
                return words[word] & bit != 0
            } ?? false
            if removed { count -= 1 }
        }

        mutating func contains(_ key: Int64) -> Bool {
            withPage(of: key, creating: false) { words, word, bit in words[word] & bit != 0 } ?? false
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
    /// - Throws: ``FeedError`` when the feed cannot be read, or holds no top-places list (photos
    ///   given for places are refused rather than read as no places).
    package static func learnPlaces(from source: FeedSource, into rules: inout DraftRules) throws {
        var places: [FlickrPlace] = []
        let summary: FeedSummary
        switch source {
        case .file(let url):
            summary = try FlickrFeedReader.read(contentsOf: url, photo: { _ in }, place: { places.append($0) })
        case .standardInput:
            summary = try FlickrFeedReader.read(fileHandle: FileHandle.standardInput, photo: { _ in }, place: { places.append($0) })
        case .handle(let handle):
            summary = try FlickrFeedReader.read(fileHandle: handle, photo: { _ in }, place: { places.append($0) })
        }
        guard summary.content == .places else {
            let held = summary.content == .photos ? "a photo list" : "a photos.getInfo photo"
            throw FeedError(.unclaimed, format: summary.format, "\(held), not the top-places list --places takes")
        }
        for place in places { rules.learn(place) }
    }

    /// The drafts of the photos with these ids in a feed (for `visit ID... --feed FEED`), in
    /// the order asked; ids the feed does not have are left out.
    package static func drafts(ids: [String], in source: FeedSource, rules: DraftRules) throws -> [PhotoDraft] {
        let wanted = Set(ids)
        var found: [String: PhotoDraft] = [:]
        let collect: (FlickrPhoto) -> Void = { photo in
            guard wanted.contains(photo.id) else { return }
            let draft = rules.draft(from: photo)
            found[photo.id] = found[photo.id].map { $0.followed(by: draft) } ?? draft
        }
        switch source {
        case .file(let url): try FlickrFeedReader.read(contentsOf: url, photo: collect)
        case .standardInput: try FlickrFeedReader.read(fileHandle: FileHandle.standardInput, photo: collect)
        case .handle(let handle): try FlickrFeedReader.read(fileHandle: handle, photo: collect)
        }
        return ids.compactMap { found[$0] }
    }
}
