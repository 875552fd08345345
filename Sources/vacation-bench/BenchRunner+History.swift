import Documents
import Foundation
import ObjectGraph
import Vacations

extension BenchRunner {
    /// What persistent history costs an import: the XML feed imported through the framework
    /// into a vacation that keeps history (as vacations do) and into one that does not, `runs`
    /// times each, alternating; "baseline" in the figure is the import without history. The
    /// goal (issue 18): at most 15% more.
    func measureImportHistory() throws {
        let plainLibrary = try DocumentLibrary(url: path("library-without-history"), model: VacationModel.model,
                                               documentConfiguration: .init(autosaveDelay: nil, handlesStopSignals: false))
        var with: [Double] = []
        var without: [Double] = []
        for run in 1...options.runs {
            progress("import-history run \(run) of \(options.runs)")
            for (library, tracked) in [(library, true), (plainLibrary, false)] {
                let name = "import-history \(run)"
                let document = try library.create(named: name)
                let coordinator = try document.coordinator
                guard coordinator.tracksHistory == tracked else {
                    throw BenchError("import-history: the vacation \(tracked ? "keeps no" : "keeps") history")
                }
                let importer = FeedImporter(coordinator: coordinator)
                var report = ImportReport()
                let elapsed = timed { report = importer.importFeeds([.file(xmlFeed)], rules: DraftRules(), now: Self.visitTime) }
                if tracked {
                    let changes = try coordinator.fetchHistory().reduce(0) { $0 + $1.changes.count }
                    guard changes >= options.photos else {
                        throw BenchError("import-history: \(changes) changes in the history of \(options.photos) photos")
                    }
                }
                try document.close()
                if let failure = report.files.first?.failure { throw BenchError("import-history: the import failed: \(failure)") }
                guard report.added == options.photos else { throw BenchError("import-history: \(report.added) photos added") }
                if tracked { with.append(elapsed) } else { without.append(elapsed) }
                try library.delete(name)
            }
        }
        record("import-history", ours: with, baseline: without, goal: "≤ 1.15×") { $0.ratio <= 1.15 }
    }
}
