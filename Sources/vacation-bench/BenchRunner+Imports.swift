import Documents
import Foundation
import ObjectGraph
import TestSupport
import Vacations

/// The import figures. Both sides are timed from opening an empty store that exists on disk to
/// closing it: ours opens the vacation (lock, metadata, store), imports and closes the document;
/// the baseline and the floor open the SQLite file, set their pragmas, prepare their
/// statements, import and close. Closing is where SQLite checkpoints the WAL into the store, so
/// the bench checks that no `-wal` file is left once a side's time is taken.
extension BenchRunner {
    /// Imports `feed` into a fresh vacation, a fresh baseline store and (when recording) a fresh
    /// store for the floor, once per side and round; keeps the last vacation and baseline store
    /// for the figures that follow.
    func measureImport(figure: String, feed: URL, recording: Bool = true) throws {
        let sides: [Side] = recording ? [.ours, .baseline, .limit] : [.ours, .baseline]
        var reports: [Side: ImportCounts] = [:]
        let limitSettings = try options.limitSettings ?? LimitImporter.Settings.best(forFeedBytes: Self.size(of: feed))
        let times = try alternate(figure, runs: recording ? options.runs : 0, sides: sides, { side, round in
            progress("\(figure) round \(round) of \(recording ? options.runs : 0) (\(round == 0 ? "warm-up, " : "")\(side.rawValue))")
            let store = try emptyStore(for: side, figure: figure, round: round)
            var counts = ImportCounts()
            let time: Double
            switch side {
            case .ours:
                time = try timed { counts = try importIntoVacation("\(figure) \(round)", feeds: [feed]) }
            case .baseline:
                time = try timed { counts = try BaselineImporter.importFeed(feed, intoStoreAt: store, now: Self.visitTime,
                                                                                 pageCacheKibibytes: options.importCacheKibibytes,
                                                                                 memoryJournals: options.importMemoryJournals) }
            case .limit:
                time = try timed {
                    counts.added = try LimitImporter.importFeed(feed, intoStoreAt: store, now: Self.visitTime, settings: limitSettings)
                }
            }
            try Self.requireClosed(store, side: side, figure: figure)
            reports[side] = counts
            return time
        }, afterRound: { round in
            let ours = try storePath(ofVacation: "\(figure) \(round)")
            for side in sides where side != .ours {
                guard reports[side] == reports[.ours], reports[side]?.added == options.photos else {
                    throw BenchError("\(figure): ours reported \(reports[.ours] ?? ImportCounts()), the \(side.rawValue) \(reports[side] ?? ImportCounts())")
                }
                try StoreFingerprint.requireEqual(ours, storeFile(for: side, figure: figure, round: round), figure: figure,
                                                  otherSide: side.rawValue)
            }
            if round > 0 {
                try library.delete("\(figure) \(round - 1)")
                for side in sides where side != .ours { Self.removeStore(storeFile(for: side, figure: figure, round: round - 1)) }
            }
            vacationName = "\(figure) \(round)"
            baselineStore = storeFile(for: .baseline, figure: figure, round: round)
        })
        if recording {
            progress("\(figure): limit settings \(limitSettings)")
            record(figure, times, goal: "≤ 1.15×, ≤ 2.0× limit") { ($0.ratio <= 1.15) && ($0.limitRatio ?? .infinity) <= 2.0 }
        }
    }

    /// Imports the XML feed again into the vacation that has it (every photo unchanged), and
    /// into the baseline's store.
    func measureReimport() throws {
        var reports: [Side: ImportCounts] = [:]
        let times = try alternate("reimport", runs: options.runs, { side, round in
            progress("reimport round \(round) of \(options.runs) (\(round == 0 ? "warm-up, " : "")\(side.rawValue))")
            var counts = ImportCounts()
            let time: Double
            switch side {
            case .ours:
                time = try timed { counts = try importIntoVacation(vacationName, feeds: [xmlFeed]) }
                try Self.requireClosed(try storePath(ofVacation: vacationName), side: side, figure: "reimport")
            case .baseline, .limit:
                time = try timed { counts = try BaselineImporter.importFeed(xmlFeed, intoStoreAt: baselineStore, now: Self.visitTime,
                                                                                 pageCacheKibibytes: options.importCacheKibibytes,
                                                                                 memoryJournals: options.importMemoryJournals) }
                try Self.requireClosed(baselineStore, side: side, figure: "reimport")
            }
            reports[side] = counts
            return time
        }, afterRound: { _ in
            guard reports[.ours] == reports[.baseline], reports[.ours]?.unchanged == options.photos else {
                throw BenchError("reimport: ours reported \(reports[.ours] ?? ImportCounts()), the baseline \(reports[.baseline] ?? ImportCounts())")
            }
        })
        try StoreFingerprint.requireEqual(try storePath(ofVacation: vacationName), baselineStore, figure: "reimport")
        record("reimport", times, goal: "≤ 1.30×") { $0.ratio <= 1.3 }
    }

    /// Opens the vacation as `vacation import` does, imports, and closes it.
    func importIntoVacation(_ name: String, feeds: [URL]) throws -> ImportCounts {
        let document = try library.open(named: name)
        var importer = FeedImporter(coordinator: try document.coordinator)
        importer.pageCacheKibibytes = options.importCacheKibibytes
        importer.memoryJournals = options.importMemoryJournals
        importer.chunkSavepoints = options.importChunkSavepoints
        if let chunkSize = options.importChunkSize { importer.chunkSize = chunkSize }
        let report = importer.importFeeds(feeds.map { .file($0) }, rules: DraftRules(), now: Self.visitTime)
        try document.close()
        if let failure = report.files.first(where: { $0.failure != nil })?.failure {
            throw BenchError("the import into \(name) failed: \(failure)")
        }
        return ImportCounts(added: report.added, updated: report.updated, unchanged: report.unchanged)
    }

    /// Makes the empty store a side imports into, untimed: a closed vacation for ours, a store
    /// in the framework's schema, without the search index's triggers, for the others (they
    /// write the index by hand).
    private func emptyStore(for side: Side, figure: String, round: Int) throws -> String {
        if side == .ours {
            try library.create(named: "\(figure) \(round)").close()
            return try storePath(ofVacation: "\(figure) \(round)")
        }
        let store = storeFile(for: side, figure: figure, round: round)
        try BaselineSearchIndex.makeStore(at: store)
        return store
    }

    func storeFile(for side: Side, figure: String, round: Int) -> String {
        path("\(figure)-\(side.rawValue)-\(round).sqlite").path
    }

    static func removeStore(_ store: String) {
        for suffix in ["", "-wal", "-shm"] {
            // A file already gone is what was wanted.
            try? FileManager.default.removeItem(atPath: store + suffix)
        }
    }

    /// A side's time must include its checkpoint: its connection has to be closed (SQLite
    /// removes the WAL when the last connection closes).
    ///
    /// A document that keeps history watches its store for other processes' changes on a
    /// connection of its own, which its close lets go of a moment later: the bench waits up
    /// to five seconds for the WAL to go (a checkpoint then falls outside ours' time).
    static func requireClosed(_ store: String, side: Side, figure: String) throws {
        let deadline = monotonicMilliseconds() + 5_000
        while FileManager.default.fileExists(atPath: store + "-wal") && monotonicMilliseconds() < deadline {
            usleep(10_000)
        }
        if FileManager.default.fileExists(atPath: store + "-wal") {
            throw BenchError("\(figure): the \(side.rawValue) side left its store open (a -wal file), so its time would miss the checkpoint")
        }
    }

    static func size(of url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    }

    // MARK: Memory

    func measureMemory() throws {
        let photos = options.memoryPhotos
        let feed = path("memory-feed.xml")
        progress("generating an XML feed of \(photos) photos for the memory figure")
        try FlickrFeedGenerator(photos: photos).writeXML(to: feed)
        progress("memory: importing \(photos) photos in a child process (ours)")
        let oursFolder = path("memory-ours")
        let ours = try MemoryProbe.measure(side: "ours", feed: feed, folder: oursFolder,
                                           pageCacheKibibytes: options.importCacheKibibytes, memoryJournals: options.importMemoryJournals,
                                           chunkSavepoints: options.importChunkSavepoints, chunkSize: options.importChunkSize)
        progress("memory: importing \(photos) photos in a child process (baseline)")
        let baselineFolder = path("memory-baseline")
        let baseline = try MemoryProbe.measure(side: "baseline", feed: feed, folder: baselineFolder,
                                               pageCacheKibibytes: options.importCacheKibibytes, memoryJournals: options.importMemoryJournals,
                                               chunkSavepoints: options.importChunkSavepoints, chunkSize: options.importChunkSize)
        // A feed already gone is what was wanted; with --keep it stays, for profiling one side alone
        // (`--child-import ours|baseline FEED FOLDER`).
        if !options.keep { try? FileManager.default.removeItem(at: feed) }
        progress("memory: comparing the two stores")
        try StoreFingerprint.requireEqual(MemoryProbe.oursStore(in: oursFolder).path, MemoryProbe.baselineStore(in: baselineFolder).path,
                                          figure: "memory")
        var figure = Figure(name: "memory", photos: photos,
                            kind: .memory(ours: ours.peakMegabytes, baseline: baseline.peakMegabytes,
                                          oursMilliseconds: ours.milliseconds, baselineMilliseconds: baseline.milliseconds))
        figure.runs = 1
        figure.goal = "≤ 100 MB"
        figure.meetsGoal = ours.peakMegabytes <= 100
        figures.append(figure)
        progress(String(format: "memory: ours %.1f MB, baseline %.1f MB", ours.peakMegabytes, baseline.peakMegabytes))
    }
}
