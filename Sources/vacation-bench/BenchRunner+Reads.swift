import Documents
import Foundation
import ObjectGraph
import Vacations

/// The read figures, the toggles, opening and backing up: ours through contexts and documents
/// on the vacation the imports left, the baseline through one SELECT each on its own store.
extension BenchRunner {
    /// A running checksum of what was read, so that both sides provably touched the same values.
    struct Touched: Equatable {
        var objects = 0
        var bytes = 0

        mutating func touch(_ title: String?, _ place: String? = nil) {
            objects += 1
            bytes &+= (title?.utf8.count ?? 0) &+ (place?.utf8.count ?? 0)
        }
    }

    /// Runs `ours` and `baseline` alternately `runs` times; each returns what it touched, and
    /// the two must agree.
    func compare(_ figure: String, runs: Int, ours: () throws -> (Double, Touched),
                 baseline: () throws -> (Double, Touched)) throws -> (ours: [Double], baseline: [Double]) {
        var oursTimes: [Double] = []
        var baselineTimes: [Double] = []
        for _ in 1...runs {
            let (oursTime, oursTouched) = try ours()
            let (baselineTime, baselineTouched) = try baseline()
            guard oursTouched == baselineTouched else {
                throw BenchError("\(figure): ours read \(oursTouched), the baseline \(baselineTouched)")
            }
            oursTimes.append(oursTime)
            baselineTimes.append(baselineTime)
        }
        return (oursTimes, baselineTimes)
    }

    /// Runs `body` with the vacation open (its coordinator) and the baseline's store, for the
    /// read figures.
    func withReadStores<T>(_ body: (StoreCoordinator, RawDatabase) throws -> T) throws -> T {
        let baselineDatabase = try RawDatabase(path: baselineStore, readOnly: true)
        let document = try library.open(named: vacationName)
        defer { try? document.close() }
        return try body(try document.coordinator, baselineDatabase)
    }

    func measureFetchAll() throws {
        progress("fetch-all")
        let (ours, baseline) = try withReadStores { coordinator, baselineDatabase in try compare("fetch-all", runs: readRuns, ours: {
            let context = ObjectContext(coordinator: coordinator, name: "fetch-all")
            var touched = Touched()
            let time = try timed {
                for photo in try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("title")])) {
                    touched.touch(photo.title, photo.place?.name)
                }
            }
            return (withExtendedLifetime(context) { time }, touched)
        }, baseline: {
            var touched = Touched()
            var rows: [PhotoRow] = []
            let time = try timed {
                rows = try BaselineQueries.fetchAll(baselineDatabase)
                for row in rows { touched.touch(row.title, row.placeName) }
            }
            return (withExtendedLifetime(rows) { time }, touched)
        }) }
        record("fetch-all", ours: ours, baseline: baseline, goal: "≤ 1.50×") { $0.ratio <= 1.5 }
    }

    func measureFetchPredicate() throws {
        progress("fetch-predicate")
        let tag = generator.tags(0)[0]
        let placePrefix = "Place 12"
        let (ours, baseline) = try withReadStores { coordinator, baselineDatabase in try compare("fetch-predicate", runs: readRuns, ours: {
            let context = ObjectContext(coordinator: coordinator, name: "fetch-predicate")
            var touched = Touched()
            let time = try timed {
                for photo in try context.fetch(FetchRequest<Photo>(predicate: "ANY tags.name == %@", tag)) { touched.touch(photo.title) }
                for photo in try context.fetch(FetchRequest<Photo>(predicate: "place.name BEGINSWITH %@", placePrefix)) {
                    touched.touch(photo.title)
                }
            }
            return (withExtendedLifetime(context) { time }, touched)
        }, baseline: {
            var touched = Touched()
            var rows: [[PhotoRow]] = []
            let time = try timed {
                rows = [try BaselineQueries.photos(taggedWith: tag, baselineDatabase),
                        try BaselineQueries.photos(placePrefix: placePrefix, baselineDatabase)]
                for row in rows.joined() { touched.touch(row.title) }
            }
            return (withExtendedLifetime(rows) { time }, touched)
        }) }
        record("fetch-predicate", ours: ours, baseline: baseline, goal: nil) { _ in true }
    }

    func measureControllerFetch() throws {
        progress("frc-initial")
        let (ours, baseline) = try withReadStores { coordinator, baselineDatabase in try compare("frc-initial", runs: readRuns, ours: {
            let context = ObjectContext(coordinator: coordinator, name: "frc-initial")
            let request = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("place.name"), ObjectSortDescriptor("dateTaken")])
            let controller = try FetchedResultsController(request: request, context: context, sectionKeyPath: "place.name")
            let time = try timed { try controller.performFetch() }
            var touched = Touched()
            for section in controller.sections { touched.touch(section.name, String(section.count)) }
            return (withExtendedLifetime(controller) { time }, touched)
        }, baseline: {
            var sections: [(name: String, rows: [PhotoRow])] = []
            let time = try timed { sections = try BaselineQueries.sections(baselineDatabase) }
            var touched = Touched()
            for section in sections { touched.touch(section.name, String(section.rows.count)) }
            return (time, touched)
        }) }
        record("frc-initial", ours: ours, baseline: baseline, goal: nil) { _ in true }
    }

    /// 1,000 toggles: 500 photos spread over the vacation (all of them in a smaller one), each
    /// unvisited, then each visited again, every toggle saved (one transaction); the vacation
    /// ends as it began.
    func measureToggle() throws {
        progress("toggle: reading the drafts")
        let count = min(500, options.photos)
        let ids = (0..<count).map { generator.id($0 * max(1, options.photos / count) % options.photos) }
        let drafts = try FeedImporter.drafts(ids: ids, in: .file(xmlFeed), rules: DraftRules())
        let sequence = drafts + drafts
        progress("toggle: \(sequence.count) toggles each")
        var ours: [Double] = []
        var oursOutcomes: [VacationEditor.ToggleOutcome] = []
        let document = try library.open(named: vacationName)
        let context = try document.newRootContext(name: "toggle")
        for draft in sequence {
            ours.append(try timed {
                oursOutcomes.append(try VacationEditor(context: context, now: Self.visitTime).toggle(draft))
                try context.save()
            })
        }
        try document.close()
        var baseline: [Double] = []
        var baselineOutcomes: [VacationEditor.ToggleOutcome] = []
        let database = try RawDatabase(path: baselineStore)
        let toggler = try BaselineToggler(database: database, now: Self.visitTime)
        for draft in sequence {
            baseline.append(try timed { baselineOutcomes.append(try toggler.toggle(draft)) })
        }
        let expected = Array(repeating: VacationEditor.ToggleOutcome.unvisited, count: count)
            + Array(repeating: .visited, count: count)
        guard oursOutcomes == expected, baselineOutcomes == expected else {
            throw BenchError("toggle: the outcomes are not \(count) unvisits then \(count) visits")
        }
        try StoreFingerprint.requireEqual(try storePath(ofVacation: vacationName), baselineStore, figure: "toggle")
        var figure = Figure(name: "toggle", photos: options.photos,
                            kind: .latency(oursP50: ours.percentile(0.5), oursP99: ours.percentile(0.99),
                                           baselineP50: baseline.percentile(0.5), baselineP99: baseline.percentile(0.99)))
        figure.goal = "p50 < 1 ms"
        figure.meetsGoal = ours.percentile(0.5) < 1
        figures.append(figure)
        progress(String(format: "toggle: ours p50 %.3f ms p99 %.3f ms, baseline p50 %.3f ms p99 %.3f ms",
                        ours.percentile(0.5), ours.percentile(0.99), baseline.percentile(0.5), baseline.percentile(0.99)))
    }

    /// Opens the vacation as a new process would (a new library, a new document, read-only)
    /// and reads the 50 photos taken first, with their places.
    func measureOpenFirstPage() throws {
        progress("open-first-page")
        let storePath = try storePath(ofVacation: vacationName)
        let (ours, baseline) = try compare("open-first-page", runs: readRuns, ours: {
            var touched = Touched()
            let time = try timed {
                let library = try DocumentLibrary(url: libraryURL, model: VacationModel.model)
                let document = try library.open(named: vacationName, mode: .readOnly)
                let request = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("dateTaken")], limit: 50)
                for photo in try document.viewContext.fetch(request) { touched.touch(photo.title, photo.place?.name) }
                try document.close()
            }
            return (time, touched)
        }, baseline: {
            var touched = Touched()
            let time = try timed {
                for row in try BaselineQueries.firstPage(storeAt: storePath) { touched.touch(row.title, row.placeName) }
            }
            return (time, touched)
        })
        record("open-first-page", ours: ours, baseline: baseline, goal: "< 20 ms") { figure in
            if case let .time(ours, _) = figure.kind { return ours < 20 }
            return false
        }
    }

    func measureBackup() throws {
        let folder = path("backups")
        var ours: [Double] = []
        var baseline: [Double] = []
        for run in 1...options.runs {
            progress("backup run \(run) of \(options.runs)")
            ours.append(try timed { _ = try library.backup(vacationName, to: folder) })
            try FileManager.default.removeItem(at: folder)
            let copy = path("backup.sqlite").path
            baseline.append(try timed { try BaselineQueries.backup(storeAt: baselineStore, to: copy) })
            try FileManager.default.removeItem(atPath: copy)
        }
        record("backup", ours: ours, baseline: baseline, goal: nil) { _ in true }
    }
}
