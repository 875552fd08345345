import Documents
import Foundation
import ObjectGraph
import TestSupport
import Vacations

/// Runs every figure: ours through the framework as an app or the CLI uses it, the baseline
/// through the C API, each on its own copy of the same data; checks that both did the same
/// work before trusting the times.
@MainActor
final class BenchRunner {
    /// The visit time both sides record, so that their stores agree.
    nonisolated static let visitTime = Date(timeIntervalSinceReferenceDate: 800_000_000)

    let options: BenchOptions
    /// Where the feeds and stores go; removed at the end unless `--keep`.
    let workspace: URL
    let generator: FlickrFeedGenerator
    let xmlFeed: URL
    let jsonFeed: URL
    let libraryURL: URL
    let library: DocumentLibrary
    var figures: [Figure] = []
    /// The vacation and baseline store the read figures use (the last XML import of each).
    var vacationName = ""
    var baselineStore = ""

    init(options: BenchOptions) throws {
        self.options = options
        workspace = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("vacation-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        generator = FlickrFeedGenerator(photos: options.photos)
        xmlFeed = workspace.appendingPathComponent("feed.xml")
        jsonFeed = workspace.appendingPathComponent("feed.json")
        libraryURL = workspace.appendingPathComponent("library")
        // No autosave and no signal handling: the bench saves and closes explicitly. Persistent
        // history on, as vacations keep it (the baseline writes the same rows).
        library = try DocumentLibrary(url: libraryURL, model: VacationModel.model,
                                      documentConfiguration: .init(autosaveDelay: nil, handlesStopSignals: false, tracksHistory: true))
    }

    var readRuns: Int { options.runs * 2 - 1 }

    func progress(_ message: String) {
        FileHandle.standardError.write(Data("vacation-bench: \(message)\n".utf8))
    }

    func run() throws -> [Figure] {
        if options.keep { progress("working in \(workspace.path) (kept)") }
        defer { if !options.keep { try? FileManager.default.removeItem(at: workspace) } }
        if options.memoryOnly {
            try measureMemory()
        } else {
            progress("generating feeds of \(options.photos) photos")
            try generator.writeXML(to: xmlFeed)
            let figures: [(String, () throws -> Void)] = [
                ("import-xml", { try self.measureImport(figure: "import-xml", feed: self.xmlFeed) }),
                ("import-json", {
                    try self.generator.writeJSON(to: self.jsonFeed)
                    try self.measureImport(figure: "import-json", feed: self.jsonFeed)
                }),
                ("reimport", measureReimport), ("fetch-all", measureFetchAll), ("fetch-predicate", measureFetchPredicate),
                ("frc-initial", measureControllerFetch), ("toggle", measureToggle),
                ("open-first-page", measureOpenFirstPage), ("backup", measureBackup), ("search", measureSearch),
                ("import-history", measureImportHistory),
            ]
            for (name, measure) in figures where options.only?.contains(name) ?? true {
                if vacationName.isEmpty && name != "import-xml" && name != "import-json" && name != "import-history" {
                    // The reads need a vacation: import one, without recording the time.
                    try measureImport(figure: "import-xml", feed: xmlFeed, recording: false)
                }
                try measure()
            }
        }
        return figures
    }

    // MARK: Imports

    func path(_ name: String) -> URL { workspace.appendingPathComponent(name) }

    func storePath(ofVacation name: String) throws -> String {
        try library.bundle(forDocumentNamed: name).storeURL.path
    }

    /// Imports `feed` into a fresh vacation and into a fresh baseline store, `runs` times each;
    /// keeps the last of each for the figures that follow.
    private func measureImport(figure: String, feed: URL, recording: Bool = true) throws {
        var ours: [Double] = []
        var baseline: [Double] = []
        for run in 1...(recording ? options.runs : 1) {
            progress("\(figure) run \(run) of \(options.runs)")
            let name = "\(figure) \(run)"
            let document = try library.create(named: name)
            let importer = FeedImporter(coordinator: try document.coordinator)
            var report = ImportReport()
            ours.append(timed { report = importer.importFeeds([.file(feed)], rules: DraftRules(), now: Self.visitTime) })
            try document.close()
            if let failure = report.files.first?.failure { throw BenchError("\(figure): the import failed: \(failure)") }

            let store = path("\(figure)-\(run).sqlite").path
            try BaselineSearchIndex.makeStore(at: store)
            var counts = ImportCounts()
            baseline.append(try timed { counts = try BaselineImporter.importFeed(feed, intoStoreAt: store, now: Self.visitTime) })

            let oursCounts = ImportCounts(added: report.added, updated: report.updated, unchanged: report.unchanged)
            guard oursCounts == counts, counts.added == options.photos else {
                throw BenchError("\(figure): ours reported \(oursCounts), the baseline \(counts)")
            }
            try StoreFingerprint.requireEqual(try storePath(ofVacation: name), store, figure: figure)
            if run > 1 { try discard(vacation: "\(figure) \(run - 1)", store: path("\(figure)-\(run - 1).sqlite").path) }
            vacationName = name
            baselineStore = store
        }
        if recording { record(figure, ours: ours, baseline: baseline, goal: "≤ 1.30×") { $0.ratio <= 1.3 } }
    }

    private func discard(vacation: String, store: String) throws {
        try library.delete(vacation)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
    }

    /// Imports the XML feed again into the vacation that has it: every photo unchanged.
    private func measureReimport() throws {
        var ours: [Double] = []
        var baseline: [Double] = []
        for run in 1...options.runs {
            progress("reimport run \(run) of \(options.runs)")
            let document = try library.open(named: vacationName)
            let importer = FeedImporter(coordinator: try document.coordinator)
            var report = ImportReport()
            ours.append(timed { report = importer.importFeeds([.file(xmlFeed)], rules: DraftRules(), now: Self.visitTime) })
            try document.close()
            var counts = ImportCounts()
            baseline.append(try timed { counts = try BaselineImporter.importFeed(xmlFeed, intoStoreAt: baselineStore, now: Self.visitTime) })
            let oursCounts = ImportCounts(added: report.added, updated: report.updated, unchanged: report.unchanged)
            guard oursCounts == counts, counts.unchanged == options.photos else {
                throw BenchError("reimport: ours reported \(oursCounts), the baseline \(counts)")
            }
        }
        try StoreFingerprint.requireEqual(try storePath(ofVacation: vacationName), baselineStore, figure: "reimport")
        record("reimport", ours: ours, baseline: baseline, goal: nil) { _ in true }
    }

    func record(_ name: String, ours: [Double], baseline: [Double], goal: String?, photos: Int? = nil,
                meets: (Figure) -> Bool) {
        var figure = Figure(name: name, photos: photos ?? options.photos, kind: .time(ours: ours.median, baseline: baseline.median))
        if let goal {
            figure.goal = goal
            figure.meetsGoal = meets(figure)
        }
        figures.append(figure)
        progress(String(format: "%@: ours %.1f ms, baseline %.1f ms, ratio %.2f", name, ours.median, baseline.median, figure.ratio))
    }

    // MARK: Memory

    private func measureMemory() throws {
        let photos = options.memoryPhotos
        let feed = path("memory-feed.xml")
        progress("generating an XML feed of \(photos) photos for the memory figure")
        try FlickrFeedGenerator(photos: photos).writeXML(to: feed)
        progress("memory: importing \(photos) photos in a child process (ours)")
        let ours = try MemoryProbe.measure(side: "ours", feed: feed, folder: path("memory-ours"))
        progress("memory: importing \(photos) photos in a child process (baseline)")
        let baseline = try MemoryProbe.measure(side: "baseline", feed: feed, folder: path("memory-baseline"))
        try? FileManager.default.removeItem(at: feed)
        var figure = Figure(name: "memory", photos: photos,
                            kind: .memory(ours: ours.peakMegabytes, baseline: baseline.peakMegabytes,
                                          oursMilliseconds: ours.milliseconds, baselineMilliseconds: baseline.milliseconds))
        figure.goal = "< 150 MB"
        figure.meetsGoal = ours.peakMegabytes < 150
        figures.append(figure)
        progress(String(format: "memory: ours %.1f MB, baseline %.1f MB", ours.peakMegabytes, baseline.peakMegabytes))
    }
}

/// A summary of a vacation store's content that two stores holding the same photos, tags and
/// places share whatever keys they gave them: how the bench knows both sides did the same work.
enum StoreFingerprint {
    static let queries = [
        // Real columns are summed as whole thousandths: a floating-point total depends on row order.
        "SELECT count(*), \(thousandths("ZLATITUDE")), \(thousandths("ZLONGITUDE")), \(thousandths("ZDATETAKEN")), "
            + "\(thousandths("ZDATEUPLOADED")), \(thousandths("ZVISITED")), "
            + "total(length(ZTITLE)), total(length(ZIMAGEURL)), total(length(ZTHUMBNAILURL)), total(length(ZOWNER)), "
            + "total(length(ZMEDIA)), total(length(ZSUBTITLE)), total(length(ZUNIQUE)) FROM ZPHOTO",
        "SELECT count(*), total(ZCOUNT), total(length(ZNAME)) FROM ZTAG",
        "SELECT count(*), \(thousandths("ZFIRSTVISITED")), total(length(ZNAME)), total(length(ZPLACEID)) FROM ZPLACE",
        "SELECT count(*), total(length(t.ZNAME)), total(length(p.ZUNIQUE)) FROM Z_2TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS "
            + "JOIN ZPHOTO p ON p.Z_PK = j.Z_2PHOTOS",
        "SELECT count(*), total(length(pl.ZNAME)) FROM ZPHOTO p JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE",
        "SELECT count(*) FROM ZTAG t WHERE t.ZCOUNT != (SELECT count(*) FROM Z_2TAGS j WHERE j.Z_4TAGS = t.Z_PK)",
        "SELECT max(Z_PK) <= (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2) FROM ZPHOTO",
        // The search index: the same text for the same photos, and the same words found.
        "SELECT count(*), total(length(f.title)), total(length(f.subtitle)), total(length(f.owner)), total(length(f.place)), "
            + "total(length(f.tags)), total(length(p.ZUNIQUE)), total(f.title IS NOT p.ZTITLE) "
            + "FROM FTS_ZPHOTO_SEARCH f JOIN ZPHOTO p ON p.Z_PK = f.rowid",
        "SELECT count(*), (SELECT count(*) FROM FTS_ZPHOTO_SEARCH WHERE FTS_ZPHOTO_SEARCH MATCH '\"tag1\"* \"place\"') "
            + "FROM FTS_ZPHOTO_SEARCH",
    ]

    private static func thousandths(_ column: String) -> String {
        "sum(CAST(round(\(column) * 1000) AS INTEGER))"
    }

    static func of(_ path: String) throws -> [String] {
        let database = try RawDatabase(path: path, readOnly: true)
        return try queries.map { sql in
            let statement = try database.prepare(sql)
            guard try statement.step() else { return "" }
            return (0..<statement.columnCount).map { String(statement.double($0)) }.joined(separator: " ")
        }
    }

    static func requireEqual(_ ours: String, _ baseline: String, figure: String) throws {
        let (left, right) = (try of(ours), try of(baseline))
        guard left == right else {
            throw BenchError("\(figure): the stores differ\n  ours:     \(left)\n  baseline: \(right)")
        }
    }
}
