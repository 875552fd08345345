import Documents
import Foundation
import ObjectGraph
import TestSupport
import Vacations

/// Who does the work in a figure: the framework, the hand-written baseline, or the floor.
enum Side: String, CaseIterable {
    case ours, baseline, limit
}

/// Runs every figure: ours through the framework as an app or the CLI uses it, the baseline
/// through the C API, each on its own copy of the same data; checks that both did the same
/// work before trusting the times.
///
/// Every timed figure runs a warm-up round first, whose times are discarded, then `runs`
/// rounds in which the sides take turns going first (ours, baseline; baseline, ours; …), so
/// that neither always meets the caches the other warmed.
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

    /// Runs of the read figures: each read is short, so it runs more often than the imports.
    var readRuns: Int { options.runs * 2 - 1 }

    /// Rounds of `open-first-page` per side, after the warm-up (see `measureOpenFirstPage`).
    static let openFirstPageRounds = 200

    func progress(_ message: String) {
        FileHandle.standardError.write(Data("vacation-bench: \(message)\n".utf8))
    }

    func run() throws -> [Figure] {
        if options.keep { progress("working in \(workspace.path) (kept)") }
        defer { if !options.keep { try? FileManager.default.removeItem(at: workspace) } }
        if options.memoryOnly {
            try measureMemory()
        } else if options.scaleOnly {
            try measureScale()
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

    func path(_ name: String) -> URL { workspace.appendingPathComponent(name) }

    func storePath(ofVacation name: String) throws -> String {
        try library.bundle(forDocumentNamed: name).storeURL.path
    }

    /// The order of the sides in round `round` (0 is the warm-up): each round starts with the
    /// side after the one that started the round before.
    static func order(_ sides: [Side], round: Int) -> [Side] {
        let shift = round % sides.count
        return Array(sides[shift...] + sides[..<shift])
    }

    /// A warm-up round, then `runs` rounds of every side in turn (`order`); `body` runs one side
    /// once and returns its time, `afterRound` checks what a round left. The warm-up's times are
    /// dropped.
    func alternate(_ figure: String, runs: Int, sides: [Side] = [.ours, .baseline],
                   _ body: (_ side: Side, _ round: Int) throws -> Double,
                   afterRound: (_ round: Int) throws -> Void = { _ in }) throws -> SideTimes {
        var times = SideTimes()
        for round in 0...runs {
            for side in Self.order(sides, round: round) {
                let time = try body(side, round)
                if round > 0 {
                    times.wall[side, default: []].append(time)
                    // `body` times its side with `timed`, which leaves the CPU time here.
                    times.cpu[side, default: []].append(lastCPUMilliseconds)
                }
            }
            try afterRound(round)
        }
        return times
    }

    func record(_ name: String, _ times: SideTimes, goal: String?, photos: Int? = nil,
                meets: (Figure) -> Bool = { _ in true }) {
        let ours = times.wall[.ours] ?? [], baseline = times.wall[.baseline] ?? []
        var figure = Figure(name: name, photos: photos ?? options.photos, kind: .time(ours: ours.median, baseline: baseline.median))
        figure.runs = ours.count
        figure.limit = times.wall[.limit]?.median
        if let oursCPU = times.cpu[.ours], let baselineCPU = times.cpu[.baseline] {
            figure.cpu = (oursCPU.median, baselineCPU.median, times.cpu[.limit]?.median)
        }
        if let goal {
            figure.goal = goal
            figure.meetsGoal = meets(figure)
        }
        figures.append(figure)
        var line = String(format: "%@: ours %.1f ms, baseline %.1f ms, ratio %.2f", name, ours.median, baseline.median, figure.ratio)
        if let limitRatio = figure.limitRatio, let limit = figure.limit {
            line += String(format: "; limit %.1f ms, ours ÷ limit %.2f", limit, limitRatio)
        }
        if let cpu = figure.cpu, let cpuRatio = figure.cpuRatio {
            line += String(format: "; CPU ours %.1f ms, baseline %.1f ms, ratio %.2f", cpu.ours, cpu.baseline, cpuRatio)
            if let limit = cpu.limit, let cpuLimitRatio = figure.cpuLimitRatio {
                line += String(format: ", limit %.1f ms, ours ÷ limit %.2f", limit, cpuLimitRatio)
            }
        }
        progress(line)
    }
}
