import Documents
import Foundation
import ObjectGraph
import Vacations

/// What a read returned, for comparing the two sides after the clock has stopped: the objects'
/// values in the order they came (or, where no order is asked for, as a set), and for the
/// results controller its sections' names and exact sizes.
struct ReadDigest: Equatable, CustomStringConvertible {
    var objects = 0
    var hash: UInt64 = 0
    var sections: [String] = []

    private var running = RowHasher()

    static func == (left: ReadDigest, right: ReadDigest) -> Bool {
        left.objects == right.objects && left.hash == right.hash && left.sections == right.sections
    }

    /// Adds one object in order: its id, title, place name and date taken.
    mutating func add(unique: String?, title: String?, place: String?, dateTaken: Date?) {
        objects += 1
        running.add(text: unique)
        running.add(text: title)
        running.add(text: place)
        running.add(text: dateTaken.map { String($0.timeIntervalSinceReferenceDate) })
        hash = running.finished
    }

    /// Adds a value to the last object added in order (a photo's tag names).
    mutating func add(text: String?) {
        running.add(text: text)
        hash = running.finished
    }

    /// Adds one object without regard to order.
    mutating func addUnordered(unique: String?, title: String?) {
        objects += 1
        var row = RowHasher()
        row.add(text: unique)
        row.add(text: title)
        hash &+= row.finished
    }

    var description: String {
        "\(objects) objects, hash \(String(hash, radix: 16))" + (sections.isEmpty ? "" : ", sections \(sections.prefix(5))…")
    }
}

/// The read figures, the toggles, opening and backing up: ours through contexts and documents
/// on the vacation the imports left, the baseline through one prepared SELECT each on its own
/// store. The connections are open on both sides before the clock starts, and statements are
/// prepared on both sides by the warm-up round.
extension BenchRunner {
    /// Runs `ours` and `baseline` in alternating rounds after a warm-up; each returns its time
    /// and what it read, and the two must agree.
    func compare(_ figure: String, runs: Int, ours: () throws -> (Double, ReadDigest),
                 baseline: () throws -> (Double, ReadDigest)) throws -> SideTimes {
        var read: [Side: ReadDigest] = [:]
        return try alternate(figure, runs: runs, { side, _ in
            let (time, digest) = try side == .ours ? ours() : baseline()
            read[side] = digest
            return time
        }, afterRound: { _ in
            guard read[.ours] == read[.baseline] else {
                throw BenchError("\(figure): ours read \(read[.ours].map(String.init(describing:)) ?? "nothing"), "
                                 + "the baseline \(read[.baseline].map(String.init(describing:)) ?? "nothing")")
            }
        })
    }

    /// Runs `body` with the vacation open (its coordinator) and a connection to the baseline's
    /// store, for the read figures.
    func withReadStores<T>(_ body: (StoreCoordinator, BaselineReader) throws -> T) throws -> T {
        let reader = BaselineReader(database: try RawDatabase(path: baselineStore, readOnly: true))
        let document = try library.open(named: vacationName)
        defer { try? document.close() }
        return try body(try document.coordinator, reader)
    }

    func measureFetchAll() throws {
        progress("fetch-all")
        let times = try withReadStores { coordinator, reader in try compare("fetch-all", runs: readRuns, ours: {
            let context = ObjectContext(coordinator: coordinator, name: "fetch-all")
            var photos: [Photo] = []
            var touched = 0
            let time = try timed {
                photos = try context.fetch(FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("title")]))
                for photo in photos { touched &+= (photo.title?.utf8.count ?? 0) &+ (photo.place?.name.utf8.count ?? 0) }
            }
            var digest = ReadDigest()
            for photo in photos { digest.add(unique: photo.unique, title: photo.title, place: photo.place?.name, dateTaken: photo.dateTaken) }
            return (withExtendedLifetime(context) { time }, digest)
        }, baseline: {
            var rows: [PhotoRow] = []
            var touched = 0
            let time = try timed {
                rows = try reader.fetchAll()
                for row in rows { touched &+= (row.title?.utf8.count ?? 0) &+ (row.placeName?.utf8.count ?? 0) }
            }
            var digest = ReadDigest()
            for row in rows { digest.add(unique: row.unique, title: row.title, place: row.placeName, dateTaken: row.dateTaken) }
            return (time, digest)
        }) }
        record("fetch-all", times, goal: "≤ 1.30×") { $0.ratio <= 1.3 }
    }

    func measureFetchPredicate() throws {
        progress("fetch-predicate")
        let tag = generator.tags(0)[0]
        let placePrefix = "Place 12"
        let times = try withReadStores { coordinator, reader in try compare("fetch-predicate", runs: readRuns, ours: {
            let context = ObjectContext(coordinator: coordinator, name: "fetch-predicate")
            var photos: [Photo] = []
            let time = try timed {
                photos = try context.fetch(FetchRequest<Photo>(predicate: "ANY tags.name == %@", tag))
                photos += try context.fetch(FetchRequest<Photo>(predicate: "place.name BEGINSWITH %@", placePrefix))
                for photo in photos { _ = photo.title }
            }
            var digest = ReadDigest()
            for photo in photos { digest.addUnordered(unique: photo.unique, title: photo.title) }
            return (withExtendedLifetime(context) { time }, digest)
        }, baseline: {
            var rows: [PhotoRow] = []
            let time = try timed {
                rows = try reader.photos(taggedWith: tag) + reader.photos(placePrefix: placePrefix)
                for row in rows { _ = row.title }
            }
            var digest = ReadDigest()
            for row in rows { digest.addUnordered(unique: row.unique, title: row.title) }
            return (time, digest)
        }) }
        record("fetch-predicate", times, goal: nil)
    }

    func measureControllerFetch() throws {
        progress("frc-initial")
        let times = try withReadStores { coordinator, reader in try compare("frc-initial", runs: readRuns, ours: {
            let context = ObjectContext(coordinator: coordinator, name: "frc-initial")
            let request = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("place.name"), ObjectSortDescriptor("dateTaken")])
            let controller = try FetchedResultsController(request: request, context: context, sectionKeyPath: "place.name")
            let time = try timed { try controller.performFetch() }
            var digest = ReadDigest()
            for section in controller.sections {
                digest.sections.append("\(section.name) \(section.count)")
                for photo in section.objects {
                    digest.add(unique: photo.unique, title: photo.title, place: photo.place?.name, dateTaken: photo.dateTaken)
                }
            }
            return (withExtendedLifetime(controller) { time }, digest)
        }, baseline: {
            var sections: [(name: String, rows: [PhotoRow])] = []
            let time = try timed { sections = try reader.sections() }
            var digest = ReadDigest()
            for section in sections {
                digest.sections.append("\(section.name) \(section.rows.count)")
                for row in section.rows { digest.add(unique: row.unique, title: row.title, place: row.placeName, dateTaken: row.dateTaken) }
            }
            return (time, digest)
        }) }
        record("frc-initial", times, goal: "≤ 1.30×") { $0.ratio <= 1.3 }
    }

    /// Opens the vacation as a new process would (a new library, a new document, read-only)
    /// and reads the 50 photos taken first, with their places; the baseline opens its store,
    /// prepares its statement and reads the same. Both close before the clock stops.
    ///
    /// Both start every round from the files every `vacation` command leaves: the store without
    /// `-wal` and `-shm`. Ours' read-only close removes them and the baseline's leaves them, so
    /// with the sides taking turns the baseline made them anew each round and ours found them
    /// made: SQLite's setting up of the shared-memory file was the baseline's alone to pay.
    ///
    /// A round is one open, about a millisecond, which a timer interrupt or another process
    /// stretches by a tenth: the median of a few rounds moved by ±0.2× from one run of the bench
    /// to the next. So, like the toggles, it takes many: `openFirstPageRounds` per side,
    /// interleaved, whatever `--runs` says.
    func measureOpenFirstPage() throws {
        progress("open-first-page: \(Self.openFirstPageRounds) opens each, interleaved")
        let storePath = try storePath(ofVacation: vacationName)
        let times = try compare("open-first-page", runs: Self.openFirstPageRounds, ours: {
            try Self.removeIdleWAL(ofStoreAt: storePath)
            var digest = ReadDigest()
            let time = try timed {
                let library = try DocumentLibrary(url: libraryURL, model: VacationModel.model)
                let document = try library.open(named: vacationName, mode: .readOnly)
                let request = FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("dateTaken")], limit: 50)
                for photo in try document.viewContext.fetch(request) {
                    digest.add(unique: photo.unique, title: photo.title, place: photo.place?.name, dateTaken: photo.dateTaken)
                }
                try document.close()
            }
            return (time, digest)
        }, baseline: {
            try Self.removeIdleWAL(ofStoreAt: storePath)
            var digest = ReadDigest()
            let time = try timed {
                for row in try BaselineReader.firstPage(storeAt: storePath) {
                    digest.add(unique: row.unique, title: row.title, place: row.placeName, dateTaken: row.dateTaken)
                }
            }
            return (time, digest)
        })
        record("open-first-page", times, goal: "≤ 2.0×") { $0.ratio <= 2.0 }
    }

    /// Removes a closed store's `-wal` and `-shm`, which only readers have used since the
    /// last checkpoint: an empty `-wal` (anything in it would be lost, so that is an error).
    static func removeIdleWAL(ofStoreAt path: String) throws {
        let files = FileManager.default
        if files.fileExists(atPath: path + "-wal") {
            let size = try files.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            guard size == 0 else { throw BenchError("open-first-page: \(path)-wal holds \(size) bytes between rounds") }
            try files.removeItem(atPath: path + "-wal")
        }
        if files.fileExists(atPath: path + "-shm") { try files.removeItem(atPath: path + "-shm") }
    }

    /// Backs the vacation up as `vacation backup` does, and the baseline's store with SQLite's
    /// online backup API and the same check that the copy is whole (its page count); the
    /// copies must hold the same content.
    func measureBackup() throws {
        let folder = path("backups")
        let copy = path("backup.sqlite").path
        var backupStore = ""
        let times = try alternate("backup", runs: options.runs, { side, round in
            progress("backup round \(round) of \(options.runs) (\(round == 0 ? "warm-up, " : "")\(side.rawValue))")
            if side == .ours {
                try? FileManager.default.removeItem(at: folder)
                var info: BackupInfo?
                let time = try timed { info = try library.backup(vacationName, to: folder) }
                backupStore = info?.bundle.storeURL.path ?? ""
                return time
            }
            Self.removeStore(copy)
            return try timed { try BaselineQueries.backup(storeAt: baselineStore, to: copy) }
        })
        try StoreFingerprint.requireEqual(backupStore, copy, figure: "backup")
        record("backup", times, goal: nil)
    }
}
